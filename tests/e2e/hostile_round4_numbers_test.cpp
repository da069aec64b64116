// Hostile input, round 4 (issue 47): false passes and silently wrong numbers, and errors that name
// what is wrong. Each test is a reproducer run through the binary: a device timeline that lost its
// durations, correlation ids reused across steps, facts without steps, an unknown what-if name,
// impossible step_trace_time.csv values, an infinite memory size, a user rule's pool, an event
// field of the wrong type, an unreadable rules folder, a rule id holding backticks.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "test_support.h"

namespace fs = std::filesystem;
using nlohmann::json;
using npu::test::slurp;
using npu::test::TempDir;

namespace {

struct Cli {
  int code = -1;
  std::string out, err;
};

// The advisor with `args` within the hostile-input limits; stdout and stderr kept. `prefix` runs it
// under another command (setpriv, to drop privileges).
Cli cli(const TempDir& dir, const std::string& args, const std::string& prefix = "") {
  const std::string out = (dir.path() / "cli.out").string(), err = (dir.path() / "cli.err").string();
  const std::string cmd = prefix + npu::test::limited_advisor(args) + " >'" + out + "' 2>'" + err + "' </dev/null";
  const int status = std::system(cmd.c_str());
  Cli r{WIFEXITED(status) ? WEXITSTATUS(status) : 128, slurp(out), slurp(err)};
  npu::test::expect_within_limits(r.code, r.err, args);
  return r;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// A copy of the sample run in `dir`, named NAME.
std::string copy_sample(const TempDir& dir, const std::string& name) {
  const fs::path to = dir.path() / name;
  fs::copy(npu::test::sample_run(), to, fs::copy_options::recursive);
  return to.string();
}

// The facts of the sample run, written once into `dir`.
std::string sample_facts(const TempDir& dir) {
  const std::string p = (dir.path() / "base.facts.json").string();
  const std::string cmd =
      std::string(NPU_ADVISOR_BIN) + " facts -q '" + npu::test::sample_run() + "' -o '" + p + "' >/dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return p;
}

// A Kineto trace of `steps` steps, each launching two kernels of `kernel_us`; with `reuse`, every
// step carries the correlation ids 1 and 2 again (as a profiler whose ids wrapped would write).
std::string kineto_steps(int steps, int kernel_us, bool reuse) {
  json ev = json::array({
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 100}, {"tid", 0}, {"args", {{"name", "python3"}}}},
      {{"name", "process_labels"}, {"ph", "M"}, {"pid", 100}, {"tid", 0}, {"args", {{"labels", "CPU"}}}},
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0}, {"args", {{"name", "python3"}}}},
      {{"name", "process_labels"}, {"ph", "M"}, {"pid", 0}, {"tid", 0}, {"args", {{"labels", "GPU 0"}}}},
      {{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 7}, {"args", {{"name", "stream 7 "}}}},
  });
  int t = 1000;
  for (int s = 0; s < steps; ++s) {
    const int step_us = 2 * kernel_us + 200;
    ev.push_back({{"ph", "X"},
                  {"cat", "user_annotation"},
                  {"name", "ProfilerStep#" + std::to_string(s + 1)},
                  {"pid", 100},
                  {"tid", 100},
                  {"ts", t},
                  {"dur", step_us}});
    int k = t + 20;
    for (int j = 0; j < 2; ++j) {
      const int corr = reuse ? j + 1 : 2 * s + j + 1;
      ev.push_back({{"ph", "X"},
                    {"cat", "cuda_runtime"},
                    {"name", "cudaLaunchKernel"},
                    {"pid", 100},
                    {"tid", 100},
                    {"ts", t + 5 + 5 * j},
                    {"dur", 3},
                    {"args", {{"correlation", corr}}}});
      ev.push_back({{"ph", "X"},
                    {"cat", "kernel"},
                    {"name", "gemm"},
                    {"pid", 0},
                    {"tid", 7},
                    {"ts", k},
                    {"dur", kernel_us},
                    {"args", {{"device", 0}, {"stream", 7}, {"correlation", corr}}}});
      k += kernel_us + 1;
    }
    t += step_us + 10;
  }
  return json{{"schemaVersion", 1}, {"deviceProperties", {{{"id", 0}, {"name", "NVIDIA H100"}}}}, {"traceEvents", ev}}
      .dump();
}

}  // namespace

