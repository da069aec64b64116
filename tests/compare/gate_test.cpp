// `gate` (compare/gate.cpp, cli/cmd_gate.cpp): the default budget, the partial-input rule, and the
// verdict end to end through the CLI on generated pairs: identical and noise-only runs pass,
// planted regressions fail. docs/compare-gate.md.
#include "compare/gate.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "base/json_file.h"
#include "base/load_error.h"
#include "test_support.h"

namespace {

using nlohmann::json;
namespace cmp = npu::compare;

// ------------------------------------------------------------------ the default budget

TEST(GateConfig, DefaultIsStepTimeFivePercent) {
  cmp::GateConfig cfg;
  ASSERT_EQ(cfg.budgets.size(), 1u);
  EXPECT_DOUBLE_EQ(cfg.budgets.at("step_time").value, 0.05);
  EXPECT_FALSE(cfg.fail_on_finding_saving.has_value());
}

// ------------------------------------------------------------------ evaluation without steps

TEST(GatePartialInput, NamesTheSideTheFileAndWhatWasRejected) {
  cmp::CompareSide base, next;
  base.path = "base_run";
  next.path = "new_run";
  EXPECT_FALSE(cmp::partial_input(base, next).has_value());
  next.rejected = {"new_run/kernel_details.csv:3: 1 row with a missing or negative \"Duration(us)\" was skipped"};
  EXPECT_EQ(cmp::partial_input(base, next).value_or(""),
            "the new run (new_run) is partial: the loaders rejected data: new_run/kernel_details.csv:3: 1 row with a "
            "missing or negative \"Duration(us)\" was skipped");
  base.rejected = {"base_run/trace_view.json: 2 events without a \"ph\" were skipped", "second", "third"};
  EXPECT_EQ(cmp::partial_input(base, next).value_or(""),
            "the baseline (base_run) is partial: the loaders rejected data: base_run/trace_view.json: 2 events without "
            "a \"ph\" were skipped (and 2 more load warnings)");
}

// A warning that drops nothing (a file not read, a rank id out of range) leaves the run whole:
// msprof PROF_ and MindSpore runs always carry such notes and must still be gated.
TEST(GatePartialInput, NotesThatDropNoRecordsAreNotPartial) {
  cmp::CompareSide base, next;
  base.path = "PROF_1";
  base.kind = "msprof PROF_ folder";
  base.warnings = {
      "PROF_1/mindstudio_profiler_output: 30 timeline files not read (msprof_*.json already holds their events)"};
  next.path = "PROF_2";
  next.kind = "facts file";
  next.facts.doc = {{"run",
                     {{"warnings", json::array({"profiler: MindSpore legacy raw files are not read"})},
                      {"rejected", json::array()}}}};
  EXPECT_FALSE(cmp::partial_input(base, next).has_value());
}

TEST(GatePartialInput, AFactsFileCarriesTheWarningsOfItsLoad) {
  cmp::CompareSide base, next;
  base.path = "base.facts.json";
  base.kind = "facts file";
  json warnings =
      json::array({"run/kernel_details.csv:17: 1 of 21 rows have a different number of fields than the "
                   "header (32; line 17 has 31); those rows were skipped"});
  base.facts.doc = {{"run", {{"warnings", warnings}}}};
  next.path = "new_run";
  EXPECT_EQ(cmp::load_warnings(base).size(), 1u);
  EXPECT_EQ(cmp::partial_input(base, next).value_or(""),
            "the baseline (base.facts.json) is partial: the loaders rejected data: run/kernel_details.csv:17: 1 of 21 "
            "rows have a different number of fields than the header (32; line 17 has 31); those rows were skipped");
}

TEST(GateEvaluate, TooFewStepsFallsBackToThePlainThreshold) {
  json doc = {
      {"step_time", {{"available", true}}},
      {"series", {{"paired", true}, {"base", {{"step_time_ns", {100, 100}}}}, {"new", {{"step_time_ns", {110, 110}}}}}},
      {"findings", {{"new_run", json::array()}, {"appeared", json::array()}, {"persisting", json::array()}}},
      {"notes", json::array()}};
  cmp::GateConfig cfg;
  json g = cmp::evaluate_gate(doc, cfg);
  ASSERT_EQ(g["checks"].size(), 1u);
  EXPECT_EQ(g["checks"][0]["status"], "fail");
  EXPECT_NE(g["checks"][0]["method"].get<std::string>().find("plain threshold"), std::string::npos);
  EXPECT_FALSE(g["checks"][0]["noise"]["possible"].get<bool>());
  EXPECT_TRUE(cmp::gate_failed(g));
  // A budget whose facts are absent is skipped, not failed.
  cfg.set(cmp::Budget{"memory_peak", cmp::Budget::Kind::Relative, 0.01, "1%", "t"});
  cfg.set(cmp::Budget{"step_time", cmp::Budget::Kind::Relative, 0.20, "20%", "t"});
  g = cmp::evaluate_gate(doc, cfg);
  EXPECT_EQ(g["verdict"], "pass");
  EXPECT_EQ(g["skipped"], 1);
}

// A gate that evaluated nothing (every check skipped, or every budget off) fails: a side without
// steps passed with "0 failed, 0 passed, 1 skipped" (issue 47).
TEST(GateEvaluate, NothingEvaluatedFails) {
  json doc = {{"step_time", {{"available", false}}},
              {"findings", {{"new_run", json::array()}, {"appeared", json::array()}, {"persisting", json::array()}}},
              {"notes", json::array()}};
  cmp::GateConfig cfg;
  json g = cmp::evaluate_gate(doc, cfg);
  EXPECT_TRUE(cmp::gate_failed(g));
  EXPECT_EQ(g["failed"], 1);
  EXPECT_EQ(g["skipped"], 1);
  EXPECT_EQ(g["checks"].back()["name"], "evaluated");
  cfg.set(cmp::Budget{"step_time", cmp::Budget::Kind::Off, 0, "off", "t"});
  g = cmp::evaluate_gate(doc, cfg);
  EXPECT_TRUE(cmp::gate_failed(g));
  EXPECT_NE(g["checks"][0]["message"].get<std::string>().find("every budget is off"), std::string::npos);
  // A findings check alone is an evaluation.
  cfg.fail_on_finding_saving = 0.1;
  EXPECT_FALSE(cmp::gate_failed(cmp::evaluate_gate(doc, cfg)));
}

// ------------------------------------------------------------------ CLI, end to end

int run(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class GateCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::system("python3 --version > /dev/null 2>&1") != 0) return;
    dir_ = new npu::test::TempDir;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "python3 unavailable";
  }
  // The generated run NAME (10 steps), made on first use.
  static std::string path(const std::string& name) {
    static const std::map<std::string, std::string> flags = {{"base", ""},
                                                             {"matmul", "--slow-op MatMulV3=1.3"},
                                                             {"free", "--extra-free-us 500"},
                                                             {"aicpu", "--new-aicpu"},
                                                             {"noise", "--noise-seed 2"}};
    std::string p = (dir_->path() / name).string();
    auto it = flags.find(name);
    if (it != flags.end() && !std::filesystem::exists(p)) {
      std::string cmd = "python3 " + npu::test::source_dir() + "/tools/gen_sample.py " + p + " --steps 10 " +
                        it->second + " > /dev/null";
      if (std::system(cmd.c_str()) != 0) throw std::runtime_error("tools/gen_sample.py failed for " + name);
    }
    return p;
  }
  // Runs `gate --baseline base NEW ARGS`, keeping the JSON; returns the exit code.
  static int gate(const std::string& next, const std::string& args, json* out = nullptr) {
    std::string j = path("gate.json");
    std::filesystem::remove(j);
    int rc = run(std::string(NPU_ADVISOR_BIN) + " gate -q --baseline " + path("base") + " " + path(next) + " --json " +
                 j + " " + args + " > " + path("gate.txt") + " 2>&1");
    if (out && std::filesystem::exists(j)) *out = npu::read_json_file(j);
    return rc;
  }
  static json check(const json& g, const std::string& name) {
    for (const auto& c : g["gate"]["checks"])
      if (c["name"] == name) return c;
    return nullptr;
  }
  static npu::test::TempDir* dir_;
};
npu::test::TempDir* GateCli::dir_ = nullptr;

