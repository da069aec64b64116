// Hostile rules (issue 20): a user rule must never crash the advisor, dodge its budgets,
// flood the output, or lose the other rules' findings. Each test is one reproducer from the
// hostile corpus, scaled down (limits lowered) so it runs in milliseconds.
#include <algorithm>
#include <chrono>

#include <gtest/gtest.h>

#include "rules/lua_convert.h"
#include "rules/lua_limits.h"
#include "rules/rule_engine.h"

using npu::Facts;
using npu::RuleEngine;
using npu::RuleOutcome;

namespace {

Facts tiny_facts() {
  Facts f;
  f.doc = {{"run", {{"framework", "torch_npu"}}}, {"overall", {{"steps", 2}, {"step_time", {{"median_ns", 1000000}}}}}};
  return f;
}

const char* kGood =
    "rule { id = 'good', title = 'G' } function check(f, p, emit) emit{observed = 'ok', saving_ns = 5} end";

// Runs the hostile rule `body` (its check function's body) next to a well-behaved rule; the
// well-behaved rule's finding must survive whatever the hostile one does.
RuleOutcome run_hostile(const std::string& body, npu::SandboxLimits limits = {}, const std::string& decl = "") {
  RuleEngine e;
  std::string d = decl.empty() ? "rule { id = 'evil', title = 'E' }" : decl;
  e.add_rule_source({"evil.lua", d + "\nfunction check(facts, params, emit)\n" + body + "\nend"}, false);
  e.add_rule_source({"good.lua", kGood}, false);
  npu::RuleRunOptions opt;
  opt.limits = limits;
  auto out = e.run(tiny_facts(), opt);
  EXPECT_EQ(out.size(), 2u + e.verdicts().size());
  EXPECT_EQ(out.at(1).status, RuleOutcome::Status::Fired) << out.at(1).reason;
  EXPECT_EQ(out.at(1).findings.size(), 1u);
  return out.at(0);
}

void expect_failed(const RuleOutcome& o, const std::string& why) {
  EXPECT_EQ(o.status, RuleOutcome::Status::Failed) << npu::to_string(o.status);
  EXPECT_NE(o.reason.find(why), std::string::npos) << o.reason;
}

npu::SandboxLimits small_limits() {
  npu::SandboxLimits l;
  l.instructions = 2'000'000;
  l.wall_ms = 2'000;
  return l;
}

}  // namespace

// ---- class 1: the emit / declaration converter ----

TEST(HostileRule, DeeplyNestedEmitIsRefusedNotACrash) {
  // 16+ levels used to overrun the Lua stack (free(): invalid pointer), 24 a SIGSEGV.
  for (int depth : {16, 24, 40, 200}) {
    auto o = run_hostile("local t = {} local c = t for i = 1, " + std::to_string(depth) +
                         " do c.x = {} c = c.x end emit{observed = 'deep', data = t}");
    if (depth <= npu::kMaxConvertDepth - 1) {
      EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << depth << ": " << o.reason;
    } else {
      expect_failed(o, "nested deeper than 32 levels");
    }
  }
}

TEST(HostileRule, SelfReferencingAndExplodingTablesAreRefused) {
  expect_failed(run_hostile("local t = {} t.self = t emit{observed = 'x', data = t}"), "contains itself");
  expect_failed(run_hostile("local t = {1} t[2] = t emit{observed = 'x', evidence = t}"), "contains itself");
  // Shared, not cyclic: doubles at each of 30 levels (2^30 leaves) -> the output budget.
  expect_failed(run_hostile("local t = {} for i = 1, 30 do t = {a = t, b = t} end emit{observed = 'x', data = t}"),
                "output budget exceeded");
  // In the declaration, converted outside any Lua pcall.
  RuleEngine e;
  e.add_rule_source({"d.lua", "local t = {} t.t = t rule { id = 'd', title = 'D', params = t } function check() end"},
                    false);
  auto out = e.run(tiny_facts());
  expect_failed(out.at(0), "contains itself");
}

// ---- class 2: budgets that cannot be caught or dodged ----