// ---- false PASS and silently wrong numbers ----

// Device events that lost their "dur" were zero-length tasks: "no device tasks", and the gate
// passed on nothing. They are skipped and counted like a dur that is no time, so the run is partial.
TEST(Round4Numbers, DeviceEventsWithoutADurMakeTheRunPartial) {
  TempDir d;
  const std::string facts = sample_facts(d);
  const std::string run = copy_sample(d, "nodur_ascend_pt");
  const std::string tv = run + "/ASCEND_PROFILER_OUTPUT/trace_view.json";
  json doc = json::parse(slurp(tv));
  json& events = doc.is_object() ? doc["traceEvents"] : doc;
  int device_pid = -1;
  for (const auto& e : events)
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name" &&
        has(e["args"].value("name", ""), "Ascend Hardware"))
      device_pid = e["pid"].get<int>();
  ASSERT_GE(device_pid, 0);
  int stripped = 0;
  for (auto& e : events)
    if (e.value("ph", "") == "X" && e.contains("pid") && e["pid"] == device_pid) stripped += e.erase("dur") ? 1 : 0;
  ASSERT_GT(stripped, 0);
  std::ofstream(tv, std::ios::trunc) << doc.dump();
  for (const char* f : {"kernel_details.csv", "step_trace_time.csv"}) fs::remove(run + "/ASCEND_PROFILER_OUTPUT/" + f);

  Cli g = cli(d, "gate --baseline '" + facts + "' '" + run + "'");
  EXPECT_EQ(g.code, 2) << g.out << g.err;
  EXPECT_TRUE(has(g.err, "is partial")) << g.err;
  EXPECT_TRUE(has(g.err, std::to_string(stripped) + " events without a usable ts")) << g.err;
  EXPECT_TRUE(has(g.err, "complete events without a dur")) << g.err;
  EXPECT_FALSE(has(g.out, "PASS")) << g.out;
}

// Correlation ids reused across steps paired every kernel with the first step's launch: a 30 %
// slower run read as "1.000 -> 0.000 ms" and passed. The ambiguous ids are said, left unpaired
// (the steps are measured on what is left), and the gate refuses the run as partial.
TEST(Round4Numbers, ReusedCorrelationIdsAreSaidAndNotPaired) {
  TempDir d;
  const std::string base = d.write("base.json", kineto_steps(6, 500, false));
  const std::string next = d.write("next.json", kineto_steps(6, 650, true));

  Cli g = cli(d, "gate --baseline '" + base + "' '" + next + "'");
  EXPECT_EQ(g.code, 2) << g.out << g.err;
  EXPECT_TRUE(has(g.err, "2 correlation ids are each carried by several host launches")) << g.err;
  EXPECT_TRUE(has(g.err, "12 device tasks is unknown, so they were left unpaired")) << g.err;
  EXPECT_TRUE(has(g.err, "the new run (" + next + ") is partial")) << g.err;

  // On what was kept, the regression is measured, not hidden.
  Cli c = cli(d, "compare '" + base + "' '" + next + "'");
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_TRUE(has(c.out, "base 1.200 ms  new 1.500 ms")) << c.out;
  Cli a = cli(d, "gate --allow-partial --baseline '" + base + "' '" + next + "'");
  EXPECT_EQ(a.code, 1) << a.out << a.err;
  EXPECT_TRUE(has(a.out, "FAIL step_time")) << a.out;

  // Unique ids: no warning.
  const std::string fine = d.write("fine.json", kineto_steps(6, 650, false));
  Cli f = cli(d, "gate --baseline '" + base + "' '" + fine + "'");
  EXPECT_EQ(f.code, 1) << f.err;
  EXPECT_FALSE(has(f.err, "correlation id")) << f.err;
}

