// The rule library (rules/lua/lib/, rules/lua_library.h): its helpers, and that no rule can
// change them, neither for itself nor for the rules after it.
#include <gtest/gtest.h>

#include "rules/lua_library.h"
#include "rules/rule_engine.h"

using npu::Facts;
using npu::RuleEngine;
using npu::RuleOutcome;

namespace {

Facts facts() {
  Facts f;
  f.doc = {{"run", {{"framework", "mindspore"}, {"env", {{"X", "1"}}}}},
           {"input", {{"path", "/data/job/rank_0"}}},
           {"overall", {{"steps", 4}, {"comm_not_overlapped_ns", 10}, {"computing_ns", 8}, {"overlapped_ns", 5}}},
           {"collectives", {{"total", {{"cause", "wait"}}}}},
           {"operators",
            {{"communication",
              {{{"name", "hcom_a"},
                {"total_ns", 2000000},
                {"evidence", {{{"file", "k.csv"}, {"line", 3}, {"what", "a"}}, {{"file", "k.csv"}, {"line", 4}}}}},
               {{"name", "hcom_b"}, {"total_ns", 1000000}, {"evidence", nlohmann::json::array()}}}}}},
           // Classes by the verdict dispatch.step_class at its defaults: host-bound, device-bound,
           // host-bound.
           {"dispatch",
            {{"has_device_timeline", true},
             {"steps",
              {{{"id", 1}, {"count", 4}, {"vertical_share", 0.9}, {"host_bound_free_ratio", 0.3},
                {"host_bound_free_ns", 3}, {"start_ns", 10}, {"end_ns", 30}},
               {{"id", 2}, {"count", 4}, {"vertical_share", 0.1}, {"host_bound_free_ratio", 0.01},
                {"host_bound_free_ns", 9}},
               {{"id", 3}, {"count", 4}, {"vertical_share", 0.6}, {"host_bound_free_ratio", 0.2},
                {"host_bound_free_ns", 5}}}}}}};
  return f;
}

// Runs `body` as the check of a rule that needs nothing; the rule emits what it computes.
std::vector<RuleOutcome> run_rules(const std::vector<std::string>& bodies) {
  RuleEngine e;
  for (size_t i = 0; i < bodies.size(); ++i) {
    std::string id = "t.r" + std::to_string(i);
    e.add_rule_source({id + ".lua", "rule { id = '" + id + "', title = 'T' }\n" + bodies[i]}, false);
  }
  return e.run(facts());
}

std::string observed(const std::string& body) {
  auto out = run_rules({body});
  EXPECT_EQ(out.at(0).status, RuleOutcome::Status::Fired) << out.at(0).reason;
  return out.at(0).findings.empty() ? "" : out.at(0).findings[0]["observed"].get<std::string>();
}

}  // namespace

TEST(RuleLibrary, EvidenceCopiesLocationsOnly) {
  EXPECT_EQ(observed(R"(local evidence = require "lib.evidence"
function check(facts, p, emit)
  local ev = evidence.add({}, facts.operators.communication[1].evidence, 1)
  evidence.add(ev, nil)
  local all = evidence.add({}, facts.operators.communication[1].evidence)
  emit { observed = #ev .. " " .. ev[1].file .. ":" .. ev[1].line .. " " .. tostring(ev[1].byte) .. " " .. #all }
end)"),
            "1 k.csv:3 nil 2");
}

TEST(RuleLibrary, StepHelpers) {
  EXPECT_EQ(observed(R"(local steplib = require "lib.steps"
function check(facts, p, emit)
  local n, idle, worst = steplib.host_bound(facts.dispatch.steps)
  emit { observed = table.concat({ steplib.count(facts), tostring(steplib.count({})), n, idle, worst.id,
    steplib.duration_ns(facts.dispatch.steps[1]), steplib.label(nil), steplib.label(7),
    steplib.cluster_count({ cluster = { steps = {} } }), steplib.cluster_count({ cluster = { step_count = 3 } }) }, "|") }
end)"),
            "4|nil|2|8|3|20|(whole trace, no ProfilerStep)|7|1|3");
}

TEST(RuleLibrary, CollectiveAndRunHelpers) {
  EXPECT_EQ(observed(R"(local collectives, run = require "lib.collectives", require "lib.run"
function check(facts, p, emit)
  local names, ev = collectives.top(facts, 1)
  emit { observed = table.concat({ tostring(collectives.mostly_waiting(facts)), collectives.hideable_ns(facts.overall),
    table.concat(names, ","), #ev, tostring(run.is_mindspore(facts)), run.env(facts).X, run.job_dir(facts),
    tostring(run.job_dir({})), run.quote("/a/b"), run.quote("it's") }, "|") }
end)"),
            "true|3|hcom_a 2.000 ms|1|true|1|/data/job|nil|/a/b|'it'\\''s'");
}

// A rule that tries to change the library fails to, and the next rule sees it unchanged.
TEST(RuleLibrary, ReadOnlyForTheRuleAndTheNext) {
  auto out = run_rules({R"(local evidence = require "lib.evidence"
function check(facts, p, emit)
  local errors = {}
  for _, f in ipairs({ function() util.median = nil end, function() evidence.add = nil end,
                       function() util.extra = 1 end, function() evidence.copy = function() return {} end end }) do
    local ok, err = pcall(f)
    errors[#errors + 1] = ok and "written" or err:match("[%w.]+ is read%-only")
  end
  emit { observed = table.concat(errors, "|") }
end)",
                        R"(local evidence = require "lib.evidence"
function check(facts, p, emit)
  local ev = evidence.add({}, { { file = "f", what = "w" } })
  emit { observed = util.median({ 3, 1, 2 }) .. " " .. ev[1].file .. " " .. tostring(util.extra) }
end)"});
  ASSERT_EQ(out.size(), 2u + 1u);  // and the verdict
  ASSERT_EQ(out[0].status, RuleOutcome::Status::Fired) << out[0].reason;
  EXPECT_EQ(out[0].findings[0]["observed"],
            "lib.util is read-only|lib.evidence is read-only|lib.util is read-only|"
            "lib.evidence is read-only");
  ASSERT_EQ(out[1].status, RuleOutcome::Status::Fired) << out[1].reason;
  EXPECT_EQ(out[1].findings[0]["observed"], "2 f nil");
}

TEST(RuleLibrary, SameModuleTableEachRequire) {
  EXPECT_EQ(observed(R"(function check(facts, p, emit)
  emit { observed = tostring(require "lib.util" == util) .. tostring(require "lib.steps" == require "lib.steps") }
end)"),
            "truetrue");
}

TEST(RuleLibrary, OnlyLibraryModulesCanBeRequired) {
  for (const char* name : {"os", "lib.nothing", "dispatch.host_bound", "lib/evidence"}) {
    auto out = run_rules({std::string("local m = require '") + name + "'\nfunction check() end"});
    ASSERT_EQ(out.at(0).status, RuleOutcome::Status::Failed) << name;
    EXPECT_NE(out[0].reason.find("only the built-in rule library"), std::string::npos) << out[0].reason;
  }
}

// The library is embedded with the rules but is no rule.
TEST(RuleLibrary, IsNotLoadedAsRules) {
  RuleEngine e;
  e.add_builtin_rules();
  for (const auto& m : e.rules()) EXPECT_EQ(m.file.find("lib/"), std::string::npos) << m.file;
  for (const auto& f : npu::rule_files(std::string(NPU_SOURCE_DIR) + "/rules/lua"))
    EXPECT_EQ(f.find("/lib/"), std::string::npos) << f;
}