TEST(HostileRule, InstructionBudgetCannotBeCaught) {
  auto t0 = std::chrono::steady_clock::now();
  expect_failed(run_hostile("while true do pcall(function() while true do end end) end", small_limits()),
                "instruction budget exceeded");
  expect_failed(run_hostile("while true do xpcall(function() while true do end end, function(e) return e end) end",
                            small_limits()),
                "instruction budget exceeded");
  // A handler that loops itself.
  expect_failed(
      run_hostile("xpcall(function() while true do end end, function() while true do end end)", small_limits()),
      "budget exceeded");
  // Nested pcalls that each catch.
  expect_failed(run_hostile("local function f() while true do pcall(f) end end f()", small_limits()), "exceeded");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

TEST(HostileRule, MemoryBudgetCannotBeCaught) {
  npu::SandboxLimits l = small_limits();
  l.memory_bytes = size_t{4} << 20;
  l.instructions = 200'000'000;
  expect_failed(
      run_hostile("local keep = {} while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end) "
                  "keep[#keep + 1] = 1 end",
                  l),
      "memory budget exceeded");
}

TEST(HostileRule, WallClockBudget) {
  npu::SandboxLimits l;
  l.wall_ms = 300;  // the instruction budget would allow far more
  l.instructions = 1'000'000'000'000;
  auto t0 = std::chrono::steady_clock::now();
  expect_failed(run_hostile("while true do end", l), "time budget exceeded (300 ms)");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(HostileRule, PatternsArePricedBeforeTheyRun) {
  auto t0 = std::chrono::steady_clock::now();
  expect_failed(run_hostile("string.find(string.rep('a', 400), '(.-)(.-)(.-)(.-)b')"),
                "too costly for a 400-byte subject");
  expect_failed(run_hostile("local s = string.rep('a', 400) s:match('(.*)(.*)(.*)(.*)b')"), "string.match");
  expect_failed(run_hostile("for x in string.gmatch(string.rep('a', 5000), 'a*a*b') do end"), "string.gmatch");
  expect_failed(run_hostile("string.gsub(string.rep('a', 5000), 'a-a-b', '')"), "string.gsub");
  // A refusal is an ordinary error: a rule may catch it and go on.
  auto o = run_hostile(
      "local ok = pcall(string.find, string.rep('a', 400), '(.-)(.-)(.-)(.-)b') "
      "emit{observed = tostring(ok)}");
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired);
  EXPECT_EQ(o.findings.at(0)["observed"], "false");
  // What rules really do still runs: plain finds, one-item patterns over kernel names.
  o = run_hostile(
      "local n = string.rep('MatMul_', 100) "
      "assert(n:find('MatMul', 1, true) == 1) assert(n:match('^([%w]+)_') == 'MatMul') "
      "assert(select(2, n:gsub('_', '')) == 100) local c = 0 for w in n:gmatch('[^_]+') do c = c + 1 end "
      "assert(c == 100) assert(n:find('Conv') == nil) emit{observed = 'ok'}");
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(HostileRule, PatternWorstCase) {
  // Known answers: (n + 1) starts x (n + 1) per backtracking item x items (at least 1).
  EXPECT_DOUBLE_EQ(npu::pattern_worst_case("abc", 9, true), 10 * 3);
  EXPECT_DOUBLE_EQ(npu::pattern_worst_case("^abc", 9, true), 3);
  EXPECT_DOUBLE_EQ(npu::pattern_worst_case("^a*b", 9, true), 10 * 2);
  EXPECT_DOUBLE_EQ(npu::pattern_worst_case("a-b?", 9, true), 10 * 10 * 2 * 2);
  EXPECT_DOUBLE_EQ(npu::pattern_worst_case("^[%]a-]+$", 9, true), 10);  // one set item, '$' anchors
  EXPECT_DOUBLE_EQ(npu::pattern_worst_case("^%bxy(%d)%1", 9, true), 10 * 10 * 3);
  EXPECT_DOUBLE_EQ(npu::pattern_worst_case("^abc", 9, false), 10 * 4);  // gmatch: '^' is a character
  // A NUL in the pattern is an ordinary character (it once made the pricing loop forever).
  EXPECT_DOUBLE_EQ(npu::pattern_worst_case(std::string_view("a\0\0b", 4), 9, true), 10 * 4);
  EXPECT_DOUBLE_EQ(npu::pattern_worst_case("%", 9, true), 10);
}

TEST(HostileRule, LongCLoopsAreBounded) {
  expect_failed(run_hostile("string.rep('x', 1e9)"), "memory budget exceeded");
  auto o = run_hostile("local s = string.rep('', 1e18) emit{observed = '[' .. s .. ']'}");  // looped 1e18 times in C
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  expect_failed(run_hostile("table.move({}, 1, 1e15, 2)"), "table.move: more than");
}

// ---- class 6: what rules emit is budgeted ----

TEST(HostileRule, FindingsPerRuleAreCapped) {
  npu::SandboxLimits l;
  l.findings = 50;
  auto o = run_hostile("for i = 1, 100000 do emit{observed = 'x' .. i} end", l);
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired);
  EXPECT_EQ(o.findings.size(), 50u);
  EXPECT_EQ(o.findings_dropped, 100000u - 50u);
  EXPECT_NE(o.reason.find("99950 more were dropped"), std::string::npos) << o.reason;
}

TEST(HostileRule, EmittedBytesAreBudgeted) {
  npu::SandboxLimits l;
  l.output_bytes = size_t{1} << 20;
  expect_failed(run_hostile("local s = string.rep('x', 60000) for i = 1, 100 do emit{observed = s} end", l),
                "output budget exceeded");
  // One string is cut at 64 KiB (at a character boundary).
  // (`why`: the observed text is cut shorter still, at an entry boundary, by the engine.)
  auto o = run_hostile("emit{observed = 'x', why = string.rep('\\u{e9}', 100000)}");
  ASSERT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  std::string s = o.findings.at(0)["why"];
  EXPECT_EQ(s.size(), npu::kMaxConvertString + 3);  // 32768 two-byte characters and "..."
  EXPECT_EQ(s.substr(s.size() - 3), "...");
}

TEST(HostileRule, PrintGoesToStderrWithinABudget) {
  npu::SandboxLimits l;
  l.print_bytes = 100;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  // 2 MB printed against a 100-byte budget: 100 MB took over the 20 s wall budget under qemu on a
  // loaded CI machine (the arm64 check), where the cut is what is tested, not the volume.
  auto o = run_hostile("for i = 1, 2000 do print(string.rep('y', 1000)) end emit{observed = 'done'}", l);
  std::string out = testing::internal::GetCapturedStdout();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  EXPECT_EQ(out, "");
  EXPECT_LT(err.size(), 400u);
  EXPECT_NE(err.find("print() output cut"), std::string::npos);
  // warn is not there at all.
  expect_failed(run_hostile("warn('@on') warn('x')"), "attempt to call a nil value");
}

// ---- class 8 / 9: one bad value fails its rule, never the report; no silent wrap ----

TEST(HostileRule, BadlyTypedFieldsFailTheRuleOnly) {
  expect_failed(run_hostile("emit{observed = 'x', saving_ns = 'big'}"),
                "'saving_ns' must be a finite number, not string");
  expect_failed(run_hostile("emit{observed = 'x', saving_ns = math.huge}"),
                "'saving_ns' must be a finite number, not inf/nan");
  expect_failed(run_hostile("emit{observed = 'x', saving_ns = 0/0}"), "'saving_ns' must be a finite number");
  expect_failed(run_hostile("emit{observed = 'x', saving_ns = 1e300}"), "'saving_ns' is out of range");
  expect_failed(run_hostile("emit{observed = 'x', title = 5}"), "'title' must be a string, not number");
  expect_failed(run_hostile("emit{observed = 'x', confidence = {}}"), "'confidence' must be a finite number");
  expect_failed(run_hostile("", {}, "rule { id = 5, title = 'T' }"), "'id' must be a string, not number");
  expect_failed(run_hostile("", {}, "rule { id = 'e', title = {} }"), "'title' must be a string");
}

TEST(HostileRule, InvalidUtf8IsRepaired) {
  auto o = run_hostile("emit{observed = 'a\\xff\\xfeb', title = '\\xc3', data = {['k\\x80'] = 'v'}}");
  ASSERT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  EXPECT_EQ(o.findings.at(0)["observed"],
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(o.findings.at(0)["title"], "\xEF\xBF\xBD");
  EXPECT_NO_THROW((void)o.findings.at(0).dump());  // would throw on invalid UTF-8
}

TEST(HostileRule, NonFiniteParameterOverridesAreRefused) {
  for (const char* v : {"nan", "-inf", "inf", "1e400"}) {
    RuleEngine e;
    e.add_rule_source({"p.lua", "rule { id = 'p', title = 'P', params = { limit = 0.5 } } function check() end"},
                      false);
    npu::RuleRunOptions opt;
    npu::parse_override(std::string("p.limit=") + v, opt.overrides);
    auto out = e.run(tiny_facts(), opt);
    expect_failed(out.at(0), "must be a finite number");
  }
}

// ---- class 13 ----

TEST(HostileRule, UserRuleCannotTakeABuiltinId) {
  RuleEngine e;
  e.add_builtin_rules();
  const std::string id = e.rules().at(0).id;
  e.add_rule_source({"impostor.lua", "rule { id = '" + id + "', title = 'X' } function check() end"}, false);
  auto metas = e.rules();
  auto out = e.run(tiny_facts());
  auto impostor = std::find_if(out.begin(), out.end(), [](const auto& o) { return o.meta.file == "impostor.lua"; });
  ASSERT_NE(impostor, out.end());
  expect_failed(*impostor, "rule id " + id + " is already taken by builtin:");
}

TEST(HostileRule, UtilIsReadOnlyThroughPairs) {
  auto o = run_hostile(
      "for k, v in pairs(util) do end local _, d = pairs(util) "
      "local ok = pcall(function() d.median = nil end) "
      "emit{observed = tostring(util.median ~= nil) .. tostring(ok)}");
  ASSERT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  EXPECT_EQ(o.findings.at(0)["observed"], "truefalse");
}

// ---- round 3: the gaps between the budgets ----

// A plain find is linear (memmem): a 4 MB subject of 'a's and a 2 MB needle of 'a's ending in
// 'b' took Lua's own plain search O(n x m), past 60 s. It answers as Lua's does.
TEST(HostileRule, PlainFindIsLinear) {
  auto t0 = std::chrono::steady_clock::now();
  auto o = run_hostile(
      "local s = string.rep('a', 4000000) local p = string.rep('a', 2000000) .. 'b' "
      "assert(s:find(p, 1, true) == nil) emit{observed = 'ok'}");
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  o = run_hostile(
      "local s = 'abcabc' "
      "assert(select('#', s:find('bc', 1, true)) == 2) "
      "local a, b = s:find('bc', 1, true) assert(a == 2 and b == 3) "
      "a, b = s:find('bc', 3, true) assert(a == 5 and b == 6) "
      "a, b = s:find('bc', -2, true) assert(a == 5 and b == 6) "
      "a, b = s:find('', 4, true) assert(a == 4 and b == 3) "
      "assert(s:find('x', 1, true) == nil) assert(s:find('a', 8, true) == nil) "
      "a = s:find('c', -100, true) assert(a == 3) a = string.find(12345, 34, 1, true) assert(a == 3) "
      "emit{observed = 'ok'}");
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
}

// All rules of a command share one time budget: three rules that each spin within their own
// budget stop together once the total is spent, and say it was the total.
TEST(HostileRule, OneTotalTimeBudgetForAllRules) {
  std::atomic<long long> spent{0};
  npu::SandboxLimits l;
  l.wall_ms = 300;
  l.instructions = 1'000'000'000'000;
  l.total_wall_ms = 500;
  l.total_spent_ms = &spent;
  RuleEngine e;
  for (const char* id : {"a", "b", "c"})
    e.add_rule_source({std::string(id) + ".lua", std::string("rule { id = '") + id +
                                                     "', title = 'T' } function check(f, p, emit) while true do end end"},
                      false);
  npu::RuleRunOptions opt;
  opt.limits = l;
  auto t0 = std::chrono::steady_clock::now();
  auto out = e.run(tiny_facts(), opt);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1500));
  ASSERT_EQ(out.size(), 3u + e.verdicts().size());
  expect_failed(out[0], "time budget exceeded (300 ms)");
  expect_failed(out[1], "the rules' total time budget of this command (500 ms) is spent");
  expect_failed(out[2], "the rules' total time budget of this command (500 ms) is spent");
}

