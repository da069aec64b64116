// Loads the real profiler files in ../shared/realdata in place and checks exact counts.
// Every expected number was computed independently by tests/realdata/verify_counts.py
// (Python json/csv), not by our loaders.
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "base/load_error.h"
#include "test_support.h"

namespace {

using npu::test::real;

std::map<std::string, uint64_t> slices_by_process(const npu::RunModel& m) {
  std::map<std::string, uint64_t> out;
  for (uint32_t t = 0; t < m.tracks.size(); ++t)
    if (m.track_slices[t].end > m.track_slices[t].begin)
      out[npu::process_display_name(m, m.tracks[t])] += m.track_slices[t].end - m.track_slices[t].begin;
  return out;
}

std::map<std::string, uint64_t> flows_by_category(const npu::RunModel& m) {
  std::map<std::string, uint64_t> out;
  for (const auto& f : m.flows) out[std::string(m.str(f.cat))]++;
  return out;
}

std::map<std::string, uint64_t> kernels_by_core(const npu::RunModel& m) {
  std::map<std::string, uint64_t> out;
  for (const auto& k : m.kernels) out[std::string(m.str(k.accel_core))]++;
  return out;
}

}  // namespace

TEST(RealData, MsttTimelineAdviceTrace) {
  REQUIRE_REALDATA("ascend_torch_npu/mstt_timeline_advice");
  for (int threads : {1, 2}) {
    auto m = npu::test::load_path(real("ascend_torch_npu/mstt_timeline_advice"), threads);
    EXPECT_EQ(m.stats.trace_events, 3670u);
    EXPECT_EQ(m.stats.events_by_phase.at("X"), 2212u);
    EXPECT_EQ(m.stats.events_by_phase.at("s"), 713u);
    EXPECT_EQ(m.stats.events_by_phase.at("f"), 713u);
    EXPECT_EQ(m.stats.events_by_phase.at("M"), 32u);
    auto by = slices_by_process(m);
    EXPECT_EQ(by["Ascend Hardware"], 276u);
    EXPECT_EQ(by["CANN"], 382u);
    EXPECT_EQ(by["Overlap Analysis"], 547u);
    EXPECT_EQ(by["Python"], 1007u);
    auto flows = flows_by_category(m);
    EXPECT_EQ(flows["HostToDevice"], 274u);
    EXPECT_EQ(flows["async_npu"], 274u);
    EXPECT_EQ(flows["async_task_queue"], 148u);
    EXPECT_EQ(flows["fwdbwd"], 17u);
    EXPECT_EQ(m.stats.dangling_flow_points, 0u);
    ASSERT_EQ(m.steps.size(), 1u);
    EXPECT_EQ(m.meta.framework, "torch_npu");
    // Every HostToDevice flow ends exactly at a device task start on Ascend Hardware.
    for (const auto& f : m.flows) {
      if (f.kind != npu::FlowKind::HostToDevice) continue;
      ASSERT_NE(f.end_slice, npu::kNone32);
      EXPECT_EQ(m.slices[f.end_slice].ts, f.end_ts);
      EXPECT_EQ(m.tracks[m.slices[f.end_slice].track].kind, npu::TrackKind::Device);
    }
  }
}

TEST(RealData, Msinsight2RankIsDetectedAsCluster) {
  REQUIRE_REALDATA("ascend_torch_npu/msinsight_2rank");
  auto d = npu::detect_input(real("ascend_torch_npu/msinsight_2rank"));
  EXPECT_EQ(d.cluster, true);
  ASSERT_EQ(d.members.size(), 2u);
}