// A facts file without steps (missing or empty) passed with every check skipped: a gate that
// evaluated nothing fails, and says so in every output.
TEST(Round4Numbers, AGateThatEvaluatedNothingFails) {
  TempDir d;
  const std::string facts = sample_facts(d);
  json doc = json::parse(slurp(facts));
  json missing = doc, empty = doc;
  missing.erase("steps");
  empty["steps"] = json::array();
  for (const json& j : {missing, empty}) {
    const std::string p = d.write("nosteps.facts.json", j.dump());
    const std::string md = (d.path() / "gate.md").string(), junit = (d.path() / "gate.xml").string();
    Cli g = cli(d, "gate --baseline '" + facts + "' '" + p + "' --markdown '" + md + "' --junit '" + junit + "'");
    EXPECT_EQ(g.code, 1) << g.out << g.err;
    EXPECT_TRUE(has(g.out, "gate: FAIL (1 failed, 0 passed, 1 skipped)")) << g.out;
    EXPECT_TRUE(has(g.out, "nothing was evaluated: every check was skipped")) << g.out;
    EXPECT_TRUE(has(slurp(md), "**Nothing evaluated:**")) << slurp(md);
    EXPECT_TRUE(has(slurp(junit), "failures=\"1\"")) << slurp(junit);
  }
  // Every budget off: nothing checked, no pass either.
  Cli off = cli(d, "gate --baseline '" + facts + "' '" + facts + "' --max-regression step_time=off");
  EXPECT_EQ(off.code, 1) << off.out << off.err;
  EXPECT_TRUE(has(off.out, "nothing was evaluated: every budget is off")) << off.out;
  // Identical runs still pass.
  EXPECT_EQ(cli(d, "gate --baseline '" + facts + "' '" + facts + "'").code, 0);
}

