// The one analysis entry (pipeline/analysis.h): where it stops, what it keeps, and the
// differences of the six copies it replaced, each settled once (docs/architecture.md, "The
// analysis entry"): an empty run refused by every command, a compare side's warnings taken from
// the entry, the MCP report being the entry's report without views, one way of naming a rank.
#include "pipeline/analysis.h"

#include <cstdlib>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/load_error.h"
#include "mcp/advisor_handler.h"
#include "pipeline/compare_side.h"
#include "test_support.h"

namespace {

using nlohmann::json;
using npu::pipeline::Analysis;
using npu::pipeline::AnalysisOptions;
using npu::pipeline::Keep;
using npu::pipeline::StopAfter;

AnalysisOptions stop_after(StopAfter s) {
  AnalysisOptions o;
  o.stop = s;
  return o;
}

// A Kineto trace of one CPU op launching one kernel; `distributed` is its distributedInfo.
std::string kineto_trace(const std::string& distributed) {
  return R"({"schemaVersion": 1, "distributedInfo": )" + distributed + R"(, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 3,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 6, "dur": 20,
     "args": {"device": 0, "stream": 7, "correlation": 1}}]})";
}

// The timing fields of a document (they differ from run to run) removed, as
// scripts/golden-outputs.sh removes them.
void drop_timings(json& j) {
  if (j.is_object()) {
    for (const char* k : {"trace_mb_per_s", "trace_seconds", "load_seconds", "facts_seconds", "rules_seconds",
                          "total_seconds", "wall_seconds"})
      j.erase(k);
    for (auto& [k, v] : j.items()) drop_timings(v);
  } else if (j.is_array()) {
    for (auto& v : j) drop_timings(v);
  }
}

