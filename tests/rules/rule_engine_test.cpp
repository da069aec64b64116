#include "rules/rule_engine.h"

#include <gtest/gtest.h>

#include "rules/attribution.h"

using npu::Facts;
using npu::RuleEngine;
using npu::RuleOutcome;

namespace {

Facts tiny_facts() {
  Facts f;
  f.doc = {{"run", {{"framework", "torch_npu"}}},
           {"overall", {{"free_ratio", 0.3}, {"steps", 2}, {"step_time", {{"median_ns", 1000000}}}}},
           {"unavailable", {{{"fact", "dispatch"}, {"why", "no HostToDevice flows"}}}}};
  return f;
}

RuleOutcome run_one(const std::string& code, const Facts& facts = tiny_facts(), npu::RuleRunOptions opt = {}) {
  RuleEngine e;
  e.add_rule_source({"user_rule.lua", code}, false);
  auto out = e.run(facts, opt);
  EXPECT_EQ(out.size(), 1u + e.verdicts().size());  // the rule's, then the verdicts'
  return out.at(0);
}

const char* kHeader = R"(rule { id = "t.rule", title = "T", needs = { "overall" }, params = { limit = 0.2 } }
)";

}  // namespace

TEST(RuleEngine, EmitsFindingWithSavingAndRatio) {
  auto o = run_one(std::string(kHeader) + R"(
function check(facts, p, emit)
  if facts.overall.free_ratio > p.limit then
    emit { observed = "free " .. facts.overall.free_ratio, saving_ns = 250000, confidence = 0.8,
           commands = { "export TASK_QUEUE_ENABLE=2" } }
  end
end)");
  ASSERT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0]["saving_ns"], 250000);
  EXPECT_DOUBLE_EQ(o.findings[0]["saving_ratio"].get<double>(), 0.25);
  EXPECT_EQ(o.findings[0]["score_ns"], 200000);
  EXPECT_EQ(o.findings[0]["commands"][0], "export TASK_QUEUE_ENABLE=2");
}

// A finding may name its own savings pool and be a residual (cluster.rank_causes passes on the
// pool of the rank rule it reports); a pool that is not a non-empty string fails the rule.
TEST(RuleEngine, AFindingNamesItsPoolAndResidual) {
  auto o = run_one(std::string(kHeader) + R"(
function check(facts, p, emit)
  emit { observed = "a", saving_ns = 1000, pool = "idle.compile", residual = true }
  emit { observed = "b", saving_ns = 1000 }
end)");
  ASSERT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0]["pool"], "idle.compile");
  EXPECT_EQ(o.findings[0]["residual"], true);
  EXPECT_EQ(o.findings[1]["pool"], "idle");  // the rule's own (its category's)
  EXPECT_FALSE(o.findings[1].contains("residual"));
  auto bad = run_one(std::string(kHeader) + "function check(f, p, emit) emit{observed='x', pool=5} end");
  EXPECT_EQ(bad.status, RuleOutcome::Status::Failed);
  EXPECT_NE(bad.reason.find("'pool' must be a non-empty string"), std::string::npos) << bad.reason;
}

TEST(RuleEngine, ParameterOverrideAndBadOverride) {
  std::string code = std::string(kHeader) +
                     "function check(f, p, emit) if f.overall.free_ratio > p.limit then emit{observed='x'} end end";
  npu::RuleRunOptions opt;
  opt.overrides["t.rule.limit"] = "0.5";
  EXPECT_EQ(run_one(code, tiny_facts(), opt).status, RuleOutcome::Status::Quiet);
  opt.overrides["t.rule.limit"] = "abc";
  EXPECT_EQ(run_one(code, tiny_facts(), opt).status, RuleOutcome::Status::Failed);
  opt.overrides.clear();
  opt.overrides["t.rule.nope"] = "1";
  auto o = run_one(code, tiny_facts(), opt);
  EXPECT_EQ(o.status, RuleOutcome::Status::Failed);
  EXPECT_NE(o.reason.find("t.rule.nope: t.rule has no parameter nope"), std::string::npos) << o.reason;
}

TEST(RuleEngine, MissingFactIsSkippedWithReason) {
  auto o = run_one(R"(rule { id = "d", title = "D", needs = { "dispatch.steps" } }
function check(f, p, emit) emit { observed = "x" } end)");
  EXPECT_EQ(o.status, RuleOutcome::Status::Skipped);
  EXPECT_EQ(o.reason, "missing dispatch.steps (no HostToDevice flows)");
}

