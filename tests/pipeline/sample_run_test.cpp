// The shipped sample (tools/gen_sample.py) has answers known by construction in
// testdata/sample/expected.json: the loaders must reproduce them exactly.
#include <cstdlib>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

nlohmann::json expected() {
  std::ifstream f(npu::test::source_dir() + "/testdata/sample/expected.json");
  return nlohmann::json::parse(f);
}

}  // namespace

class SampleRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = new npu::RunModel(npu::test::load_path(npu::test::sample_run(), 2)); }
  static void TearDownTestSuite() { delete model_; }
  static npu::RunModel* model_;
};
npu::RunModel* SampleRun::model_ = nullptr;

TEST_F(SampleRun, TraceCountsMatchGenerator) {
  auto e = expected()["trace"];
  const auto& m = *model_;
  EXPECT_EQ(m.stats.trace_events, e["total_events"].get<uint64_t>());
  for (auto& [ph, n] : e["events_by_ph"].items()) EXPECT_EQ(m.stats.events_by_phase.at(ph), n.get<uint64_t>()) << ph;
  std::map<std::string, uint64_t> by_process;
  for (uint32_t t = 0; t < m.tracks.size(); ++t)
    by_process[std::string(m.str(m.tracks[t].process_name))] += m.track_slices[t].end - m.track_slices[t].begin;
  for (auto& [p, n] : e["x_events_by_process"].items()) EXPECT_EQ(by_process[p], n.get<uint64_t>()) << p;
  std::map<std::string, uint64_t> flows;
  for (const auto& f : m.flows) flows[std::string(m.str(f.cat))]++;
  for (auto& [c, n] : e["flows_by_category"].items()) EXPECT_EQ(flows[c], n.get<uint64_t>()) << c;
  EXPECT_EQ(m.stats.dangling_flow_points, 0u);
}

TEST_F(SampleRun, StepsMatchGenerator) {
  auto e = expected()["steps_breakdown"];
  const auto& m = *model_;
  ASSERT_EQ(m.steps.size(), e.size());
  for (size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(m.steps[i].id, e[i]["id"].get<int64_t>());
    EXPECT_EQ(m.steps[i].start, e[i]["start_ns"].get<int64_t>());
    EXPECT_EQ(m.steps[i].end, e[i]["end_ns"].get<int64_t>());
  }
}

TEST_F(SampleRun, StepTraceTimeIsExact) {
  auto e = expected()["steps_breakdown"];
  const auto& m = *model_;
  ASSERT_EQ(m.step_trace.size(), e.size());
  for (size_t i = 0; i < e.size(); ++i) {
    const auto& r = m.step_trace[i];
    EXPECT_EQ(r.step, e[i]["id"].get<int64_t>());
    EXPECT_EQ(r.device, 0);
    EXPECT_EQ(r.computing, e[i]["computing_ns"].get<int64_t>());
    EXPECT_EQ(r.communication, e[i]["communication_ns"].get<int64_t>());
    EXPECT_EQ(r.comm_not_overlapped, e[i]["comm_not_overlapped_ns"].get<int64_t>());
    EXPECT_EQ(r.overlapped, e[i]["overlapped_ns"].get<int64_t>());
    EXPECT_EQ(r.free, e[i]["free_ns"].get<int64_t>());
    EXPECT_EQ(r.preparing, e[i]["preparing_ns"].get<int64_t>());
  }
}

TEST_F(SampleRun, KernelDetailsMatchGenerator) {
  auto e = expected()["kernel_details"];
  const auto& m = *model_;
  ASSERT_EQ(m.kernels.size(), e["rows"].get<size_t>());
  std::map<std::string, uint64_t> cores, states;
  uint64_t aicpu = 0;
  npu::Ns aicpu_ns = 0;
  for (const auto& k : m.kernels) {
    cores[std::string(m.str(k.accel_core))]++;
    states[k.op_state ? std::string(m.str(k.op_state)) : "na"]++;
    if (m.str(k.accel_core) == "AI_CPU") {
      ++aicpu;
      aicpu_ns += k.dur;
    }
  }
  for (auto& [c, n] : e["by_accelerator_core"].items()) EXPECT_EQ(cores[c], n.get<uint64_t>()) << c;
  for (auto& [s, n] : e["op_state"].items()) EXPECT_EQ(states[s], n.get<uint64_t>()) << s;
  EXPECT_EQ(aicpu, e["ai_cpu"]["count"].get<uint64_t>());
  EXPECT_EQ(aicpu_ns, e["ai_cpu"]["total_duration_ns"].get<int64_t>());
  EXPECT_FALSE(m.pmu_columns.empty());
  EXPECT_EQ(m.pmu_values.size(), m.kernels.size() * m.pmu_columns.size());
}

TEST_F(SampleRun, MetadataAndEnvironment) {
  const auto& m = *model_;
  EXPECT_EQ(m.meta.framework, "torch_npu");
  EXPECT_EQ(m.meta.profiler_level, "Level1");
  EXPECT_EQ(m.meta.device, 0);
  EXPECT_EQ(m.meta.env.at("TASK_QUEUE_ENABLE"), "1");
  EXPECT_EQ(m.op_statistics.size(), expected()["op_statistic"]["rows"].get<size_t>());
}

// The generator is deterministic, so the committed sample must be exactly what it writes.
TEST(SampleGenerator, CommittedSampleIsReproducible) {
  if (std::system("python3 --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "python3 not installed";
  npu::test::TempDir d;
  std::string cmd = "python3 " + npu::test::source_dir() + "/tools/gen_sample.py " + d.path().string() +
                    " > /dev/null && diff -r " + d.path().string() + " " + npu::test::source_dir() + "/testdata/sample";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}
