#include <gtest/gtest.h>

#include "base/intervals.h"
#include "base/load_error.h"
#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

using npu::Interval;
using npu::Intervals;

TEST(Intervals, UnionHandlesNestingOverlapZeroLengthAndUnsorted) {
  Intervals in = {{50, 60}, {10, 20}, {15, 18}, {19, 30}, {40, 40}, {30, 35}, {70, 65}};
  Intervals u = npu::union_of(in);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0], (Interval{10, 35}));  // 10-20, nested 15-18, overlapping 19-30, touching 30-35
  EXPECT_EQ(u[1], (Interval{50, 60}));  // zero-length 40-40 and inverted 70-65 dropped
  EXPECT_EQ(npu::total_length(u), 35);
}

TEST(Intervals, DifferenceAndIntersection) {
  Intervals comm = npu::union_of({{0, 100}, {200, 300}});
  Intervals compute = npu::union_of({{50, 250}});
  EXPECT_EQ(npu::difference(comm, compute), (Intervals{{0, 50}, {250, 300}}));
  EXPECT_EQ(npu::intersection(comm, compute), (Intervals{{50, 100}, {200, 250}}));
  EXPECT_EQ(npu::difference(Intervals{{0, 10}}, Intervals{}), (Intervals{{0, 10}}));
  EXPECT_TRUE(npu::difference(Intervals{{0, 10}}, Intervals{{0, 10}}).empty());
  EXPECT_EQ(npu::clip(comm, 50, 250), (Intervals{{50, 100}, {200, 250}}));
}

// Hand-built device timeline: two steps, compute, an allreduce half hidden, a runtime task
// that must not count as computing, and an AI_CPU task that must.
TEST(Overlap, KnownBreakdown) {
  auto m = npu::test::load_trace_text(R"([
{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"Python"}},
{"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"Ascend Hardware"}},
{"ph":"M","name":"process_name","pid":3,"tid":0,"args":{"name":"HCCL"}},
{"ph":"M","name":"thread_name","pid":3,"tid":0,"args":{"name":"Group g Communication"}},
{"ph":"X","name":"ProfilerStep#1","pid":1,"tid":1,"ts":"0.000","dur":100,"cat":"cpu_op"},
{"ph":"X","name":"ProfilerStep#2","pid":1,"tid":1,"ts":"100.000","dur":100,"cat":"cpu_op"},
{"ph":"X","name":"MatMul","pid":2,"tid":2,"ts":"10.000","dur":30,"args":{"Task Type":"AI_CORE"}},
{"ph":"X","name":"MEMCPY_ASYNC","pid":2,"tid":2,"ts":"45.000","dur":5,"args":{"Task Type":"Other"}},
{"ph":"X","name":"IndexPut","pid":2,"tid":2,"ts":"60.000","dur":20,"args":{"Task Type":"AI_CPU"}},
{"ph":"X","name":"hcom_allReduce_1","pid":3,"tid":0,"ts":"70.000","dur":20},
{"ph":"X","name":"Add","pid":2,"tid":2,"ts":"110.000","dur":40,"args":{"Task Type":"AI_VECTOR_CORE"}}
])");
  npu::Facts f = npu::compute_facts(m);
  const auto& s = f.doc["steps"];
  ASSERT_EQ(s.size(), 2u);
  // Step 1: window starts at 10; compute 10-40 and 60-80 = 50 us; comm 70-90 = 20, of which
  // 80-90 not overlapped; free = 40-60 (MEMCPY_ASYNC is not compute) = 20 us.
  EXPECT_EQ(s[0]["computing_ns"], 50000);
  EXPECT_EQ(s[0]["communication_ns"], 20000);
  EXPECT_EQ(s[0]["comm_not_overlapped_ns"], 10000);
  EXPECT_EQ(s[0]["overlapped_ns"], 10000);
  // Free 40-60 in step 1; the gap 90-110 starts in step 1 too (the profiler's rule).
  EXPECT_EQ(s[0]["free_ns"], 40000);
  EXPECT_EQ(s[1]["computing_ns"], 40000);
  EXPECT_EQ(s[1]["free_ns"], 0);
  EXPECT_EQ(f.doc["overall"]["computing_ns"], 90000);
  EXPECT_EQ(f.doc["overall"]["device_window_ns"], 140000);
}

TEST(Facts, SampleAgreesWithProfilerExactly) {
  auto m = npu::test::load_path(npu::test::sample_run());
  npu::Facts f = npu::compute_facts(m);
  for (const auto& s : f.doc["steps"]) {
    ASSERT_TRUE(s.contains("agreement"));
    EXPECT_EQ(s["agreement"]["max_abs_diff_ns"], 0) << s["id"];
    EXPECT_EQ(s["profiler"]["source"], "step_trace_time.csv");
  }
}

TEST(Facts, RealTraceAgreesWithOverlapTrackWithin1us) {
  std::string p = npu::test::realdata_dir() + "/ascend_torch_npu/mstt_timeline_advice";
  if (!std::filesystem::exists(p)) GTEST_SKIP();
  npu::Facts f = npu::compute_facts(npu::test::load_path(p));
  const auto& s = f.doc["steps"].at(0);
  EXPECT_EQ(s["profiler"]["source"], "Overlap Analysis track");
  EXPECT_LE(s["agreement"]["max_abs_diff_ns"].get<int64_t>(), 1000);
  EXPECT_TRUE(s["agreement"]["ok"].get<bool>());
  // Computing matches to the ns once MEMCPY_ASYNC runtime tasks are left out (docs/overlap.md).
  EXPECT_LE(std::abs(s["computing_ns"].get<int64_t>() - s["profiler"]["computing_ns"].get<int64_t>()), 1);
}

TEST(Facts, RoundTripThroughFile) {
  auto m = npu::test::load_path(npu::test::sample_run());
  npu::Facts f = npu::compute_facts(m);
  npu::test::TempDir d;
  std::string p = d.write("facts.json", f.doc.dump());
  npu::Facts back = npu::read_facts(p);
  EXPECT_EQ(back.doc, f.doc);
  std::string bad = d.write("bad.json", R"({"schema": "something else"})");
  EXPECT_THROW(npu::read_facts(bad), npu::LoadError);
  std::string newer = d.write("newer.json", R"({"schema": "npu-advisor.facts", "schema_version": 99})");
  EXPECT_THROW(npu::read_facts(newer), npu::LoadError);
}

TEST(Facts, NoTraceFallsBackToProfilerBreakdown) {
  std::string p = npu::test::realdata_dir() + "/ascend_torch_npu/msinsight_2rank/test_rank_1";
  if (!std::filesystem::exists(p)) GTEST_SKIP();
  npu::Facts f = npu::compute_facts(npu::test::load_path(p));
  EXPECT_EQ(f.doc["overall"]["source"], "step_trace_time.csv");
  EXPECT_EQ(f.doc["steps"][0]["computing_ns"], 75422220);
  bool listed = false;
  for (const auto& u : f.doc["unavailable"]) listed |= u["fact"] == "steps.recomputed";
  EXPECT_TRUE(listed);
}