TEST(RuleEngine, FrameworkMismatchIsNotApplicable) {
  const std::string code = R"(rule { id = "t", title = "T", frameworks = { "torch_npu", "pytorch" } }
function check(f, p, emit) emit { observed = "x" } end)";
  Facts ms = tiny_facts();
  ms.doc["run"]["framework"] = "mindspore";
  auto o = run_one(code, ms);
  EXPECT_EQ(o.status, RuleOutcome::Status::NotApplicable);
  EXPECT_EQ(o.reason, "not applicable to MindSpore (a torch_npu, PyTorch check)");
  EXPECT_EQ(run_one(code).status, RuleOutcome::Status::Fired);  // torch_npu
  Facts unknown = tiny_facts();
  unknown.doc["run"]["framework"] = "";  // msprof: the framework is not known, so the rule runs
  EXPECT_EQ(run_one(code, unknown).status, RuleOutcome::Status::Fired);
}

TEST(RuleEngine, PlatformMismatchIsNotApplicable) {
  auto o = run_one(R"(rule { id = "g", title = "G", platforms = { "gpu" } }
function check(f, p, emit) emit { observed = "x" } end)");
  EXPECT_EQ(o.status, RuleOutcome::Status::NotApplicable);
}

TEST(RuleEngine, SandboxHasNoOsIoLoad) {
  for (const char* call : {"os.execute('touch /tmp/npu-advisor-pwned')", "io.open('/etc/passwd')", "load('return 1')()",
                           "require('os')", "dofile('/etc/passwd')", "debug.getinfo(1)", "string.dump(check)"}) {
    auto o = run_one(std::string(kHeader) + "function check(f, p, emit) " + call + " end");
    EXPECT_EQ(o.status, RuleOutcome::Status::Failed) << call;
    EXPECT_NE(o.reason.find("user_rule.lua:2:"), std::string::npos) << call << " -> " << o.reason;
  }
}

TEST(RuleEngine, FactsAreReadOnly) {
  auto o = run_one(std::string(kHeader) + "function check(f, p, emit) f.overall.free_ratio = 0 end");
  EXPECT_EQ(o.status, RuleOutcome::Status::Failed);
  EXPECT_NE(o.reason.find("read-only"), std::string::npos) << o.reason;
}

TEST(RuleEngine, EndlessLoopIsStopped) {
  npu::RuleRunOptions opt;
  opt.limits.instructions = 5'000'000;
  auto o = run_one(std::string(kHeader) + "function check(f, p, emit) while true do end end", tiny_facts(), opt);
  EXPECT_EQ(o.status, RuleOutcome::Status::Failed);
  EXPECT_NE(o.reason.find("instruction budget exceeded"), std::string::npos) << o.reason;
}

TEST(RuleEngine, MemoryBombIsStopped) {
  npu::RuleRunOptions opt;
  opt.limits.memory_bytes = 8 << 20;
  auto o =
      run_one(std::string(kHeader) +
                  "function check(f, p, emit) local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end end",
              tiny_facts(), opt);
  EXPECT_EQ(o.status, RuleOutcome::Status::Failed);
  EXPECT_NE(o.reason.find("memory"), std::string::npos) << o.reason;
}

TEST(RuleEngine, OneBadRuleDoesNotStopTheOthers) {
  RuleEngine e;
  e.add_rule_source({"bad.lua", "rule { id = 'bad', title = 'B' } function check() error('boom') end"}, false);
  e.add_rule_source({"syntax.lua", "rule { id = 'syntax' "}, false);
  e.add_rule_source(
      {"good.lua", "rule { id = 'good', title = 'G' } function check(f, p, emit) emit{observed='ok'} end"}, false);
  auto out = e.run(tiny_facts());
  ASSERT_EQ(out.size(), 3u + e.verdicts().size());
  EXPECT_EQ(out[0].status, RuleOutcome::Status::Failed);
  EXPECT_NE(out[0].reason.find("bad.lua:1: boom"), std::string::npos) << out[0].reason;
  EXPECT_EQ(out[1].status, RuleOutcome::Status::Failed);
  EXPECT_EQ(out[2].status, RuleOutcome::Status::Fired);
}

