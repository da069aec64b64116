// Parameters declared once (rules/rule_params.h) and verdicts decided once (rules/verdicts.h):
// the declaration forms, the checks of --set values, and the per-step class that moves every
// rule together.
#include "rules/verdicts.h"

#include <gtest/gtest.h>

#include "rules/rule_engine.h"
#include "rules/rule_params.h"

using nlohmann::json;
using npu::Facts;
using npu::ParamSpec;
using npu::RuleEngine;
using npu::RuleOutcome;

namespace {

std::vector<ParamSpec> specs(const json& params) {
  std::vector<ParamSpec> out;
  EXPECT_EQ(npu::parse_param_specs(params, out), "");
  return out;
}

std::string parse_error(const json& params) {
  std::vector<ParamSpec> out;
  return npu::parse_param_specs(params, out);
}

// The error of setting `text` (or "" when accepted).
std::string set_error(const json& params, const std::string& name, const std::string& text) {
  json values = npu::param_defaults(specs(params));
  return npu::apply_param_overrides("t.rule", specs(params), {{"t.rule." + name, text}}, values);
}

// One step per class at the defaults of dispatch.step_class: host-bound (90% vertical, 30% idle on
// the host), device-bound, mixed (60% vertical, 5% idle), no launches, and one that is host-bound
// at 20% idle but mixed once host_bound_free_ratio asks for 30%.
Facts dispatch_facts(bool has_device = true) {
  Facts f;
  auto step = [](int id, int count, double v, double r) {
    return json{{"id", id},
                {"start_ns", id * 100},
                {"count", count},
                {"vertical_share", v},
                {"host_bound_free_ratio", r},
                {"host_bound_free_ns", static_cast<int>(r * 1000000)}};
  };
  f.doc = {{"run", {{"framework", "torch_npu"}}},
           {"dispatch",
            {{"has_device_timeline", has_device},
             {"thresholds", {{"vertical_lag_ns", 50000}}},
             {"steps",
              {step(1, 10, 0.9, 0.3), step(2, 10, 0.1, 0.01), step(3, 10, 0.6, 0.05), step(4, 0, 0, 0),
               step(5, 10, 0.8, 0.2)}},
             {"overall", step(0, 40, 0.55, 0.12)}}}};
  return f;
}

// The classes of dispatch.step_class's decision, "|"-joined, and the overall class.
std::string classes(const std::vector<RuleOutcome>& outcomes) {
  json v = npu::verdict_document(outcomes)["dispatch"]["step_class"];
  std::string out;
  for (const auto& s : v["steps"]) out += s["class"].get<std::string>() + "|";
  return out + v["overall"]["class"].get<std::string>();
}

// A user rule that reports what steps.verdict says of each step, written in the older form that
// passed its own thresholds (ignored now).
const char* kReader = R"(rule { id = "t.reader", title = "R", needs = { "dispatch.steps" },
  params = { host_bound_free_ratio = 0.9 } }
local steplib = require "lib.steps"
function check(facts, p, emit)
  local out = {}
  for _, s in ipairs(facts.dispatch.steps) do out[#out + 1] = steplib.verdict(s, p, facts) end
  local n = steplib.host_bound(facts.dispatch.steps, p, facts)
  emit { observed = table.concat(out, "|") .. " " .. n }
end)";

}  // namespace

TEST(RuleParams, DeclaredAndPlainForms) {
  auto s = specs(json::parse(R"({
    "factor": {"default": 0.5, "min": 0, "max": 1, "doc": "share recovered"},
    "max_count": {"default": 3, "type": "integer", "min": 1},
    "on": true, "name": "x", "limit": 0.25, "count": 7})"));
  ASSERT_EQ(s.size(), 6u);  // in name order
  EXPECT_EQ(s[0].name, "count");
  EXPECT_EQ(s[0].type, "integer");
  EXPECT_EQ(s[1].name, "factor");
  EXPECT_EQ(s[1].type, "number");
  EXPECT_EQ(*s[1].min, 0);
  EXPECT_EQ(*s[1].max, 1);
  EXPECT_EQ(s[1].doc, "share recovered");
  EXPECT_EQ(s[2].type, "number");  // limit = 0.25, plain
  EXPECT_FALSE(s[2].min.has_value());
  EXPECT_EQ(s[3].type, "integer");  // max_count
  EXPECT_EQ(s[4].type, "string");
  EXPECT_EQ(s[5].type, "boolean");
  EXPECT_EQ(npu::param_defaults(s), json::parse(R"({"count": 7, "factor": 0.5, "limit": 0.25, "max_count": 3,
                                                   "name": "x", "on": true})"));
  // An integer literal declared a number is a number (3 -> 3.0).
  EXPECT_TRUE(specs(json::parse(R"({"x": {"default": 3, "type": "number"}})"))[0].default_value.is_number_float());
}