// `whatif --apply NAME` exited 0 with an unknown name when the replay was unavailable: the names
// are checked before anything is loaded.
TEST(Round4Numbers, WhatifChecksTheNamesFirst) {
  TempDir d;
  const std::string st =
      d.write("step_trace_time.csv",
              slurp(npu::test::sample_run() + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"));  // no replay
  Cli ok = cli(d, "whatif '" + st + "' --apply graphs");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(has(ok.out, "unavailable")) << ok.out;
  for (const std::string& apply : {"nosuchfix", "graphs,nosuchfix"}) {
    Cli bad = cli(d, "whatif '" + st + "' --apply " + apply);
    EXPECT_EQ(bad.code, 2) << apply << ": " << bad.out << bad.err;
    EXPECT_TRUE(has(bad.err, "nosuchfix not in {dataloader,graphs")) << bad.err;
  }
  Cli missing = cli(d, "whatif /nonexistent/run --apply nosuchfix");
  EXPECT_TRUE(has(missing.err, "nosuchfix")) << missing.err;  // the name, before the path
}

// The profiler's own step_trace_time.csv was taken as it was: a Computing of 1e15 us became a
// 31-year step. A row with a time over 24 hours is skipped and named, like an impossible trace event.
TEST(Round4Numbers, ImpossibleStepTraceTimesAreSkipped) {
  TempDir d;
  std::string text = slurp(npu::test::sample_run() + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
  // Line 3 (the second step): Computing is the third column.
  size_t line3 = text.find('\n', text.find('\n') + 1) + 1;
  const size_t c1 = text.find(',', line3), c2 = text.find(',', c1 + 1), c3 = text.find(',', c2 + 1);
  text.replace(c2 + 1, c3 - c2 - 1, "1e15");
  const std::string st = d.write("step_trace_time.csv", text);
  Cli f = cli(d, "facts -q '" + st + "'");
  ASSERT_EQ(f.code, 0) << f.err;
  json facts = json::parse(f.out);
  const json rejected = facts["run"]["rejected"];
  ASSERT_EQ(rejected.size(), 1u) << facts["run"].dump();
  EXPECT_EQ(rejected[0], st + ":3: 1 row with a time over 24 hours (impossible for one step) was skipped");
  for (const auto& s : facts["steps"]) EXPECT_LT(s.value("device_time_ns", 0.0), 1e12) << s.dump();
  EXPECT_LT(facts["overall"].value("device_time_ns", 0.0), 1e12);
  Cli g = cli(d, "gate --baseline '" + st + "' '" + st + "'");
  EXPECT_EQ(g.code, 2) << g.out << g.err;
  EXPECT_TRUE(has(g.err, "over 24 hours")) << g.err;
}

// `Total Reserved(MB) = inf` became a null memory peak without a word: a number that is not finite
// is a bad cell, named with its file, line and column.
TEST(Round4Numbers, AnInfiniteMemorySizeIsABadCell) {
  TempDir d;
  const std::string run = copy_sample(d, "inf_ascend_pt");
  const std::string mr = run + "/ASCEND_PROFILER_OUTPUT/memory_record.csv";
  std::string text = slurp(mr);
  const size_t line3 = text.find('\n', text.find('\n') + 1) + 1;
  // Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),...: the fourth cell.
  size_t c = line3;
  for (int i = 0; i < 3; ++i) c = text.find(',', c) + 1;
  text.replace(c, text.find(',', c) - c, "inf");
  std::ofstream(mr, std::ios::trunc) << text;
  Cli a = cli(d, "analyze -q '" + run + "'");
  EXPECT_EQ(a.code, 2) << a.err;
  EXPECT_TRUE(has(a.err, mr + ":3: column \"Total Reserved(MB)\": \"inf\" is not a number")) << a.err;
}

// A user rule's pool escaped the savings cap (a 1000 ms saving in a 14 ms step): a finding's own
// pool must be one of the split, and a pool the run's split lacks draws on idle; the savings
// together are at most the step.
TEST(Round4Numbers, AUserRulesPoolCannotEscapeTheCap) {
  TempDir d;
  d.write("unknown/greedy.lua", R"(rule { id = "user.unknown_pool", title = "Greedy", category = "schedule" }
function check(facts, params, emit) emit { observed = "x", saving_ns = 1000000000, pool = "bogus" } end
)");
  d.write("absent/greedy.lua", R"(rule { id = "user.copies", title = "Greedy", category = "memory", pool = "copies" }
function check(facts, params, emit) emit { observed = "x", saving_ns = 1000000000 } end
)");
  for (const char* dir : {"unknown", "absent"}) {
    const std::string out = (d.path() / "r.json").string();
    Cli a = cli(d, "analyze -q '" + npu::test::sample_run() + "' --rules '" + (d.path() / dir).string() +
                       "' --format json -o '" + out + "'");
    ASSERT_EQ(a.code, 0) << a.err;
    const json r = json::parse(slurp(out));
    const double step = r["attribution"]["step_ns"].get<double>();
    double total = 0;
    for (const auto& f : r["findings"]) {
      total += f["saving_ns"].get<double>();
      EXPECT_LE(f["saving_ns"].get<double>(), step) << f.dump();
      if (f["rule"] == "user.copies") {
        EXPECT_LE(f["saving_ns"].get<double>(), r["attribution"]["pools"]["idle"]["budget_ns"].get<double>());
        EXPECT_TRUE(has(f.value("saving_capped", ""), "this run's split has no copies part")) << f.dump();
      }
    }
    EXPECT_LE(total, step + 1);
    if (std::string(dir) == "unknown") {
      bool failed = false;
      for (const auto& rs : r["rules"])
        if (rs["rule"] == "user.unknown_pool") {
          failed =
              rs["status"] == "failed" && has(rs.value("reason", ""), "pool 'bogus' is not a pool of the step split");
          EXPECT_TRUE(failed) << rs.dump();
        }
      EXPECT_TRUE(failed);
    }
  }
}

// ---- clear errors ----

// An event whose field has a type no trace event has ("ph": 5) read as "byte 1: invalid JSON" for
// a valid JSON file: the event's offset and the field are named.
TEST(Round4Numbers, AFieldOfTheWrongTypeNamesTheEvent) {
  TempDir d;
  const std::string first = R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2})";
  const std::string p =
      d.write("trace_view.json", "[" + first + ",\n" + R"({"ph":5,"name":"b","pid":1,"tid":1,"ts":5})" + "]");
  Cli a = cli(d, "analyze -q '" + p + "'");
  EXPECT_EQ(a.code, 2) << a.err;
  const std::string at = p + ": byte " + std::to_string(1 + first.size() + 2) + ": ";
  EXPECT_TRUE(has(a.err, at + "the event that starts here has \"ph\" = a number")) << a.err;
  EXPECT_FALSE(has(a.err, "invalid JSON")) << a.err;
  const std::string q = d.write("obj.json", R"({"traceEvents": [{"ph": ["X"], "ts": 1}]})");
  Cli o = cli(d, "analyze -q '" + q + "'");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_TRUE(has(o.err, q + ": byte 17: the event that starts here has \"ph\" = an array")) << o.err;
}

// An unreadable rules subfolder said "error: : Permission denied": the folder is named. Run as
// an unprivileged user (root reads every folder).
TEST(Round4Numbers, AnUnreadableRulesFolderIsNamed) {
  const std::string nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  if (std::system((nobody + "true >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "cannot drop privileges with setpriv";
  // The unprivileged user must reach the binary and the sample (a checkout under /root cannot).
  if (std::system((nobody + "'" + NPU_ADVISOR_BIN + "' --version >/dev/null 2>&1 && " + nobody + "test -r '" +
                   npu::test::sample_run() + "/ASCEND_PROFILER_OUTPUT/trace_view.json'")
                      .c_str()) != 0)
    GTEST_SKIP() << "the unprivileged user cannot run the binary or read the sample from this checkout";
  TempDir d;
  fs::permissions(d.path(), fs::perms::all);  // the unprivileged user writes its output here
  d.write("rules/ok.lua", "rule { id = 'user.ok', title = 'OK' }\nfunction check(f, p, emit) end\n");
  d.write("rules/locked/inner.lua", "rule { id = 'user.inner', title = 'I' }\nfunction check(f, p, emit) end\n");
  fs::permissions(d.path() / "rules/locked", fs::perms::none);
  const std::string locked = (d.path() / "rules/locked").string();
  Cli r =
      cli(d, "analyze -q '" + npu::test::sample_run() + "' --rules '" + (d.path() / "rules").string() + "'", nobody);
  fs::permissions(d.path() / "rules/locked", fs::perms::owner_all);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "error: " + locked + ": cannot read the rule folder: Permission denied")) << r.err;
  EXPECT_FALSE(has(r.err, "error: :")) << r.err;
}

// A rule id holding backticks closed its Markdown code span and put live HTML in the `.md`: every
// code span of text from a rule or a run is fenced by more backticks than it holds.
TEST(Round4Numbers, ARuleIdCannotLeaveItsCodeSpan) {
  TempDir d;
  d.write("rules/evil.lua", R"(rule { id = "evil`<img src=x onerror=alert(1)>`", title = "Evil", category = "schedule" }
function check(facts, params, emit) emit { observed = "x", saving_ns = 5000000 } end
)");
  d.write("rules/evil_needs.lua", R"(rule { id = "x`<b>y</b>", title = "E", needs = { "no.such.fact" } }
function check(facts, params, emit) end
)");
  const std::string md = (d.path() / "r.md").string();
  Cli a = cli(d, "analyze -q '" + npu::test::sample_run() + "' --rules '" + (d.path() / "rules").string() +
                     "' --format md -o '" + md + "'");
  ASSERT_EQ(a.code, 0) << a.err;
  const std::string text = slurp(md);
  EXPECT_TRUE(has(text, "*Rule* `` evil`<img src=x onerror=alert(1)>` `` ·")) << text;
  EXPECT_TRUE(has(text, "- ``x`<b>y</b>`` (failed)")) << text;
  // No raw tag outside a span: each line with one holds it between fences of two backticks.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (has(line, "<img") || has(line, "<b>")) EXPECT_TRUE(has(line, "``")) << line;
}
