// Each threshold has one home: a declared parameter of a rule or a verdict. The facts read theirs
// through FactsOptions (pipeline/facts_options.h), the rules and verdicts theirs as p.NAME; a
// parameter nobody reads is dead and fails here.
#include "pipeline/facts_options.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "rules/builtin_rules.h"
#include "rules/rule_engine.h"

using npu::FactsOptions;
using npu::RuleEngine;
using npu::RuleMeta;
using npu::pipeline::facts_options;
using npu::pipeline::facts_parameters;
using npu::pipeline::RuleOptions;

namespace {

// The code of a built-in rule or verdict file after its declaration (`rule { ... }` or
// `verdict { ... }`, which ends at the first line "}"), without comments.
std::string code_after_declaration(const std::string& file) {
  for (const auto& r : npu::builtin_rules()) {
    if ("builtin:" + std::string(r.path) != file) continue;
    std::string code(r.code);
    size_t end = code.find("\n}\n");
    code = end == std::string::npos ? "" : code.substr(end + 3);
    return std::regex_replace(code, std::regex("--[^\n]*"), "");
  }
  return "";
}

std::vector<RuleMeta> builtin_metas() {
  RuleEngine engine;
  engine.add_builtin_rules();
  std::vector<RuleMeta> all = engine.rules();
  for (const RuleMeta& v : engine.verdicts()) all.push_back(v);
  return all;
}

}  // namespace

// Every declared parameter of a built-in rule or verdict is read: by its own code (p.NAME) or by
// the facts (facts_parameters()). A parameter only declared and documented moves nothing.
TEST(ThresholdHome, NoDeclaredParameterIsDead) {
  std::set<std::string> read_by_facts;
  for (const auto& fp : facts_parameters()) read_by_facts.insert(std::string(fp.owner) + "." + fp.param);
  size_t checked = 0;
  for (const RuleMeta& m : builtin_metas()) {
    const std::string code = code_after_declaration(m.file);
    ASSERT_FALSE(code.empty()) << m.file;
    for (const auto& spec : m.param_specs) {
      ++checked;
      const bool by_code = std::regex_search(code, std::regex("\\bp\\." + spec.name + "\\b"));
      EXPECT_TRUE(by_code || read_by_facts.count(m.id + "." + spec.name))
          << m.id << "." << spec.name << " is declared but read by no rule, verdict or fact (" << m.file << ")";
    }
  }
  EXPECT_GT(checked, 100u);
}

// The check itself: a parameter only declared is found.
TEST(ThresholdHome, TheDeadParameterCheckFindsOne) {
  EXPECT_FALSE(std::regex_search(std::string("local x = p.slow_nsx + facts.slow_ns"), std::regex("\\bp\\.slow_ns\\b")));
  EXPECT_TRUE(std::regex_search(std::string("if d.max >= p.slow_ns then"), std::regex("\\bp\\.slow_ns\\b")));
}

// Each parameter the facts read is a declared parameter of a built-in rule or verdict, and
// FactsOptions{} (the facts of a caller without rule options) holds the declared defaults.
TEST(ThresholdHome, TheFactsReadDeclaredParametersAtTheirDefaults) {
  const std::vector<RuleMeta> metas = builtin_metas();
  for (const auto& fp : facts_parameters()) {
    bool found = false;
    for (const RuleMeta& m : metas)
      if (m.id == fp.owner && m.params.contains(fp.param)) found = true;
    EXPECT_TRUE(found) << fp.owner << "." << fp.param << " is not declared";
  }
  const FactsOptions declared = facts_options(RuleOptions{});
  const FactsOptions built_in;
  EXPECT_EQ(declared.vertical_lag_ns, built_in.vertical_lag_ns);
  EXPECT_EQ(declared.dataloader_slow_ns, built_in.dataloader_slow_ns);
  EXPECT_EQ(declared.gc_min_ns, built_in.gc_min_ns);
  EXPECT_EQ(declared.pmu_bound_ratio, built_in.pmu_bound_ratio);
  EXPECT_EQ(declared.roofline_target_fraction, built_in.roofline_target_fraction);
  // The declared defaults themselves (rules/lua/verdicts/step_class.lua, schedule/dataloader.lua,
  // schedule/gc.lua, compute/no_bound.lua).
  EXPECT_EQ(declared.vertical_lag_ns, 50'000);
  EXPECT_EQ(declared.dataloader_slow_ns, 10'000'000);
  EXPECT_EQ(declared.gc_min_ns, 1'000'000);
  EXPECT_EQ(declared.pmu_bound_ratio, 0.8);
  EXPECT_EQ(declared.roofline_target_fraction, 0.7);
}

// --set moves the option; a value the declaration refuses leaves the default (the rules then end
// the command with the one error).
TEST(ThresholdHome, SetMovesTheFactsOptions) {
  RuleOptions o;
  o.sets = {"dispatch.step_class.vertical_lag_ns=20000", "schedule.dataloader.slow_ns=5000000",
            "schedule.gc.min_ns=2000000", "compute.no_bound.bound_ratio=0.6"};
  FactsOptions f = facts_options(o);
  EXPECT_EQ(f.vertical_lag_ns, 20'000);
  EXPECT_EQ(f.dataloader_slow_ns, 5'000'000);
  EXPECT_EQ(f.gc_min_ns, 2'000'000);
  EXPECT_EQ(f.pmu_bound_ratio, 0.6);
  o.sets = {"compute.no_bound.bound_ratio=2"};
  EXPECT_EQ(facts_options(o).pmu_bound_ratio, 0.8);
  o.sets = {"dispatch.step_class.vertical_lag_ns=-1"};
  EXPECT_EQ(facts_options(o).vertical_lag_ns, 50'000);
}