TEST(RealData, Msinsight2RankRank0) {
  REQUIRE_REALDATA("ascend_torch_npu/msinsight_2rank/test_rank_0");
  auto m = npu::test::load_path(real("ascend_torch_npu/msinsight_2rank/test_rank_0"));
  EXPECT_EQ(m.meta.rank, 0);
  EXPECT_EQ(m.meta.profiler_level, "Level1");
  // 21 data rows, one of which (line 17) lost a cell: it is skipped and said so.
  EXPECT_EQ(m.kernels.size(), 20u);
  auto cores = kernels_by_core(m);
  EXPECT_EQ(cores["HCCL"], 4u);
  EXPECT_EQ(cores["MIX_AIC"], 3u);
  EXPECT_EQ(cores["AI_CPU"], 2u);
  bool warned = false;
  for (const auto& w : m.stats.warnings) warned |= w.find("kernel_details.csv:17:") != std::string::npos;
  EXPECT_TRUE(warned);
  ASSERT_EQ(m.step_trace.size(), 1u);
  EXPECT_EQ(m.step_trace[0].step, 2);
  EXPECT_EQ(m.step_trace[0].computing, 75174575);  // 75174.57464453117 us
  EXPECT_EQ(m.step_trace[0].comm_not_overlapped, 146614020);
  EXPECT_EQ(m.step_trace[0].free, 69909504);
  EXPECT_EQ(m.memory_records.size(), 11u);
  EXPECT_EQ(m.operator_memory.size(), 28u);
  EXPECT_EQ(m.module_memory.size(), 78u);
}

TEST(RealData, Msinsight2RankRank1) {
  REQUIRE_REALDATA("ascend_torch_npu/msinsight_2rank/test_rank_1");
  auto m = npu::test::load_path(real("ascend_torch_npu/msinsight_2rank/test_rank_1"));
  EXPECT_EQ(m.meta.rank, 1);
  EXPECT_EQ(m.kernels.size(), 22u);
  EXPECT_EQ(kernels_by_core(m)["AI_CORE"], 20u);
  ASSERT_EQ(m.step_trace.size(), 1u);
  EXPECT_EQ(m.step_trace[0].computing, 75422220);
  EXPECT_EQ(m.step_trace[0].free, 67860800);
  EXPECT_EQ(m.memory_records.size(), 30u);
  EXPECT_EQ(m.operator_memory.size(), 21u);
}

TEST(RealData, MsttComputeAdviceKernels) {
  REQUIRE_REALDATA("ascend_torch_npu/mstt_compute_advice");
  auto m = npu::test::load_path(real("ascend_torch_npu/mstt_compute_advice"));
  ASSERT_EQ(m.kernels.size(), 29u);
  EXPECT_EQ(m.kernels[0].start, 1736413971558972912LL);  // "1736413971558972.912\t"
  EXPECT_EQ(m.kernels[0].dur, 185504);
  EXPECT_EQ(m.kernels[0].block_dim, 16);
  EXPECT_EQ(m.str(m.kernels[0].input_shapes), "81920,4096;8192,512");
  EXPECT_EQ(m.str(m.kernels[0].op_state), "dynamic");
  EXPECT_EQ(m.pmu_columns.size(), 25u);  // PipeUtilization columns after Context ID
}

TEST(RealData, KinetoTracesLoad) {
  REQUIRE_REALDATA("kineto/tb_plugin_samples/resnet50_num_workers_0");
  auto m = npu::test::load_path(
      real("kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"), 2);
  EXPECT_EQ(m.stats.trace_events, 75718u);
  EXPECT_EQ(m.stats.events_by_phase.at("X"), 44666u);
  EXPECT_EQ(m.stats.events_by_phase.at("i"), 12840u);
  EXPECT_EQ(flows_by_category(m)["async"], 9096u);
  EXPECT_EQ(slices_by_process(m)["python"], 57503u);
  EXPECT_EQ(m.steps.size(), 6u);
  EXPECT_EQ(m.meta.framework, "pytorch");

  auto c = npu::test::load_path(real("kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
  EXPECT_EQ(c.stats.trace_events, 30u);
  EXPECT_EQ(c.meta.rank, 34);  // from distributedInfo, which precedes traceEvents
  ASSERT_EQ(c.steps.size(), 1u);
  EXPECT_EQ(c.steps[0].id, 551);
}

// Every real torch_npu input loads without error (partial data is not an error).
TEST(RealData, EveryAscendInputLoads) {
  REQUIRE_REALDATA("ascend_torch_npu");
  for (const char* rel :
       {"ascend_torch_npu/mstt_timeline_advice", "ascend_torch_npu/mstt_compute_advice",
        "ascend_torch_npu/msinsight_2rank/test_rank_0", "ascend_torch_npu/msinsight_2rank/test_rank_1",
        "ascend_torch_npu/msinsight_misc/heatMap/trace_view.json",
        "ascend_torch_npu/mstt_kernel_details_excerpt/test.csv"}) {
    SCOPED_TRACE(rel);
    EXPECT_NO_THROW(npu::test::load_path(real(rel)));
  }
}
