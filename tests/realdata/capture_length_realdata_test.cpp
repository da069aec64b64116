// The same workload captured for more steps gives the same advice per step: the real
// single-step mstt_timeline_advice trace against 20 back-to-back copies of it (made by the shared
// scale_trace.py). The per-step breakdown and the op_compile saving (replayed: 5.33 ms/step on
// the single step, of 6.637 ms of compile calls) stay within 10 %; the savings add up to at most the step, and the first
// finding is a cause with a command (issue: savings once summed to 161 % of this step).
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

double saving_of(const nlohmann::json& report, const std::string& rule) {
  for (const auto& f : report["findings"])
    if (f["rule"] == rule) return f["saving_ns"].get<double>();
  return -1;
}

TEST(CaptureLength, OpCompileSavingPerStepDoesNotDependOnTheNumberOfSteps) {
  const std::string one = npu::test::realdata_dir() + "/ascend_torch_npu/mstt_timeline_advice";
  const std::string tool = npu::test::realdata_dir() + "/../tools/scale_trace.py";
  if (!std::filesystem::exists(one) || !std::filesystem::exists(tool)) GTEST_SKIP() << "no shared real data / tools";
  npu::test::TempDir dir;
  const std::string many = (dir.path() / "x20").string();
  std::string cmd = "/usr/bin/python3 '" + tool + "' '" + one + "' '" + many + "' --copies 20 > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  nlohmann::json a = npu::test::analyze_json(one), b = npu::test::analyze_json(many);
  EXPECT_EQ(b["facts"]["overall"]["steps"], 20);
  const double sa = saving_of(a, "dispatch.op_compile"), sb = saving_of(b, "dispatch.op_compile");
  // The saving is replayed (docs/whatif.md): the 6.637 ms of compile calls removed from the host
  // make the step 5.33 ms shorter, within the idle time attributed to the compiles (5.992 ms: the
  // rest of the calls overlaps device work).
  ASSERT_GT(sa, 5.0e6);
  EXPECT_LE(sa, a["facts"]["idle_attribution"]["causes"]["compile"]["per_step_ns"].get<double>());
  for (const auto* r : {&a, &b})
    for (const auto& f : (*r)["findings"])
      if (f["rule"] == "dispatch.op_compile") EXPECT_EQ(f["saving_method"], "replay") << f.dump();
  EXPECT_NEAR(sb, sa, 0.1 * sa);
  // The device step is the same step, however many copies follow it (to the profiler's 1 us).
  EXPECT_NEAR(a["facts"]["overall"]["step_time"]["median_ns"].get<double>(),
              b["facts"]["overall"]["step_time"]["median_ns"].get<double>(), 1000);
  // The findings' savings never add up past the step (rules/attribution.h).
  for (const auto* r : {&a, &b}) {
    double sum = 0;
    for (const auto& f : (*r)["findings"]) sum += f["saving_ns"].get<double>();
    EXPECT_LE(sum, (*r)["attribution"]["step_ns"].get<double>());
    EXPECT_NE((*r)["findings"][0]["rule"], "schedule.free_time");  // a cause comes first, not the symptom
    EXPECT_FALSE((*r)["findings"][0]["commands"].empty());
  }
}

}  // namespace
