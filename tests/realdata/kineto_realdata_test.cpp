// Real Kineto (CUDA) traces: the per-step breakdown and launch lag the tool computes agree to
// the nanosecond with tests/realdata/verify_kineto.py, which recomputes them from the raw JSON
// with the Python standard library (decimals, no floats):
//   /usr/bin/python3 tests/realdata/verify_kineto.py ../shared/realdata/kineto/<trace>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "rules/rule_engine.h"
#include "kineto_verifier.h"
#include "test_support.h"

namespace {

std::string real(const std::string& rel) { return npu::test::realdata_dir() + "/kineto/" + rel; }

#define REQUIRE_KINETO(rel) \
  if (!std::filesystem::exists(real(rel))) GTEST_SKIP() << "no ../shared/realdata/kineto/" << rel;

struct StepAnswer {
  int64_t id;
  int64_t computing, communication, not_overlapped, free, launches, lag_p50;
};

// Checks every step of `rel` against the verifier's answers.
void expect_steps(const std::string& rel, int device, const std::vector<StepAnswer>& want, int64_t lag_p50) {
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
  EXPECT_EQ(f.doc["run"]["platform"], "gpu") << rel;
  EXPECT_EQ(f.doc["overall"]["device"], device) << rel;
  ASSERT_EQ(f.doc["steps"].size(), want.size()) << rel;
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& s = f.doc["steps"][i];
    const auto& d = f.doc["dispatch"]["steps"][i];
    SCOPED_TRACE(rel + " step " + std::to_string(want[i].id));
    EXPECT_EQ(s["id"], want[i].id);
    EXPECT_EQ(s["computing_ns"], want[i].computing);
    EXPECT_EQ(s["communication_ns"], want[i].communication);
    EXPECT_EQ(s["comm_not_overlapped_ns"], want[i].not_overlapped);
    EXPECT_EQ(s["free_ns"], want[i].free);
    EXPECT_EQ(d["count"], want[i].launches);
    EXPECT_EQ(d["lag_p50_ns"], want[i].lag_p50);
  }
  EXPECT_EQ(f.doc["dispatch"]["flow_kind"], "correlation");
  EXPECT_EQ(f.doc["dispatch"]["overall"]["lag_p50_ns"], lag_p50) << rel;
}

// Two ranks of a 128-rank job with NCCL (HTA test data, sampled: no flow arrows, so launches
// are joined by correlation id only). Rank 1's kernels are on GPU 1.
TEST(KinetoRealData, MultiRankNcclBreakdownMatchesIndependentComputation) {
  REQUIRE_KINETO("hta/trace_filter/sampled_rank-0.json.gz");
  expect_steps("hta/trace_filter/sampled_rank-0.json.gz", 0,
               {{551, 106252000, 195327000, 172259000, 328632000, 602, 10292000},
                {552, 104068000, 200872000, 164724000, 353952000, 602, 11789000}},
               10846000);
  expect_steps("hta/trace_filter/sampled_rank-1.json.gz", 1,
               {{551, 135548000, 168027000, 134336000, 335901000, 577, 10290000},
                {552, 136425000, 211026000, 169187000, 322592000, 577, 12718000}},
               11958000);
}