// A declaration with a field of the wrong type is the rule's named error, never an internal
// error of the command nor a silent default; an unknown pool would escape the savings cap.
TEST(HostileRule, DeclarationTypesAreChecked) {
  struct Case {
    const char* decl;
    const char* says;
  };
  const Case cases[] = {
      {"rule { 1, 2 }", "rule{} takes named fields"},
      {"rule { id = 'evil', title = 'E', pool = 5 }", "'pool' must be a string"},
      {"rule { id = 'evil', title = 'E', pool = 'idle.nowhere' }", "pool 'idle.nowhere' is not a pool of the step split"},
      {"rule { id = 'evil', title = 'E', pool = 'bogus' }", "pool 'bogus' is not a pool"},
      {"rule { id = 'evil', title = 'E', residual = 'yes' }", "'residual' must be true or false"},
      {"rule { id = 'evil', title = 'E', platforms = 'gpu' }", "'platforms' must be a list of strings"},
      {"rule { id = 'evil', title = 'E', needs = { 1 } }", "'needs' must be a list of strings"},
      {"rule { id = 'evil', title = 'E', params = 5 }", "'params' must be a table"},
  };
  for (const Case& c : cases) expect_failed(run_hostile("emit{observed = 'x'}", {}, c.decl), c.says);
  // The pools of the split are accepted.
  auto o = run_hostile("emit{observed = 'x', saving_ns = 1}", {}, "rule { id = 'evil', title = 'E', pool = 'idle.sync' }");
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
}

