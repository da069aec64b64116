// The lazy read-only facts view (LuaSandbox::push_view) and the rule helpers (`util`).
#include "rules/lua_sandbox.h"

#include <gtest/gtest.h>
#include <lua.hpp>

#include "rules/rule_engine.h"

using nlohmann::json;
using npu::LuaSandbox;

namespace {

json sample_doc() {
  return json::parse(R"({
    "run": { "framework": "torch_npu", "env": { "A": "1", "B": "" }, "rank": 3 },
    "overall": { "steps": 3, "free_ratio": 0.25, "big": 18446744073709551615, "flag": true, "gone": null },
    "steps": [ { "id": 1, "dur": 10, "evidence": [ { "file": "t.json", "byte": 42 } ] },
               { "id": 2, "dur": 30, "evidence": [] },
               { "id": 3, "dur": 20, "tags": {} } ],
    "names": [ "a", "b", "c" ],
    "nums": [ 5, 1, 3, 4 ],
    "empty": [],
    "nested": { "a": { "b": { "c": [ [ 1, 2 ], [ 3 ] ] } } }
  })");
}

// Runs `code` (a chunk that returns one value) with `facts` bound to a view of doc; returns
// the result converted with to_json, or the error text as {"error": ...}.
json eval(const json& doc, const std::string& code, npu::SandboxLimits limits = {}) {
  LuaSandbox sb(limits);
  if (!sb.run_chunk("function f(facts) " + code + " end", "t.lua")) return {{"error", sb.error()}};
  lua_getglobal(sb.L(), "f");
  sb.begin_trusted();
  sb.push_view(doc);
  sb.end_trusted();
  if (!sb.call(1, 1)) return {{"error", sb.error()}};
  json out;
  if (!sb.to_json(-1, out)) out = {{"error", sb.error()}};
  lua_pop(sb.L(), 1);
  return out;
}

std::string error_of(const json& doc, const std::string& code) {
  json r = eval(doc, code);
  return r.is_object() && r.contains("error") ? r["error"].get<std::string>() : "(no error: " + r.dump() + ")";
}

}  // namespace

TEST(FactsView, ScalarsAndNestedAccess) {
  json d = sample_doc();
  EXPECT_EQ(eval(d, "return facts.run.framework"), "torch_npu");
  EXPECT_EQ(eval(d, "return facts.run.rank"), 3);
  EXPECT_EQ(eval(d, "return math.type(facts.run.rank)"), "integer");
  EXPECT_EQ(eval(d, "return math.type(facts.overall.free_ratio)"), "float");
  EXPECT_EQ(eval(d, "return facts.overall.flag"), true);
  EXPECT_EQ(eval(d, "return facts.overall.big"), -1);  // uint64 wraps to a Lua integer, as before
  EXPECT_EQ(eval(d, "return facts.steps[2].dur"), 30);
  EXPECT_EQ(eval(d, "return facts.steps[2.0].id"), 2);  // float keys with integral values, as in tables
  EXPECT_EQ(eval(d, "return facts.steps[1].evidence[1].byte"), 42);
  EXPECT_EQ(eval(d, "return facts.nested.a.b.c[1][2] + facts.nested.a.b.c[2][1]"), 5);
  EXPECT_EQ(eval(d, "return type(facts.steps) .. ' ' .. type(facts.run)"), "table table");
}

TEST(FactsView, MissingKeysAreNil) {
  json d = sample_doc();
  EXPECT_EQ(eval(d, "return facts.nope == nil and facts.run.nope == nil"), true);
  EXPECT_EQ(eval(d, "return facts.overall.gone == nil"), true);  // JSON null reads as nil
  EXPECT_EQ(eval(d, "return facts.steps[0] == nil and facts.steps[4] == nil and facts.steps[1.5] == nil"), true);
  EXPECT_EQ(eval(d, "return facts.steps.id == nil and facts.run[1] == nil and facts[facts] == nil"), true);
  EXPECT_NE(error_of(d, "return facts.nope.deeper").find("attempt to index a nil value"), std::string::npos);
}

