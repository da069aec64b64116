// The same workload captured for more steps gives the same advice per step: the real
// single-step mstt_timeline_advice trace against 20 back-to-back copies of it (made by the shared
// scale_trace.py). The per-step breakdown and the op_compile saving (6.637 ms/step on the
// single step) stay within 10 %.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.h"

namespace {

nlohmann::json analyze(const std::string& path, const npu::test::TempDir& dir, const std::string& name) {
  std::string out = (dir.path() / name).string();
  std::string cmd = std::string(NPU_ADVISOR_BIN) + " analyze '" + path + "' -q --format json -o '" + out + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

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
  nlohmann::json a = analyze(one, dir, "one.json"), b = analyze(many, dir, "many.json");
  EXPECT_EQ(b["facts"]["overall"]["steps"], 20);
  const double sa = saving_of(a, "dispatch.op_compile"), sb = saving_of(b, "dispatch.op_compile");
  ASSERT_GT(sa, 6e6);
  EXPECT_NEAR(sb, sa, 0.1 * sa);
  // The device step is the same step, however many copies follow it.
  EXPECT_EQ(a["facts"]["overall"]["step_time"]["median_ns"], b["facts"]["overall"]["step_time"]["median_ns"]);
}

}  // namespace