TEST(RuleParams, ADeclarationThatContradictsItselfIsAnError) {
  EXPECT_EQ(parse_error(json::parse(R"({"f": {"default": 2, "min": 0, "max": 1}})")),
            "parameter 'f': the default is out of its own range");
  EXPECT_EQ(parse_error(json::parse(R"({"n": {"default": 0.5, "type": "integer"}})")),
            "parameter 'n': the default 0.5 is no integer");
  EXPECT_EQ(parse_error(json::parse(R"({"n": {"default": 1, "mni": 0}})")),
            "parameter 'n': unknown key 'mni' (default, type, min, max, doc)");
  EXPECT_EQ(parse_error(json::parse(R"({"n": {"doc": "x"}})")), "parameter 'n' has no default");
  EXPECT_EQ(parse_error(json::parse(R"({"b": {"default": true, "max": 1}})")),
            "parameter 'b': 'max' is for numbers only");
  EXPECT_EQ(parse_error(json::parse(R"({"t": {"default": 1, "type": "float"}})")),
            "parameter 't': type 'float' is none of number, integer, boolean, string");
  EXPECT_EQ(parse_error(json(5)), "'params' must be a table of name = { default = ..., doc = ... }");
}

TEST(RuleParams, SetValuesAreCheckedAgainstTheDeclaration) {
  const json p = json::parse(R"({"factor": {"default": 0.5, "min": 0, "max": 1}, "n": {"default": 3, "min": 1},
                                 "on": false, "x": 0.1})");
  EXPECT_EQ(set_error(p, "factor", "0.75"), "");
  EXPECT_EQ(set_error(p, "factor", "2"), "t.rule.factor: t.rule's parameter factor must be between 0 and 1, not 2");
  EXPECT_EQ(set_error(p, "factor", "abc"),
            "t.rule.factor: t.rule's parameter factor must be a finite number, not \"abc\"");
  EXPECT_EQ(set_error(p, "n", "2.5"), "t.rule.n: t.rule's parameter n must be an integer, not \"2.5\"");
  EXPECT_EQ(set_error(p, "n", "0"), "t.rule.n: t.rule's parameter n must be at least 1, not 0");
  EXPECT_EQ(set_error(p, "n", "12"), "");
  EXPECT_EQ(set_error(p, "on", "ture"), "t.rule.on: t.rule's parameter on must be true or false, not \"ture\"");
  EXPECT_EQ(set_error(p, "on", "yes"), "");
  EXPECT_EQ(set_error(p, "x", "nan"), "t.rule.x: t.rule's parameter x must be a finite number, not \"nan\"");
  EXPECT_EQ(set_error(p, "nope", "1"), "t.rule.nope: t.rule has no parameter nope (it has: factor, n, on, x)");
  // The values a rule receives have their declared types.
  json values = npu::param_defaults(specs(p));
  ASSERT_EQ(npu::apply_param_overrides("t.rule", specs(p), {{"t.rule.n", "12"}, {"t.rule.on", "true"}}, values), "");
  EXPECT_TRUE(values["n"].is_number_integer());
  EXPECT_EQ(values["n"], 12);
  EXPECT_EQ(values["on"], true);
}

TEST(RuleParams, EngineChecksOverridesOfRulesAndVerdicts) {
  RuleEngine e;
  e.add_builtin_rules();
  EXPECT_EQ(e.check_overrides({{"dispatch.step_class.host_bound_free_ratio", "0.2"}}), "");
  EXPECT_EQ(e.check_overrides({{"dispatch.host_bound.factor", "0.3"}}), "");
  EXPECT_EQ(e.check_overrides({{"dispatch.host_bound.factor", "2"}}),
            "dispatch.host_bound.factor: dispatch.host_bound's parameter factor must be between 0 and 1, not 2");
  EXPECT_EQ(e.check_overrides({{"dispatch.op_compile.max_count", "2.5"}}),
            "dispatch.op_compile.max_count: dispatch.op_compile's parameter max_count must be an integer, not \"2.5\"");
  EXPECT_EQ(e.check_overrides({{"dispatch.step_class.host_bound_free_ratio", "1.5"}}),
            "dispatch.step_class.host_bound_free_ratio: dispatch.step_class's parameter host_bound_free_ratio must be "
            "between 0 and 1, not 1.5");
  EXPECT_EQ(e.check_overrides({{"no.such.rule", "1"}}),
            "no.such.rule: no rule or verdict with that id (see `npu-advisor rules list`)");
  // The old per-rule copies of the verdict's thresholds are gone.
  EXPECT_NE(e.check_overrides({{"dispatch.host_bound.host_bound_free_ratio", "0.2"}}), "");
}

// Every built-in rule declares each parameter with a meaning and, for numbers, a range.
TEST(RuleParams, BuiltinRulesDeclareTheirParameters) {
  RuleEngine e;
  e.add_builtin_rules();
  for (const auto* list : {&e.rules(), &e.verdicts()})
    for (const auto& m : *list)
      for (const auto& p : m.param_specs) {
        EXPECT_FALSE(p.doc.empty()) << m.id << "." << p.name;
        if (p.type == "number" || p.type == "integer") EXPECT_TRUE(p.min || p.max) << m.id << "." << p.name;
      }
}