// 2-GPU DDP allreduce (rank 0), ac2g flows present: the correlation join gives the same pairs.
TEST(KinetoRealData, DdpAllreduceBreakdownMatchesIndependentComputation) {
  REQUIRE_KINETO("hta/nccl_parser_config/nccl_data.json.gz");
  expect_steps("hta/nccl_parser_config/nccl_data.json.gz", 0,
               {{4, 38506406, 11989021, 10163762, 173003270, 1258, 12253},
                {5, 38429422, 12300029, 10539609, 169997979, 1258, 12184},
                {6, 38720019, 22587443, 18856097, 166604076, 1258, 12327}},
               12254);
  // Collectives by the "Collective name" arg of record_param_comms and the NCCL kernels
  // (counted with Python: 15 allreduce calls and kernels, 46762159 ns; 6 broadcasts).
  npu::Facts f = npu::compute_facts(npu::test::load_path(real("hta/nccl_parser_config/nccl_data.json.gz")));
  const auto& c = f.doc["gpu"]["collectives"];
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0]["name"], "allreduce");
  EXPECT_EQ(c[0]["kernels"], 15);
  EXPECT_EQ(c[0]["host_calls"], 15);
  EXPECT_EQ(c[0]["kernel_ns"], 46762159);
  EXPECT_EQ(c[1]["name"], "broadcast");
  EXPECT_EQ(c[1]["kernel_ns"], 114334);
  EXPECT_EQ(c[2]["name"], "wait");
}

// Single H100, one step, no NCCL; ProfilerStep#6 also appears as a gpu_user_annotation on the
// GPU stream and Python stack events share the GPU's pid 0.
TEST(KinetoRealData, SingleGpuBreakdownMatchesIndependentComputation) {
  REQUIRE_KINETO("tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz");
  expect_steps("tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz", 0,
               {{6, 307197, 0, 0, 4116677, 61, 6538}},
               6538);
  // GPU memory peaks from the [memory] events (bytes, as verify_kineto.py's memory_peaks).
  npu::Facts f =
      npu::compute_facts(npu::test::load_path(real("tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz")));
  EXPECT_DOUBLE_EQ(f.doc["gpu"]["memory"]["peak_allocated_mb"].get<double>() * 1048576.0, 101305344.0);
  EXPECT_DOUBLE_EQ(f.doc["gpu"]["memory"]["peak_reserved_mb"].get<double>() * 1048576.0, 121634816.0);
  // The same model on an MI300 (HIP runtime names, GPU 2).
  expect_steps("tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz", 2,
               {{6, 388344, 0, 0, 3616586, 61, 18181}},
               18181);
}

// A 2021 trace (ResNet50, V100 era): categories Kernel / Runtime / Operator / Memcpy, string
// tids ("stream 7"), flows named "launch" in cat "async".
TEST(KinetoRealData, Kineto2021TraceBreakdownMatchesIndependentComputation) {
  REQUIRE_KINETO("tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  expect_steps("tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 0,
               {{5, 98598000, 0, 0, 87319000, 1516, 9701000},
                {6, 98570000, 0, 0, 74547000, 1516, 8281000},
                {7, 98596000, 0, 0, 79115000, 1516, 10250000},
                {8, 98623000, 0, 0, 73914000, 1516, 9360000},
                {9, 98504000, 0, 0, 81644000, 1516, 8880000},
                {10, 98641000, 0, 0, 65456000, 1516, 10863000}},
               9500000);
}

TEST(KinetoRealData, ToolAgreesWithTheVerifierRunNow) {
  expect_matches_verifier(npu::test::source_dir() + "/testdata/kineto/two_steps_nccl.json");
  if (std::filesystem::exists(real("hta/nccl_parser_config/nccl_data.json.gz")))
    expect_matches_verifier(real("hta/nccl_parser_config/nccl_data.json.gz"));
}

TEST(KinetoRealData, CpuOnlyTraceSkipsDeviceChecksWithAReason) {
  REQUIRE_KINETO("hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  npu::Facts f =
      npu::compute_facts(npu::test::load_path(real("hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")));
  EXPECT_EQ(f.doc["run"]["platform"], "cpu");
  EXPECT_FALSE(f.doc.contains("gpu"));
  npu::RuleEngine engine;
  engine.add_builtin_rules();
  for (const auto& o : engine.run(f, {})) {
    if (o.meta.id != "communication.not_overlapped") continue;
    EXPECT_EQ(o.status, npu::RuleOutcome::Status::Skipped);
    EXPECT_NE(o.reason.find("CPU-only"), std::string::npos) << o.reason;
  }
}

}  // namespace