// The declaration's words go into every finding: a 64 KiB title is refused, not copied 1000 times.
TEST(HostileRule, LongDeclarationWordsAreRefused) {
  expect_failed(run_hostile("emit{observed = 'x'}", {}, "rule { id = 'evil', title = string.rep('T', 65536) }"),
                "'title' is 65536 bytes long (at most 300)");
  expect_failed(run_hostile("emit{observed = 'x'}", {}, "rule { id = 'evil', title = 'E', category = string.rep('c', 100) }"),
                "'category' is 100 bytes long");
}

// Evidence fields have their types: a byte given as a word is the rule's error, not the report's.
TEST(HostileRule, EvidenceFieldsAreTyped) {
  expect_failed(run_hostile("emit{observed = 'x', evidence = {{file = 'a', byte = 'twelve', what = 'w'}}}"),
                "evidence 'byte' must be an integer, not string");
  expect_failed(run_hostile("emit{observed = 'x', evidence = {'loose'}}"), "each evidence entry must be a table");
  expect_failed(run_hostile("emit{observed = 'x', evidence = {{file = 5, line = 1}}}"), "evidence 'file' must be a string");
  auto o = run_hostile("emit{observed = 'x', evidence = {{file = 'a', byte = 12, what = 'w'}, {fact = 'f', value = 'v'}}}");
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
}

