// The step breakdown on real runs of every input kind agrees with what the profiler itself
// wrote, read independently by tests/realdata/verify_steps.py (step_trace_time.csv, analysis.db
// StepTraceTime, msprof's per-iteration Overlap Analysis, OVERLAP_ANALYSIS), within
// max(1 us, 0.1% of the step): docs/overlap.md. The numbers must be our recomputation, not the
// profiler's echoed back, and the parts of every step add up to the step.
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

using npu::test::real;

std::vector<nlohmann::json> profiler_answers(const std::string& run) {
  std::string cmd = "/usr/bin/python3 " + npu::test::source_dir() + "/tests/realdata/verify_steps.py '" + run + "'";
  std::vector<nlohmann::json> out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) out.push_back(nlohmann::json::parse(buf));
  EXPECT_EQ(pclose(p), 0) << cmd;
  return out;
}

void expect_agrees(const std::string& rel, size_t steps, bool has_preparing) {
  if (!std::filesystem::exists(real(rel))) GTEST_SKIP() << "no ../shared/realdata/" << rel;
  SCOPED_TRACE(rel);
  const auto want = profiler_answers(real(rel));
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
  ASSERT_EQ(want.size(), steps);
  ASSERT_EQ(f.doc["steps"].size(), steps);
  for (size_t i = 0; i < steps; ++i) {
    const auto& s = f.doc["steps"][i];
    const auto& w = want[i];
    SCOPED_TRACE("step " + s["id"].dump());
    EXPECT_EQ(s["id"], w["step"]);
    EXPECT_EQ(s["source"], "recomputed from device tasks");
    EXPECT_FALSE(s.contains("recomputed"));
    const int64_t step = s["device_time_ns"].get<int64_t>();
    const int64_t tol = std::max<int64_t>(1000, step / 1000);
    EXPECT_NEAR(s["computing_ns"].get<int64_t>(), w["computing"].get<int64_t>(), tol);
    EXPECT_NEAR(s["comm_not_overlapped_ns"].get<int64_t>(), w["comm_not_overlapped"].get<int64_t>(), tol);
    EXPECT_NEAR(s["free_ns"].get<int64_t>(), w["free"].get<int64_t>(), tol);
    if (has_preparing) EXPECT_NEAR(s["preparing_ns"].get<int64_t>(), w["preparing"].get<int64_t>(), tol);
    else EXPECT_TRUE(s["preparing_ns"].is_null());
    // The parts never exceed the step: they add up to it.
    EXPECT_EQ(
        s["computing_ns"].get<int64_t>() + s["comm_not_overlapped_ns"].get<int64_t>() + s["free_ns"].get<int64_t>(),
        step);
    EXPECT_TRUE(s["agreement"]["ok"].get<bool>());
  }
}

// torch_npu text export (Level1, task queue on): the device step starts at the step's first
// device task, not at ProfilerStep#50; the 17.9 ms before it are Preparing, not Free.
TEST(StepSemanticsRealData, TorchNpuTextExportRank0) {
  expect_agrees("ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt", 1, true);
}
TEST(StepSemanticsRealData, TorchNpuTextExportRank1) {
  expect_agrees("ascend_torch_npu/msinsight_pytorch_2rank/text/rank1_ascend_pt", 1, true);
}
// torch_npu SQLite export: communication from COMMUNICATION_OP, computing from COMPUTE_TASK_INFO.
TEST(StepSemanticsRealData, TorchNpuDbExportRank0) {
  expect_agrees("ascend_torch_npu/msinsight_pytorch_2rank/db/rank0_ascend_pt", 1, true);
}
TEST(StepSemanticsRealData, TorchNpuDbExportRank1) {
  expect_agrees("ascend_torch_npu/msinsight_pytorch_2rank/db/rank1_ascend_pt", 1, true);
}
// A single-step trace with no step_trace_time.csv: the Overlap Analysis track is the answer.
TEST(StepSemanticsRealData, TorchNpuTraceOnly) {
  if (!std::filesystem::exists(real("ascend_torch_npu/mstt_timeline_advice"))) GTEST_SKIP();
  npu::Facts f = npu::compute_facts(npu::test::load_path(real("ascend_torch_npu/mstt_timeline_advice")));
  const auto& s = f.doc["steps"][0];
  EXPECT_EQ(s["source"], "recomputed from device tasks");
  EXPECT_EQ(s["profiler"]["source"], "Overlap Analysis track");
  EXPECT_TRUE(s["agreement"]["ok"].get<bool>());
  EXPECT_LE(s["agreement"]["max_abs_diff_ns"].get<int64_t>(), 1000);
}
// msprof CANN 6.x: 10 iterations, each with its own Overlap Analysis; the time between two
// iterations is no iteration's Free (it was 47% "free" when it was).
TEST(StepSemanticsRealData, MsprofIterationsDevice0) {
  expect_agrees("msprof_PROF/mindinsight_2device/PROF_000001_20230818142704322_COJGGGCANRMICFBC", 10, false);
}
TEST(StepSemanticsRealData, MsprofIterationsDevice1) {
  expect_agrees("msprof_PROF/mindinsight_2device/PROF_000001_20230818142704567_GQFAMHBKGODKJMLA", 10, false);
}
// msprof's own database: Free spans every task of the capture, communication is COMMUNICATION_OP.
TEST(StepSemanticsRealData, MsprofDatabase) { expect_agrees("ascend_db/msinsight_full_db", 1, false); }

// analysis.db of a 4-device run, one row per device (step NULL): 4 devices, not 4 steps.
TEST(StepSemanticsRealData, AnalysisDbRowsPerDeviceAreDevices) {
  const std::string rel = "ascend_db/msinsight_multiDevice";
  if (!std::filesystem::exists(real(rel))) GTEST_SKIP();
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
  EXPECT_EQ(f.doc["overall"]["steps"], 1);
  EXPECT_EQ(f.doc["steps"].size(), 1u);
  ASSERT_EQ(f.doc["overall"]["devices"].size(), 4u);
  // Device 0's row: computing 75.72 us, free 271016.82 us (read with sqlite3).
  EXPECT_EQ(f.doc["overall"]["device"], 0);
  EXPECT_EQ(f.doc["overall"]["computing_ns"], 75720);
  EXPECT_EQ(f.doc["overall"]["free_ns"], 271016820);
  EXPECT_EQ(f.doc["overall"]["devices"][3]["device"], 3);
  EXPECT_EQ(f.doc["overall"]["devices"][3]["free_ns"], 296825180);
}

}  // namespace