void expect_load_error(const std::function<void()>& f, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "no LoadError; expected one saying " << words;
  } catch (const npu::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(AnalysisEntry, StopsWhereAsked) {
  const std::string run = npu::test::sample_run();
  Analysis load = npu::pipeline::analyze(run, stop_after(StopAfter::Load));
  EXPECT_TRUE(load.summary.is_object());
  EXPECT_TRUE(load.facts.doc.empty());
  EXPECT_FALSE(load.model.has_value());  // not asked to keep it

  Analysis facts = npu::pipeline::analyze(run, stop_after(StopAfter::Facts));
  EXPECT_EQ(facts.facts.doc["input"]["path"], run);
  EXPECT_TRUE(facts.outcomes.empty());
  EXPECT_TRUE(facts.views.is_null());  // views are made only when asked

  Analysis rules = npu::pipeline::analyze(run, stop_after(StopAfter::Rules));
  EXPECT_FALSE(rules.outcomes.empty());
  EXPECT_TRUE(rules.facts.doc.is_object());
  EXPECT_TRUE(rules.report.is_null());

  AnalysisOptions report_opt;
  report_opt.views = Keep::Always;
  Analysis report = npu::pipeline::analyze(run, report_opt);
  EXPECT_TRUE(report.report["facts"].is_object());
  EXPECT_TRUE(report.report["views"].is_object());
  EXPECT_TRUE(report.facts.doc.empty());  // moved into the report
  EXPECT_EQ(report.report["findings"].size(), npu::ranked_findings(rules.outcomes).size());
}

TEST(AnalysisEntry, KeepsTheModelForWhatif) {
  AnalysisOptions o = stop_after(StopAfter::Load);
  o.keep_model = true;
  Analysis a = npu::pipeline::analyze(npu::test::sample_run(), o);
  ASSERT_TRUE(a.model.has_value());
  EXPECT_EQ(a.model->stats.trace_events, npu::test::sample_expected()["trace"]["total_events"].get<uint64_t>());
}

// Before: only a cluster's rank was refused; an empty single run made a report of zeros, exit 0.
TEST(AnalysisEntry, RefusesAnEmptyRunInEveryCommand) {
  npu::test::TempDir dir;
  const std::string empty = dir.write("empty.pt.trace.json", R"({"traceEvents": []})");
  const std::string words = "holds no profiler data";
  expect_load_error([&] { npu::pipeline::analyze(empty, AnalysisOptions{}); }, words);             // analyze, MCP
  expect_load_error([&] { npu::pipeline::analyze(empty, stop_after(StopAfter::Facts)); }, words);  // facts
  expect_load_error([&] { npu::pipeline::analyze(empty, stop_after(StopAfter::Load)); }, words);   // whatif
  expect_load_error([&] { npu::pipeline::load_compare_side(empty, {}, {}); }, words);              // compare, gate
}

// Before: compare_side copied the model's warnings itself; now every caller reads the entry's.
TEST(AnalysisEntry, CompareSideWarningsAreTheEntrys) {
  npu::test::TempDir dir;
  const std::string trace = dir.write("t.pt.trace.json", kineto_trace(R"({"rank": -5})"));
  Analysis a = npu::pipeline::analyze(trace, stop_after(StopAfter::Load));
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_NE(a.warnings[0].find("distributedInfo.rank -5 is not a rank"), std::string::npos) << a.warnings[0];
  npu::compare::CompareSide side = npu::pipeline::load_compare_side(trace, {}, {});
  EXPECT_EQ(side.warnings, a.warnings);
  EXPECT_EQ(side.facts.doc["input"]["path"], trace);
  EXPECT_TRUE(side.views.is_object());  // a side draws its timeline in compare's HTML
}

// Before: the MCP tools built their report by a copy of the chain, without views. Now it is the
// entry's report, views left out by option (no tool serves them; the reports are cached).
TEST(AnalysisEntry, McpReportIsTheEntrysReportWithoutViews) {
  const std::string run = npu::test::sample_run();
  json mcp = npu::mcp::tools::analyze_report(run);
  EXPECT_FALSE(mcp.contains("views"));
  json entry = npu::pipeline::analyze(run, AnalysisOptions{}).report;
  drop_timings(mcp);
  drop_timings(entry);
  EXPECT_EQ(mcp, entry);
}

TEST(AnalysisEntry, BadRuleOptionStopsAfterTheFacts) {
  AnalysisOptions o;
  o.rules.sets = {"no.such.rule.param=1"};
  Analysis a = npu::pipeline::analyze(npu::test::sample_run(), o);
  EXPECT_NE(a.rules_error.find("--set"), std::string::npos) << a.rules_error;
  EXPECT_TRUE(a.outcomes.empty());
  EXPECT_TRUE(a.report.is_null());
}

// A cluster is analysed only when the caller takes clusters, and refused in its own words
// otherwise; with a bad rule option, once, before any rank is loaded.
TEST(AnalysisEntry, ClusterRefusedUnlessTakenAndRuleOptionsCheckedFirst) {
  npu::test::TempDir dir;
  const std::string c = (dir.path() / "job").string();
  const std::string gen = "/usr/bin/python3 '" + npu::test::source_dir() + "/tools/gen_cluster.py' '" + c +
                          "' --ranks 2 --steps 2 >/dev/null";
  ASSERT_EQ(std::system(gen.c_str()), 0);
  AnalysisOptions o;
  o.if_cluster = "run `facts` on each rank folder";
  expect_load_error([&] { npu::pipeline::analyze(c, o); }, "is a cluster: run `facts` on each rank folder");
  o.clusters = true;
  o.rules.sets = {"no.such.rule.param=1"};
  Analysis a = npu::pipeline::analyze(c, o);
  EXPECT_TRUE(a.is_cluster);
  EXPECT_FALSE(a.rules_error.empty());
  EXPECT_TRUE(a.cluster.warnings.empty());
  EXPECT_TRUE(a.facts.doc.empty());  // no rank was loaded
}

// Before: a cluster member made views when the model named no rank, and a summary when the facts
// named none (distributed_args counted only there). Now one test decides both.
TEST(AnalysisEntry, RanksAreNamedOneWay) {
  EXPECT_EQ(npu::pipeline::run_rank(json{{"rank", 3}, {"distributed", {{"rank", "5"}}}}), 3);
  EXPECT_EQ(npu::pipeline::run_rank(json{{"rank", -1}, {"distributed", {{"rank", "5"}}}}), 5);
  EXPECT_EQ(npu::pipeline::run_rank(json{{"rank", -1}, {"distributed", {{"rank", "x5"}}}}), -1);
  EXPECT_EQ(npu::pipeline::run_rank(json{{"rank", -1}}), -1);
  EXPECT_EQ(npu::pipeline::run_rank(json()), -1);

  npu::test::TempDir dir;
  AnalysisOptions o = stop_after(StopAfter::Facts);
  o.summary = Keep::UnlessRanked;
  o.views = Keep::UnlessRanked;
  Analysis ranked = npu::pipeline::analyze(dir.write("r/t.pt.trace.json", kineto_trace(R"({"rank": 3})")), o);
  EXPECT_EQ(ranked.facts.doc["run"]["rank"], 3);
  EXPECT_TRUE(ranked.summary.is_null());
  EXPECT_TRUE(ranked.views.is_null());
  Analysis unranked = npu::pipeline::analyze(dir.write("u/t.pt.trace.json", kineto_trace("{}")), o);
  EXPECT_TRUE(unranked.summary.is_object());
  EXPECT_TRUE(unranked.views.is_object());
}

}  // namespace