// pairs({}) hands out the view-aware next: called on the facts it iterates their keys, never the
// view's hidden fields (C++ pointers).
TEST(HostileRule, NextFromPairsSeesOnlyFacts) {
  auto o = run_hostile("local fn = pairs({}) local k, v = fn(facts) emit{observed = tostring(k)}");
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
  EXPECT_EQ(o.findings.at(0)["observed"], "overall");
  o = run_hostile("local n = 0 for k, v in pairs({a = 1, b = 2}) do n = n + v end emit{observed = tostring(n)}");
  EXPECT_EQ(o.findings.at(0)["observed"], "3");
}

// Property: the linear plain find answers as Lua's own find does. Over random subjects and
// needles of 'a'/'b' (no pattern specials, so a pattern find is the reference) and random
// starting positions, negative and past the end included.
TEST(HostileRule, PlainFindAgreesWithLuasFind) {
  auto o = run_hostile(R"(
    local seed = 12345
    local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n end
    local function word(n) local t = {} for i = 1, n do t[i] = rnd(2) == 0 and 'a' or 'b' end return table.concat(t) end
    for case = 1, 3000 do
      local s, p = word(rnd(12)), word(rnd(4))
      local init = rnd(#s + 6) - #s - 3
      local a1, b1 = s:find(p, init, true)
      local a2, b2 = s:find(p, init)
      if a1 ~= a2 or b1 ~= b2 then
        error(string.format('case %d: find(%q, %q, %d) plain %s,%s pattern %s,%s', case, s, p, init,
          tostring(a1), tostring(b1), tostring(a2), tostring(b2)))
      end
    end
    emit{observed = 'ok'})");
  EXPECT_EQ(o.status, RuleOutcome::Status::Fired) << o.reason;
}

// An error message is kept short: a 30 MB error string does not reach the report.
TEST(HostileRule, ErrorMessagesAreKeptShort) {
  auto o = run_hostile("error(string.rep('x', 30000000))");
  EXPECT_EQ(o.status, RuleOutcome::Status::Failed);
  EXPECT_LT(o.reason.size(), 5000u);
  EXPECT_NE(o.reason.find("bytes)"), std::string::npos) << o.reason.substr(0, 100);
}