const char* kAllBudgets =
    "--max-regression step_time=5% --max-regression free_ratio=3pp --max-regression comm_not_overlapped=2ms "
    "--max-regression op_type:MatMulV3=10% --max-regression memory_peak=100MB --max-regression ai_cpu_calls=0";

TEST_F(GateCli, IdenticalRunsPass) {
  json g;
  EXPECT_EQ(gate("base", kAllBudgets, &g), 0) << slurp(path("gate.txt"));
  EXPECT_EQ(g["gate"]["verdict"], "pass");
  EXPECT_EQ(g["gate"]["failed"], 0);
  EXPECT_EQ(g["gate"]["checks"].size(), 6u);
  EXPECT_NE(slurp(path("gate.txt")).find("gate: PASS"), std::string::npos);
}

TEST_F(GateCli, NoiseOnlyPasses) {
  json g;
  EXPECT_EQ(gate("noise", kAllBudgets, &g), 0) << slurp(path("gate.txt"));
  // A budget tighter than the jitter: the median moved past it, but not past the noise.
  EXPECT_EQ(gate("noise", "--max-regression step_time=0.5%", &g), 0) << slurp(path("gate.txt"));
  json c = check(g, "step_time");
  EXPECT_TRUE(c["over_budget"].get<bool>()) << c.dump(1);
  EXPECT_EQ(c["status"], "pass");
  EXPECT_TRUE(c["noise"]["possible"].get<bool>());
  EXPECT_LE(c["noise"]["ci_low"].get<double>(), 0);
  EXPECT_NE(c["message"].get<std::string>().find("within noise"), std::string::npos);
}

