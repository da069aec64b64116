// The gate's configuration (pipeline/gate_config.cpp): budget specs in every form, the YAML and
// "key = value" (TOML subset) config files, and errors that say where. docs/compare-gate.md.
#include "pipeline/gate_config.h"

#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "base/load_error.h"
#include "compare/gate.h"
#include "test_support.h"

namespace {

namespace cmp = npu::compare;
namespace cfgio = npu::pipeline;
using Kind = cmp::Budget::Kind;

// ------------------------------------------------------------------ budgets

TEST(GateBudget, ParsesEveryForm) {
  auto b = cfgio::parse_budget("step_time=5%", "t");
  EXPECT_EQ(b.kind, Kind::Relative);
  EXPECT_DOUBLE_EQ(b.value, 0.05);
  EXPECT_DOUBLE_EQ(cfgio::parse_budget("step_time=2ms", "t").value, 2e6);
  EXPECT_DOUBLE_EQ(cfgio::parse_budget("step_time=500us", "t").value, 5e5);
  EXPECT_DOUBLE_EQ(cfgio::parse_budget("comm_not_overlapped=0.5s", "t").value, 5e8);
  EXPECT_DOUBLE_EQ(cfgio::parse_budget("comm_not_overlapped=1000ns", "t").value, 1000);
  auto r = cfgio::parse_budget("free_ratio=0.03", "t");
  EXPECT_EQ(r.kind, Kind::Absolute);
  EXPECT_DOUBLE_EQ(r.value, 0.03);
  EXPECT_DOUBLE_EQ(cfgio::parse_budget("free_ratio=3pp", "t").value, 0.03);
  EXPECT_EQ(cfgio::parse_budget("free_ratio=10%", "t").kind, Kind::Relative);
  EXPECT_DOUBLE_EQ(cfgio::parse_budget("memory_peak=100MB", "t").value, 100);
  EXPECT_DOUBLE_EQ(cfgio::parse_budget("memory_peak=1.5GB", "t").value, 1536);
  auto op = cfgio::parse_budget(" op_type:MatMulV3 = 10% ", "t");
  EXPECT_EQ(op.metric, "op_type:MatMulV3");
  EXPECT_DOUBLE_EQ(op.value, 0.10);
  EXPECT_DOUBLE_EQ(cfgio::parse_budget("ai_cpu_calls=0", "t").value, 0);
  EXPECT_EQ(cfgio::parse_budget("step_time=off", "t").kind, Kind::Off);
}

TEST(GateBudget, RejectsWhatItCannotRead) {
  for (const char* bad : {"step_time", "step_time=5", "bogus=5%", "free_ratio=2", "step_time=-1ms", "op_type:=5%",
                          "memory_peak=100", "step_time=fast", "step_time=5ms extra"})
    EXPECT_THROW(cfgio::parse_budget(bad, "t"), std::invalid_argument) << bad;
  EXPECT_DOUBLE_EQ(cfgio::parse_fraction("10%"), 0.1);
  EXPECT_DOUBLE_EQ(cfgio::parse_fraction("0.1"), 0.1);
  EXPECT_THROW(cfgio::parse_fraction("ten"), std::invalid_argument);
}

TEST(GateConfig, ReadsYaml) {
  npu::test::TempDir d;
  std::string p = d.write("gate.yaml",
                          "# budgets\n"
                          "max_regression:\n"
                          "  step_time: 3%\n"
                          "  free_ratio: 0.02\n"
                          "  op_type:MatMulV3: 10%\n"
                          "  op_type:\n"
                          "    Cast: 0.1ms\n"
                          "  memory_peak: 100MB\n"
                          "fail_on_finding_saving: 10%\n"
                          "new_findings_only: true\n"
                          "confidence: 0.9\n"
                          "min_steps: 4\n");
  cmp::GateConfig cfg;
  cfgio::read_gate_config(p, cfg);
  EXPECT_DOUBLE_EQ(cfg.budgets.at("step_time").value, 0.03);
  EXPECT_EQ(cfg.budgets.at("step_time").source, p);
  EXPECT_DOUBLE_EQ(cfg.budgets.at("free_ratio").value, 0.02);
  EXPECT_DOUBLE_EQ(cfg.budgets.at("op_type:MatMulV3").value, 0.10);
  EXPECT_DOUBLE_EQ(cfg.budgets.at("op_type:Cast").value, 1e5);
  EXPECT_DOUBLE_EQ(cfg.budgets.at("memory_peak").value, 100);
  EXPECT_DOUBLE_EQ(*cfg.fail_on_finding_saving, 0.10);
  EXPECT_TRUE(cfg.new_findings_only);
  EXPECT_DOUBLE_EQ(cfg.compare.confidence, 0.9);
  EXPECT_EQ(cfg.compare.min_steps_for_test, 4u);
}

TEST(GateConfig, ReadsKeyValueAndTomlSubset) {
  npu::test::TempDir d;
  std::string conf = d.write("gate.conf", "step_time = 2ms   # absolute\nop_type:MatMulV3=10%\nskip_warmup = false\n");
  cmp::GateConfig a;
  cfgio::read_gate_config(conf, a);
  EXPECT_DOUBLE_EQ(a.budgets.at("step_time").value, 2e6);
  EXPECT_DOUBLE_EQ(a.budgets.at("op_type:MatMulV3").value, 0.1);
  EXPECT_FALSE(a.compare.skip_warmup);
  std::string toml = d.write("gate.toml",
                             "fail_on_finding_saving = \"10%\"\n"
                             "[max_regression]\n"
                             "step_time = \"4%\"\n"
                             "\"op_type:Add\" = \"1ms\"\n"
                             "[max_regression.op_type]\n"
                             "MatMulV3 = \"5%\"\n");
  cmp::GateConfig b;
  cfgio::read_gate_config(toml, b);
  EXPECT_DOUBLE_EQ(b.budgets.at("step_time").value, 0.04);
  EXPECT_DOUBLE_EQ(b.budgets.at("op_type:Add").value, 1e6);
  EXPECT_DOUBLE_EQ(b.budgets.at("op_type:MatMulV3").value, 0.05);
  EXPECT_DOUBLE_EQ(*b.fail_on_finding_saving, 0.10);
}

TEST(GateConfig, BadFilesSayWhere) {
  npu::test::TempDir d;
  cmp::GateConfig cfg;
  try {
    cfgio::read_gate_config(d.write("a.yaml", "max_regression:\n  step_time: 5\n"), cfg);
    FAIL() << "no error";
  } catch (const npu::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("a.yaml:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("needs a unit"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cfgio::read_gate_config(d.write("b.yaml", "max_regression: [1, 2\n"), cfg), npu::LoadError);
  EXPECT_THROW(cfgio::read_gate_config(d.write("c.conf", "[nonsense]\n"), cfg), npu::LoadError);
  EXPECT_THROW(cfgio::read_gate_config(d.write("d.conf", "just words\n"), cfg), npu::LoadError);
  EXPECT_THROW(cfgio::read_gate_config((d.path() / "missing.yaml").string(), cfg), npu::LoadError);
}

}  // namespace