TEST(FactsView, LengthPairsIpairs) {
  json d = sample_doc();
  EXPECT_EQ(eval(d, "return #facts.steps"), 3);
  EXPECT_EQ(eval(d, "return #facts.empty"), 0);
  EXPECT_EQ(eval(d, "return #facts.run"), 0);  // an object has no 1..n
  EXPECT_EQ(eval(d, "local s = 0 for i, st in ipairs(facts.steps) do s = s + i * st.dur end return s"), 10 + 60 + 60);
  EXPECT_EQ(
      eval(
          d,
          "local t = {} for k, v in pairs(facts.run.env) do t[#t + 1] = k .. '=' .. v end return table.concat(t, ',')"),
      "A=1,B=");  // objects iterate in key order
  EXPECT_EQ(eval(d, "local t = {} for k in pairs(facts.overall) do t[#t + 1] = k end return table.concat(t, ',')"),
            "big,flag,free_ratio,steps");  // null values are absent
  EXPECT_EQ(eval(d, "local t = {} for i, v in pairs(facts.names) do t[#t + 1] = i .. v end return table.concat(t)"),
            "1a2b3c");
  EXPECT_EQ(eval(d, "return next(facts.empty) == nil and next(facts.steps[3].tags) == nil and next(facts.run) ~= nil"),
            true);
  EXPECT_EQ(eval(d, "local k, v = next(facts.names) return k .. v .. select(2, next(facts.names, 2))"), "1ac");
  EXPECT_EQ(eval(d, "return next({}) == nil and next({5}) == 1"), true);  // plain tables as before
  EXPECT_EQ(eval(d, "return table.concat(facts.names, '+')"), "a+b+c");
  EXPECT_EQ(eval(d, "return select('#', table.unpack(facts.names))"), 3);
  EXPECT_EQ(eval(d, "return rawlen(facts.names)"), 0);
}

TEST(FactsView, ChildViewsKeepTheirIdentity) {
  json d = sample_doc();
  EXPECT_EQ(
      eval(d, "return facts.steps == facts.steps and facts.steps[1] == facts.steps[1] and facts.run ~= facts.overall"),
      true);
  EXPECT_EQ(eval(d,
                 "local seen = {} for _, s in ipairs(facts.steps) do seen[s] = true end "
                 "local n = 0 for _, s in ipairs(facts.steps) do if seen[s] then n = n + 1 end end return n"),
            3);
}

TEST(FactsView, IsReadOnly) {
  json d = sample_doc();
  for (const char* code :
       {"facts.x = 1", "facts.run.framework = 'x'", "facts.steps[1] = 0", "facts.steps[4] = {}",
        "table.insert(facts.names, 'd')", "table.sort(facts.steps, function(a, b) return a.dur > b.dur end)",
        "facts.steps[2].evidence[1] = 1"}) {
    std::string e = error_of(d, code);
    EXPECT_NE(e.find("facts are read-only"), std::string::npos) << code << " -> " << e;
  }
  // The sandbox has no setmetatable/getmetatable/rawset to get around it.
  EXPECT_NE(error_of(d, "setmetatable(facts, nil)").find("nil value"), std::string::npos);
  EXPECT_NE(error_of(d, "rawset(facts, 'x', 1)").find("nil value"), std::string::npos);
  // The facts are unchanged.
  EXPECT_EQ(d, sample_doc());
}