TEST(RuleEngine, RankingIsBySavingTimesConfidence) {
  RuleEngine e;
  e.add_rule_source(
      {"a.lua",
       "rule{id='a',title='A'} function check(f,p,emit) emit{observed='a', saving_ns=1000, confidence=0.9} end"},
      false);
  e.add_rule_source(
      {"b.lua",
       "rule{id='b',title='B'} function check(f,p,emit) emit{observed='b', saving_ns=3000, confidence=0.5} end"},
      false);
  e.add_rule_source(
      {"c.lua",
       "rule{id='c',title='C'} function check(f,p,emit) emit{observed='c', saving_ns=2000, confidence=1.0} end"},
      false);
  auto ranked = npu::ranked_findings(e.run(tiny_facts()));
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0]["rule"], "c");
  EXPECT_EQ(ranked[1]["rule"], "b");
  EXPECT_EQ(ranked[2]["rule"], "a");
  EXPECT_EQ(ranked[0]["rank"], 1);
}

// Built-ins compiled into the binary are the files in rules/lua.
TEST(RuleEngine, BuiltinsAreEmbedded) {
  RuleEngine e;
  e.add_builtin_rules();
  ASSERT_FALSE(e.rules().empty());
  for (const auto& m : e.rules()) {
    EXPECT_FALSE(m.id.empty());
    EXPECT_FALSE(m.doc.empty()) << m.id << " has no doc";
    EXPECT_TRUE(m.builtin);
  }
}

// A symptom never outranks a cause: a residual finding (idle time no cause explains) ranks below
// every cause however large its saving (rules/attribution.h).
TEST(RuleEngine, ASymptomRanksBelowEveryCause) {
  nlohmann::json facts = {{"overall", {{"steps", 1}, {"device_time_ns", 100'000'000}, {"free_ns", 60'000'000},
                                       {"computing_ns", 10'000'000}, {"comm_not_overlapped_ns", 30'000'000}}}};
  nlohmann::json findings = nlohmann::json::array(
      {{{"rule", "schedule.free_time"}, {"pool", "idle"}, {"residual", true}, {"saving_ns", 50'000'000},
        {"confidence", 0.5}, {"score_ns", 25'000'000}},
       {{"rule", "communication.not_overlapped"}, {"pool", "communication"}, {"saving_ns", 20'000'000},
        {"confidence", 0.4}, {"score_ns", 8'000'000}}});
  npu::attribute_savings(findings, facts);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0]["rule"], "communication.not_overlapped");
  EXPECT_EQ(findings[1]["rule"], "schedule.free_time");
  EXPECT_EQ(findings[1]["rank"], 2);
}

// A pool the run's split does not have (copies on an Ascend run) draws on idle, and the savings
// together are at most the step, whatever a rule estimates (issue 47: a user rule's pool escaped
// the cap, saving 1000 ms per step in a 14 ms step).
TEST(RuleEngine, NoSavingEscapesTheStep) {
  nlohmann::json facts = {{"overall",
                           {{"steps", 1},
                            {"device_time_ns", 14'000'000},
                            {"free_ns", 4'000'000},
                            {"computing_ns", 10'000'000},
                            {"comm_not_overlapped_ns", 0}}}};
  nlohmann::json findings = nlohmann::json::array({{{"rule", "user.copies"},
                                                    {"pool", "copies"},
                                                    {"saving_ns", 1'000'000'000},
                                                    {"confidence", 1.0},
                                                    {"score_ns", 1'000'000'000}},
                                                   {{"rule", "user.compute"},
                                                    {"pool", "compute"},
                                                    {"saving_ns", 1'000'000'000},
                                                    {"confidence", 0.9},
                                                    {"score_ns", 900'000'000}}});
  npu::attribute_savings(findings, facts);
  ASSERT_EQ(findings.size(), 2u);
  double total = 0;
  for (const auto& f : findings) {
    total += f["saving_ns"].get<double>();
    if (f["rule"] == "user.copies") {
      EXPECT_EQ(f["saving_ns"], 4'000'000);  // the idle time
      EXPECT_NE(f["saving_capped"].get<std::string>().find("this run's split has no copies part"), std::string::npos);
    } else {
      EXPECT_EQ(f["saving_ns"], 10'000'000);
    }
  }
  EXPECT_LE(total, 14'000'000);
}

// A finding's own pool must be one of the split, as a declared one must.
TEST(RuleEngine, AFindingsPoolMustBeOneOfTheSplit) {
  auto bad = run_one(std::string(kHeader) + "function check(f, p, emit) emit{observed='x', pool='bogus'} end");
  EXPECT_TRUE(bad.findings.empty());
  EXPECT_NE(bad.reason.find("emit{}: pool 'bogus' is not a pool of the step split"), std::string::npos) << bad.reason;
  EXPECT_TRUE(npu::is_split_pool("idle.compile"));
  EXPECT_FALSE(npu::is_split_pool("idle.nowhere"));
  EXPECT_FALSE(npu::is_split_pool(""));
}