TEST_F(GateCli, SlowerMatMulFailsAndIsExplained) {
  json g;
  std::string junit = path("matmul.xml"), md = path("matmul.md");
  EXPECT_EQ(gate("matmul", std::string(kAllBudgets) + " --junit " + junit + " --markdown " + md, &g), 1);
  EXPECT_EQ(check(g, "step_time")["status"], "fail");
  EXPECT_EQ(check(g, "op_type:MatMulV3")["status"], "fail");
  EXPECT_EQ(check(g, "free_ratio")["status"], "pass");
  EXPECT_EQ(check(g, "ai_cpu_calls")["status"], "pass");
  EXPECT_TRUE(check(g, "step_time")["noise"]["significant"].get<bool>());
  EXPECT_EQ(g["compare"]["why"][0]["subject"], "computing");
  EXPECT_EQ(g["compare"]["why"][1]["subject"], "MatMulV3");
  std::string x = slurp(junit);
  EXPECT_NE(x.find("<testsuites"), std::string::npos);
  EXPECT_NE(x.find("name=\"op_type:MatMulV3\""), std::string::npos);
  size_t testcases = 0, failures = 0;
  for (size_t p = 0; (p = x.find("<testcase ", p)) != std::string::npos; ++p) ++testcases;
  for (size_t p = 0; (p = x.find("<failure ", p)) != std::string::npos; ++p) ++failures;
  EXPECT_EQ(testcases, 6u);
  EXPECT_EQ(failures, 2u);
  if (std::system("python3 -c 'import xml.dom.minidom' > /dev/null 2>&1") == 0) {
    EXPECT_EQ(run("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' " + junit), 0);
  }
  std::string m = slurp(md);
  EXPECT_NE(m.find("npu-advisor gate: ❌ FAIL"), std::string::npos);
  EXPECT_NE(m.find("MatMulV3"), std::string::npos);
  EXPECT_NE(slurp(path("gate.txt")).find("gate: FAIL"), std::string::npos);
}

TEST_F(GateCli, MoreFreeTimeFails) {
  json g;
  EXPECT_EQ(gate("free", kAllBudgets, &g), 1);
  EXPECT_EQ(check(g, "free_ratio")["status"], "fail");
  EXPECT_EQ(check(g, "step_time")["status"], "fail");
  EXPECT_EQ(check(g, "op_type:MatMulV3")["status"], "pass");
  EXPECT_EQ(g["compare"]["why"][0]["subject"], "free");
}

TEST_F(GateCli, NewAiCpuOperatorFails) {
  json g;
  EXPECT_EQ(gate("aicpu", kAllBudgets, &g), 1);
  EXPECT_EQ(check(g, "ai_cpu_calls")["status"], "fail");
  EXPECT_EQ(check(g, "step_time")["status"], "pass");  // +2.8 %: under 5 %
  // A budget on the new type itself: it did not exist in the baseline.
  EXPECT_EQ(gate("aicpu", "--max-regression op_type:Unique=0.1ms", &g), 1);
  json c = check(g, "op_type:Unique");
  EXPECT_EQ(c["status"], "fail");
  EXPECT_NE(c["message"].get<std::string>().find("new operator type"), std::string::npos);
  // A tighter step-time budget catches it too, beyond the noise.
  EXPECT_EQ(gate("aicpu", "--max-regression step_time=2%", &g), 1);
  EXPECT_TRUE(check(g, "step_time")["noise"]["significant"].get<bool>());
  bool unique = false;
  for (const auto& w : g["compare"]["why"]) unique |= w["subject"] == "Unique";
  EXPECT_TRUE(unique);
}