TEST(FactsView, ToStringAndToJson) {
  json d = sample_doc();
  EXPECT_EQ(eval(d, "return tostring(facts.run):match('^table: ') ~= nil"), true);
  // Views passed back (emit{evidence = ...}) convert as the copied tables did.
  EXPECT_EQ(eval(d, "return facts.steps[1].evidence"), json::parse(R"([{"file":"t.json","byte":42}])"));
  EXPECT_EQ(eval(d, "return facts.overall"), json::parse(R"({"steps":3,"free_ratio":0.25,"big":-1,"flag":true})"));
  EXPECT_EQ(eval(d, "return facts.empty"), json::object());  // an empty Lua table is an object
  EXPECT_EQ(eval(d, "return { a = facts.names, b = facts.nested }"),
            json::parse(R"({"a":["a","b","c"],"b":{"a":{"b":{"c":[[1,2],[3]]}}}})"));
}

TEST(FactsView, ViewsAreChargedToTheRuleMemoryBudget) {
  // 200k objects of facts: keeping a view of each needs far more than 1 MiB ...
  json big = json::object();
  big["xs"] = json::array();
  for (int i = 0; i < 200000; ++i) big["xs"].push_back({{"i", i}});
  npu::SandboxLimits small;
  small.memory_bytes = size_t{1} << 20;
  json kept = eval(big, "local keep = {} for i, x in ipairs(facts.xs) do keep[i] = x end return #keep", small);
  ASSERT_TRUE(kept.is_object() && kept.contains("error")) << kept.dump();
  EXPECT_NE(kept["error"].get<std::string>().find("memory budget exceeded"), std::string::npos) << kept;
  // ... while reading them all without keeping them fits: unreferenced views are collected.
  EXPECT_EQ(eval(big, "local s = 0 for _, x in ipairs(facts.xs) do s = s + x.i end return s", small),
            int64_t{199999} * 200000 / 2);
}

TEST(FactsView, InstructionBudgetStillHolds) {
  npu::SandboxLimits lim;
  lim.instructions = 1'000'000;
  std::string e = eval(sample_doc(), "while true do local x = facts.steps[1].dur end", lim).value("error", "");
  EXPECT_NE(e.find("instruction budget exceeded"), std::string::npos) << e;
}

TEST(FactsView, RuleEngineHandsFactsAndParamsAsViews) {
  npu::Facts f;
  f.doc = sample_doc();
  npu::RuleEngine e;
  e.add_rule_source({"v.lua", R"(rule { id = "v", title = "V", params = { limit = 2 } }
function check(facts, p, emit)
  local n = 0
  for _, s in ipairs(facts.steps) do if s.dur > 15 then n = n + 1 end end
  if n >= p.limit then emit { observed = n .. " slow", evidence = facts.steps[1].evidence } end
  p.limit = 0
end)"},
                    false);
  auto out = e.run(f);
  ASSERT_EQ(out.size(), 1u + e.verdicts().size());  // the rule, then the verdicts
  EXPECT_EQ(out[0].status, npu::RuleOutcome::Status::Failed);  // params are read-only too
  EXPECT_NE(out[0].reason.find("facts are read-only"), std::string::npos) << out[0].reason;
}

TEST(RuleUtil, MedianAndStepName) {
  json d = sample_doc();
  EXPECT_EQ(eval(d, "return util.median({ 3, 1, 2 })"), 2);
  EXPECT_EQ(eval(d, "return util.median({ 4, 1, 3, 2 })"), 2.5);
  EXPECT_EQ(eval(d, "return util.median({}) == nil"), true);
  EXPECT_EQ(eval(d, "local xs = { 3, 1, 2 } util.median(xs) return xs"), json::parse("[3,1,2]"));  // unchanged
  EXPECT_EQ(eval(d, "local xs = {} for i, s in ipairs(facts.steps) do xs[i] = s.dur end return util.median(xs)"), 20);
  EXPECT_EQ(eval(d, "return util.median(facts.nums)"), 3.5);  // a facts array: read, not sorted in place
  EXPECT_EQ(eval(d, "return util.step_name(nil) .. ' ' .. util.step_name(7)"), "(none) 7");
  EXPECT_NE(error_of(d, "util.median = nil").find("util is read-only"), std::string::npos);
}