TEST(Verdicts, StepClassAtItsDefaults) {
  RuleEngine e;
  auto out = e.run(dispatch_facts());
  ASSERT_EQ(out.size(), e.verdicts().size());
  EXPECT_EQ(out[0].meta.id, "dispatch.step_class");
  EXPECT_EQ(out[0].status, RuleOutcome::Status::Fired) << out[0].reason;
  EXPECT_EQ(classes(out), "host-bound|device-bound|mixed|unknown|host-bound|host-bound");
  json v = npu::verdict_document(out)["dispatch"]["step_class"];
  EXPECT_EQ(v["steps"][0]["why"],
            "90% of launches started within 50.0 us of the host launch; the device sat idle waiting on the host for "
            "30.0% of its time");
  EXPECT_EQ(v["steps"][3]["why"], "no launches to judge");
  EXPECT_EQ(v["steps"][1]["id"], 2);
  EXPECT_EQ(v["steps"][1]["start_ns"], 200);
  EXPECT_EQ(v["steps_by_class"], json::parse(R"({"host-bound": 2, "device-bound": 1, "mixed": 1, "unknown": 1})"));
  // Without a device timeline the launch lags alone decide: step 3's 60% vertical is host-bound.
  auto nodev = e.run(dispatch_facts(false));
  EXPECT_EQ(classes(nodev), "host-bound|device-bound|host-bound|unknown|host-bound|host-bound");
  EXPECT_EQ(npu::verdict_document(nodev)["dispatch"]["step_class"]["steps"][0]["why"],
            "90% of launches started within 50.0 us of the host launch; no device timeline, so judged on launch lags "
            "alone");
  // Nothing to judge without dispatch facts: no decision, no entry in the rules' status list.
  Facts none;
  none.doc = {{"run", {{"framework", "torch_npu"}}}};
  auto quiet = e.run(none);
  EXPECT_EQ(quiet[0].status, RuleOutcome::Status::Quiet);
  EXPECT_EQ(npu::verdict_document(quiet), json::object());
  EXPECT_TRUE(npu::rule_status_list(quiet).empty());
}

// The verdict's parameter moves every rule that reads it: step 5 (20% host-caused idle) leaves
// host-bound when the verdict asks for 30%, in the user rule and in the verdict alike.
TEST(Verdicts, OneSetMovesTheVerdictAndEveryRule) {
  RuleEngine e;
  e.add_rule_source({"reader.lua", kReader}, false);
  auto def = e.run(dispatch_facts());
  EXPECT_EQ(def[0].findings.at(0)["observed"], "host-bound|device-bound|mixed|unknown|host-bound 2");
  npu::RuleRunOptions opt;
  opt.overrides["dispatch.step_class.host_bound_free_ratio"] = "0.3";
  auto moved = e.run(dispatch_facts(), opt);
  EXPECT_EQ(moved[0].findings.at(0)["observed"], "host-bound|device-bound|mixed|unknown|mixed 1");
  EXPECT_EQ(classes(moved), "host-bound|device-bound|mixed|unknown|mixed|mixed");
  // The rule's own parameter of the same name does not touch the verdict.
  npu::RuleRunOptions own;
  own.overrides["t.reader.host_bound_free_ratio"] = "0.01";
  EXPECT_EQ(e.run(dispatch_facts(), own)[0].findings.at(0)["observed"],
            "host-bound|device-bound|mixed|unknown|host-bound 2");
}

// The built-in dispatch rules read the verdict: the host-bound rule sees step 1 and 5 at the
// defaults, and only step 1 once the verdict asks for 30%.
TEST(Verdicts, BuiltinHostBoundRuleFollowsTheVerdict) {
  Facts f = dispatch_facts();
  f.doc["dispatch"]["task_queue"] = {
      {"task_queue_enable_env", "1"}, {"two_stage_active", true}, {"enqueue_slices", 100}};
  f.doc["dispatch"]["overall"]["host_bound_free_ns"] = 600000;
  for (auto& s : f.doc["dispatch"]["steps"]) s["device_time_ns"] = 1000000;
  f.doc["run"]["env"] = {{"TASK_QUEUE_ENABLE", "1"}};
  auto run = [&](const std::map<std::string, std::string>& overrides) {
    RuleEngine e;
    e.add_builtin_rules();
    npu::RuleRunOptions opt;
    opt.overrides = overrides;
    for (auto& o : e.run(f, opt))
      if (o.meta.id == "dispatch.host_bound") return o;
    return RuleOutcome{};
  };
  auto def = run({});
  ASSERT_EQ(def.status, RuleOutcome::Status::Fired) << def.reason;
  EXPECT_NE(def.findings[0]["observed"].get<std::string>().find("2 of 5 steps are host-bound"), std::string::npos)
      << def.findings[0]["observed"];
  auto moved = run({{"dispatch.step_class.host_bound_free_ratio", "0.3"}});
  ASSERT_EQ(moved.status, RuleOutcome::Status::Fired) << moved.reason;
  EXPECT_NE(moved.findings[0]["observed"].get<std::string>().find("1 of 5 steps are host-bound"), std::string::npos)
      << moved.findings[0]["observed"];
}