TEST_F(GateCli, ConfigFileAndFlagsOverride) {
  std::string cfg = dir_->write("gate.yaml", "max_regression:\n  step_time: 0.1%\n  op_type:MatMulV3: 50%\n");
  json g;
  // The config's 0.1 % fails the MatMul run; the flag's 50 % wins over it.
  EXPECT_EQ(gate("matmul", "--config " + cfg + " --max-regression step_time=50%", &g), 0);
  EXPECT_EQ(check(g, "step_time")["budget"], "50%");
  EXPECT_EQ(check(g, "step_time")["budget_source"], "--max-regression");
  EXPECT_EQ(check(g, "op_type:MatMulV3")["budget_source"], cfg);
  EXPECT_EQ(gate("matmul", "--config " + cfg, &g), 1);
}

TEST_F(GateCli, FindingsGate) {
  // The sample's host-bound finding saves about 10 % of a step on both sides; its CPU-binding
  // finding, replayed (cpu_binding: 1.900 ms per step, 20.8 % of a step), the most.
  std::string bin = NPU_ADVISOR_BIN, s = npu::test::sample_run();
  EXPECT_EQ(run(bin + " gate -q --baseline " + s + " " + s + " --fail-on-finding-saving 5% > /dev/null"), 1);
  EXPECT_EQ(run(bin + " gate -q --baseline " + s + " " + s + " --fail-on-finding-saving 20% > /dev/null"), 1);
  EXPECT_EQ(run(bin + " gate -q --baseline " + s + " " + s + " --fail-on-finding-saving 25% > /dev/null"), 0);
  EXPECT_EQ(
      run(bin + " gate -q --baseline " + s + " " + s + " --fail-on-finding-saving 5% --new-findings-only > /dev/null"),
      0);
}

TEST_F(GateCli, BadInputIsExitTwo) {
  std::string bin = NPU_ADVISOR_BIN, base = path("base");
  EXPECT_EQ(run(bin + " gate -q --baseline " + base + " /nonexistent/run > /dev/null 2>&1"), 2);
  EXPECT_EQ(run(bin + " gate -q --baseline " + base + " " + base + " --max-regression step_time=5 > /dev/null 2>&1"),
            2);
  EXPECT_EQ(run(bin + " gate -q --baseline " + base + " " + base + " --max-regression nope=5% > /dev/null 2>&1"), 2);
  std::string bad = dir_->write("bad.yaml", "max_regression: {step_time: [\n");
  EXPECT_EQ(run(bin + " gate -q --baseline " + base + " " + base + " --config " + bad + " > /dev/null 2>&1"), 2);
  EXPECT_EQ(run(bin + " gate -q " + base + " > /dev/null 2>&1"), 2);  // no --baseline
}

TEST_F(GateCli, FactsFileBaseline) {
  std::string bin = NPU_ADVISOR_BIN, facts = path("base.facts.json");
  ASSERT_EQ(run(bin + " facts -q " + path("base") + " -o " + facts), 0);
  json g;
  std::string j = path("facts-gate.json");
  EXPECT_EQ(run(bin + " gate -q --baseline " + facts + " " + path("matmul") + " --json " + j + " > /dev/null"), 1);
  g = npu::read_json_file(j);
  EXPECT_EQ(g["compare"]["base"]["kind"], "facts file");
  EXPECT_EQ(run(bin + " gate -q --baseline " + facts + " " + path("base") + " > /dev/null"), 0);
}

TEST_F(GateCli, FewStepsSayTheTestWasImpossible) {
  std::string two = path("two"), two_slow = path("two-slow");
  std::string gen = "python3 " + npu::test::source_dir() + "/tools/gen_sample.py ";
  ASSERT_EQ(run(gen + two + " --steps 2 > /dev/null"), 0);
  ASSERT_EQ(run(gen + two_slow + " --steps 2 --slow-op MatMulV3=1.3 > /dev/null"), 0);
  std::string j = path("two.json");
  EXPECT_EQ(run(std::string(NPU_ADVISOR_BIN) + " gate -q --baseline " + two + " " + two_slow + " --json " + j +
                " > /dev/null"),
            1);
  json g = npu::read_json_file(j);
  json c = check(g, "step_time");
  EXPECT_EQ(c["status"], "fail");
  EXPECT_FALSE(c["noise"]["possible"].get<bool>());
  EXPECT_NE(c["method"].get<std::string>().find("plain threshold"), std::string::npos);
  EXPECT_NE(c["message"].get<std::string>().find("too few steps"), std::string::npos);
}

}  // namespace
