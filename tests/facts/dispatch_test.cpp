// facts.dispatch (facts/diagnostics/dispatch.cpp, docs/facts-dispatch.md): hand-built traces
// with known answers, the shipped sample against expected.json, and the real mstt trace
// against numbers computed independently in Python.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "rules/rule_engine.h"
#include "rules/verdicts.h"
#include "test_support.h"
#include "trace_builder.h"

using nlohmann::json;

namespace {

using npu::test::TraceBuilder;

constexpr npu::Ns us(double v) { return static_cast<npu::Ns>(v * 1000); }

json dispatch_of(const npu::RunModel& m, npu::Facts* facts_out = nullptr) {
  npu::DiagnosticContext ctx(m);
  npu::Facts f;
  npu::diagnose_dispatch(ctx, f);
  EXPECT_TRUE(f.doc.contains("dispatch"));
  if (facts_out) *facts_out = f;
  return f.doc["dispatch"];
}

// The class the rules decide for each step of these facts and for the run (the verdict
// dispatch.step_class at its defaults: the facts carry only the measurements).
json classes_of(const json& dispatch) {
  npu::Facts f;
  f.doc["dispatch"] = dispatch;
  npu::RuleEngine engine;
  return npu::verdict_document(engine.run(f))["dispatch"]["step_class"];
}

bool unavailable_has(const npu::Facts& f, const std::string& fact) {
  if (!f.doc.contains("unavailable")) return false;
  for (const auto& u : f.doc["unavailable"])
    if (u["fact"] == fact) return true;
  return false;
}

// Four steps, one of each verdict (µs):
//  step 1 [0, 1200): 10 launches 10 µs apart from 100; tasks back to back from 200, 100 µs
//    each -> lag_k = 100 + 90k µs. No vertical launch: device-bound. The 11 µs gap after its
//    last task (1200 -> 1211) ends with step 2's first, vertical, launch: host-bound idle.
//  step 2 [1200, 2400): 5 launches 200 µs apart from 1210, each task starts 1 µs after its
//    launch and runs 50 µs -> four 150 µs gaps, all host-bound. The 439 µs gap after it
//    ends with a task that has no launch arrow: idle, but not blamed on the host. One extra
//    HostToDevice start without its finish (dropped by the loader). Host-bound.
//  step 3 [2400, 3600): one task without an arrow (2500, 100 µs): no launches, "unknown".
//    The gap 2600 -> 3710 ends with step 4's first launch (lag 10 µs): host-bound idle.
//  step 4 [3600, 5000): lag = 10 µs + 2 µs per launch, launches 100 µs apart from 3700,
//    tasks 100 µs -> 2 µs gaps. Every launch vertical, yet the device is 98% busy: mixed.
std::string four_step_trace() {
  TraceBuilder b;
  b.step(1, 0, 1200);
  b.step(2, 1200, 1200);
  b.step(3, 2400, 1200);
  b.step(4, 3600, 1400);
  for (int k = 0; k < 10; ++k) b.launch(100 + 10 * k, 200 + 100 * k, 100);
  for (int k = 0; k < 5; ++k) b.launch(1210 + 200 * k, 1211 + 200 * k, 50);
  b.flow_point("HostToDevice", "999", 's', 2, 2, 1500);  // unpaired: no 'f'
  b.task("no_arrow_task", 2500, 100);
  for (int k = 0; k < 10; ++k) b.launch(3700 + 100 * k, 3710 + 102 * k, 100);
  // Host operators (3 in step 1, 1 in step 4) and an operator outside every step.
  b.host_op("aten::add", 10, 5);
  b.host_op("aten::mul", 20, 5);
  b.host_op("aclnnMul", 21, 2);
  b.host_op("aten::relu", 3650, 5);
  b.host_op("aten::outside", 6000, 5);
  // Synchronize calls on another CANN thread.
  b.x(2, 9, "AscendCL@aclrtSynchronizeStream", 2300, 20);
  b.x(2, 9, "AscendCL@aclrtSynchronizeStreamWithTimeout", 2700, 30);
  b.x(2, 9, "AscendCL@aclrtSynchronizeDevice", 4000, 40);
  // Task queue: enqueue -> dequeue arrows of 5, 15 and 25 µs.
  b.x(1, 1, "Enqueue", 30, 1, "enqueue");
  b.x(1, 5, "Dequeue@aclnnMul", 35, 3, "dequeue");
  b.flow_point("async_task_queue", "1", 's', 1, 1, 30);
  b.flow_point("async_task_queue", "1", 'f', 1, 5, 35);
  b.flow_point("async_task_queue", "2", 's', 1, 1, 40);
  b.flow_point("async_task_queue", "2", 'f', 1, 5, 55);
  b.flow_point("async_task_queue", "3", 's', 1, 1, 50);
  b.flow_point("async_task_queue", "3", 'f', 1, 5, 75);
  return b.json();
}

}  // namespace

TEST(Dispatch, FourStepsKnownAnswers) {
  npu::RunModel m = npu::test::load_trace_text(four_step_trace());
  ASSERT_EQ(m.steps.size(), 4u);
  npu::Facts facts;
  json d = dispatch_of(m, &facts);
  EXPECT_FALSE(unavailable_has(facts, "dispatch"));
  EXPECT_EQ(d["flow_kind"], "HostToDevice");
  ASSERT_EQ(d["steps"].size(), 4u);
  const json& s1 = d["steps"][0];
  const json& s2 = d["steps"][1];
  const json& s3 = d["steps"][2];
  const json& s4 = d["steps"][3];
  const json cls = classes_of(d);

  // Step 1: lags 100, 190, ..., 910 µs.
  EXPECT_EQ(s1["id"], 1);
  EXPECT_EQ(s1["count"], 10);
  EXPECT_EQ(s1["lag_min_ns"], us(100));
  EXPECT_EQ(s1["lag_p10_ns"], us(190));  // index round(0.1 * 9) = 1
  EXPECT_EQ(s1["lag_p50_ns"], us(550));  // index round(4.5) = 5
  EXPECT_EQ(s1["lag_p90_ns"], us(820));  // index round(8.1) = 8
  EXPECT_EQ(s1["lag_max_ns"], us(910));
  EXPECT_EQ(s1["lag_mean_ns"], us(505));
  EXPECT_EQ(s1["vertical_share"], 0.0);
  // x = launch ms since step start = 0.1 + 0.01k; lag = 100000 + 90000k ns
  //   = 9e6 * x - 800000.
  EXPECT_NEAR(s1["slope_ns_per_ms"].get<double>(), 9e6, 1e-3);
  EXPECT_NEAR(s1["intercept_ns"].get<double>(), -800000, 1e-3);
  EXPECT_NEAR(s1["r2"].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(s1["free_ns"], us(11));
  EXPECT_EQ(s1["host_bound_free_ns"], us(11));
  EXPECT_EQ(s1["device_time_ns"], us(1011));
  EXPECT_EQ(cls["steps"][0]["class"], "device-bound");
  EXPECT_EQ(s1["host_ops"], 3);
  EXPECT_DOUBLE_EQ(s1["host_ops_per_ms"].get<double>(), 3 / 1.2);
  EXPECT_DOUBLE_EQ(s1["launches_per_ms"].get<double>(), 10 / 1.2);
  EXPECT_EQ(s1["sync_calls"], 0);
  // The largest-lag task and its Node@launch (what explains a device-bound step); the one
  // host-caused gap's task and launch.
  ASSERT_EQ(s1["largest_lag_evidence"].size(), 2u);
  EXPECT_NE(s1["largest_lag_evidence"][0]["what"].get<std::string>().find("(largest lag)"), std::string::npos);
  EXPECT_NE(s1["largest_lag_evidence"][1]["what"].get<std::string>().find("Node@launch"), std::string::npos);
  EXPECT_EQ(s1["evidence"].size(), 2u);

  // Step 2: 5 vertical launches (lag 1 µs); the unpaired start is not a launch.
  EXPECT_EQ(s2["count"], 5);
  EXPECT_EQ(s2["lag_p50_ns"], us(1));
  EXPECT_EQ(s2["vertical_share"], 1.0);
  EXPECT_NEAR(s2["slope_ns_per_ms"].get<double>(), 0.0, 1e-9);
  EXPECT_TRUE(s2["r2"].is_null());  // constant lag: r2 undefined
  EXPECT_EQ(s2["free_ns"], us(4 * 150 + 439));
  EXPECT_EQ(s2["host_bound_free_ns"], us(600));
  EXPECT_EQ(s2["host_bound_gaps"], 4);
  EXPECT_EQ(s2["device_time_ns"], us(250 + 1039));
  EXPECT_DOUBLE_EQ(s2["host_bound_free_ratio"].get<double>(), 600.0 / 1289.0);
  EXPECT_DOUBLE_EQ(s2["host_bound_of_free_ratio"].get<double>(), 600.0 / 1039.0);
  EXPECT_EQ(cls["steps"][1]["class"], "host-bound");
  EXPECT_EQ(s2["sync_calls"], 1);
  EXPECT_EQ(s2["sync_ns"], us(20));
  ASSERT_EQ(s2["top_host_bound_gaps"].size(), 3u);
  EXPECT_EQ(s2["top_host_bound_gaps"][0]["dur_ns"], us(150));
  EXPECT_EQ(s2["top_host_bound_gaps"][0]["lag_ns"], us(1));
  EXPECT_EQ(s2["evidence"].size(), 6u);  // 3 gaps x (task, launch)

  // Step 3: no launches at all.
  EXPECT_EQ(s3["count"], 0);
  EXPECT_TRUE(s3["lag_p50_ns"].is_null());
  EXPECT_TRUE(s3["vertical_share"].is_null());
  EXPECT_TRUE(s3["slope_ns_per_ms"].is_null());
  EXPECT_EQ(cls["steps"][2]["class"], "unknown");
  EXPECT_EQ(s3["free_ns"], us(1110));
  EXPECT_EQ(s3["host_bound_free_ns"], us(1110));  // ended by step 4's first (vertical) launch
  EXPECT_EQ(s3["sync_calls"], 1);                 // ...WithTimeout counts as a stream sync
  EXPECT_EQ(s3["evidence"].size(), 2u);  // its one host-caused gap: step 4's first task and launch
  EXPECT_EQ(s3["largest_lag_evidence"].size(), 0u);

  // Step 4: lag = 10 + 2k µs, launch = 0.1 + 0.1k ms after the step start:
  // lag = 8000 ns + 20000 ns/ms * x exactly.
  EXPECT_EQ(s4["count"], 10);
  EXPECT_EQ(s4["lag_min_ns"], us(10));
  EXPECT_EQ(s4["lag_p10_ns"], us(12));
  EXPECT_EQ(s4["lag_p50_ns"], us(20));
  EXPECT_EQ(s4["lag_p90_ns"], us(26));
  EXPECT_EQ(s4["lag_max_ns"], us(28));
  EXPECT_EQ(s4["lag_mean_ns"], us(19));
  EXPECT_NEAR(s4["slope_ns_per_ms"].get<double>(), 20000.0, 1e-6);
  EXPECT_NEAR(s4["intercept_ns"].get<double>(), 8000.0, 1e-6);
  EXPECT_NEAR(s4["r2"].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(s4["vertical_share"], 1.0);
  EXPECT_EQ(s4["host_bound_free_ns"], us(18));  // 9 gaps of 2 µs
  EXPECT_EQ(s4["device_time_ns"], us(1018));
  EXPECT_EQ(cls["steps"][3]["class"], "mixed");
  EXPECT_EQ(s4["host_ops"], 1);
  EXPECT_EQ(s4["device_sync_calls"], 1);
  EXPECT_EQ(s4["sync_calls"], 0);

  // Run level: 25 launches, 15 vertical.
  const json& o = d["overall"];
  EXPECT_EQ(o["flows_used"], 25);
  EXPECT_EQ(o["count"], 25);
  EXPECT_EQ(o["flows_outside_steps"], 0);
  EXPECT_EQ(o["unpaired_flow_points"], 1);
  EXPECT_DOUBLE_EQ(o["vertical_share"].get<double>(), 15.0 / 25.0);
  EXPECT_EQ(o["free_ns"], us(11 + 600 + 439 + 1110 + 18));
  EXPECT_EQ(o["host_bound_free_ns"], us(11 + 600 + 1110 + 18));
  EXPECT_EQ(o["device_time_ns"], us(1000 + 250 + 100 + 1000 + 2178));
  EXPECT_EQ(cls["overall"]["class"], "host-bound");
  EXPECT_EQ(cls["steps_by_class"], json({{"device-bound", 1}, {"host-bound", 1}, {"mixed", 1}, {"unknown", 1}}));
  EXPECT_EQ(o["host_ops"], 4);        // inside steps
  EXPECT_EQ(o["host_ops_total"], 5);  // including the one after the last step
  EXPECT_DOUBLE_EQ(o["host_ops_per_ms"].get<double>(), 4 / 5.0);
  EXPECT_EQ(o["sync_calls"], 2);
  EXPECT_EQ(o["device_sync_calls"], 1);
  // Host-bound run: evidence = the 5 longest host-caused gaps, task then launch for each.
  ASSERT_EQ(o["top_host_bound_gaps"].size(), 5u);
  EXPECT_EQ(o["top_host_bound_gaps"][0]["dur_ns"], us(1110));
  EXPECT_EQ(o["evidence"].size(), 10u);
  for (const auto& e : o["evidence"]) EXPECT_TRUE(e.contains("byte"));

  // Task queue: 3 arrows of 5, 15, 25 µs; no metadata, so no env.
  const json& tq = d["task_queue"];
  EXPECT_EQ(tq["flows"], 3);
  EXPECT_EQ(tq["latency_p50_ns"], us(15));
  EXPECT_EQ(tq["latency_p90_ns"], us(25));
  EXPECT_EQ(tq["enqueue_slices"], 1);
  EXPECT_EQ(tq["dequeue_slices"], 1);
  EXPECT_EQ(tq["two_stage_active"], true);
  EXPECT_TRUE(tq["task_queue_enable_env"].is_null());
  EXPECT_EQ(d["interruptions"]["count"], 0);
}

// Evidence bytes point at the right events: the task that ended the longest host-bound gap
// of step 2 and the Node@launch that launched it.
TEST(Dispatch, EvidencePointsAtTaskAndLaunch) {
  std::string text = four_step_trace();
  npu::RunModel m = npu::test::load_trace_text(text);
  json d = dispatch_of(m);
  const json& ev = d["steps"][1]["evidence"];
  ASSERT_GE(ev.size(), 2u);
  size_t task_at = ev[0]["byte"].get<size_t>(), launch_at = ev[1]["byte"].get<size_t>();
  ASSERT_LT(task_at, text.size());
  ASSERT_LT(launch_at, text.size());
  EXPECT_EQ(text.compare(task_at, 1, "{"), 0);
  EXPECT_LT(text.find("\"kernel", task_at) - task_at, 40u);
  EXPECT_LT(text.find("Node@launch", launch_at) - launch_at, 40u);
}

// No ProfilerStep: one run-level group with a null id. Only async_npu arrows (the fallback).
// A 2000 µs task after which the next launch starts 30 µs after the host issued it is a
// pipeline interruption; a 1000 µs task followed by a 1090 µs lag is not.
TEST(Dispatch, NoStepsAsyncNpuFallbackAndInterruptions) {
  TraceBuilder b;
  struct T {
    double launch, start, dur;
  };
  std::vector<T> tasks = {{0, 100, 10},     {1, 110, 10},     {2, 120, 2000},   {2100, 2130, 10}, {2135, 2140, 1000},
                          {2150, 3240, 10}, {2160, 3250, 10}, {2170, 3260, 10}, {2180, 3270, 10}};
  int id = 0;
  for (const auto& t : tasks) {
    std::string sid = std::to_string(++id);
    b.host_op("aclnnOp" + sid, t.launch - 0.5, 1);
    b.flow_point("async_npu", sid, 's', 1, 1, t.launch);
    b.task("op" + sid, t.start, t.dur);
    b.flow_point("async_npu", sid, 'f', 3, 3, t.start);
  }
  npu::RunModel m = npu::test::load_trace_text(b.json());
  ASSERT_TRUE(m.steps.empty());
  json d = dispatch_of(m);
  EXPECT_EQ(d["flow_kind"], "async_npu");
  ASSERT_EQ(d["steps"].size(), 1u);
  EXPECT_TRUE(d["steps"][0]["id"].is_null());
  EXPECT_EQ(d["steps"][0]["count"], 9);
  EXPECT_EQ(d["steps"][0]["median_task_ns"], us(10));
  EXPECT_EQ(d["overall"]["steps"], 0);
  EXPECT_EQ(d["overall"]["host_ops"], 9);
  const json& in = d["interruptions"];
  EXPECT_EQ(in["count"], 1);
  ASSERT_EQ(in["items"].size(), 1u);
  EXPECT_EQ(in["items"][0]["name"], "op3");
  EXPECT_EQ(in["items"][0]["dur_ns"], us(2000));
  EXPECT_EQ(in["items"][0]["next_lag_ns"], us(30));
  EXPECT_EQ(in["items"][0]["gap_after_ns"], us(10));
  EXPECT_EQ(in["items"][0]["class"], "compute");
  EXPECT_TRUE(in["items"][0]["step"].is_null());
  EXPECT_EQ(in["items"][0]["evidence"].size(), 3u);
  EXPECT_EQ(d["steps"][0]["interruptions"], 1);
}

// HostToDevice wins over async_npu when both exist.
TEST(Dispatch, PrefersHostToDevice) {
  TraceBuilder b;
  b.step(1, 0, 1000);
  b.launch(100, 150, 10);  // HostToDevice lag 50 µs: exactly the threshold, vertical
  b.flow_point("async_npu", "7", 's', 1, 1, 90);
  b.flow_point("async_npu", "7", 'f', 3, 3, 150);
  json d = dispatch_of(npu::test::load_trace_text(b.json()));
  EXPECT_EQ(d["flow_kind"], "HostToDevice");
  EXPECT_EQ(d["overall"]["flows_used"], 1);
  EXPECT_EQ(d["steps"][0]["lag_max_ns"], us(50));
  EXPECT_EQ(d["steps"][0]["vertical_share"], 1.0);
  EXPECT_TRUE(d["steps"][0]["slope_ns_per_ms"].is_null());  // one point: no fit
}

// No launch arrows at all: "dispatch" is unavailable, yet task queue, host op rate and
// sync calls are still filled in.
TEST(Dispatch, NoFlowsStillFillsHostSide) {
  TraceBuilder b;
  b.step(1, 0, 2000);
  b.host_op("aten::add", 10, 5);
  b.host_op("aten::mul", 20, 5);
  b.x(1, 1, "Enqueue", 30, 1, "enqueue");
  b.x(1, 5, "Dequeue@aclnnMul", 35, 3, "dequeue");
  b.x(2, 9, "AscendCL@aclrtSynchronizeStream", 100, 20);
  b.task("orphan", 50, 10);
  npu::Facts facts;
  json d = dispatch_of(npu::test::load_trace_text(b.json()), &facts);
  EXPECT_TRUE(unavailable_has(facts, "dispatch"));
  EXPECT_TRUE(d["flow_kind"].is_null());
  EXPECT_EQ(d["overall"]["flows_used"], 0);
  EXPECT_EQ(d["steps"][0]["count"], 0);
  EXPECT_EQ(classes_of(d)["steps"][0]["class"], "unknown");
  EXPECT_EQ(d["steps"][0]["host_ops"], 2);
  EXPECT_DOUBLE_EQ(d["steps"][0]["host_ops_per_ms"].get<double>(), 1.0);
  EXPECT_EQ(d["steps"][0]["sync_calls"], 1);
  EXPECT_EQ(d["task_queue"]["flows"], 0);
  EXPECT_TRUE(d["task_queue"]["latency_p50_ns"].is_null());
  EXPECT_EQ(d["task_queue"]["two_stage_active"], true);  // from the Enqueue/Dequeue@ slices
}

// Launch arrows but no device timeline (the tasks' process is not a known device): no idle
// gaps to blame, so the verdict rests on the lags alone and the gap facts are unavailable.
TEST(Dispatch, NoDeviceTimelineJudgesOnLagsAlone) {
  TraceBuilder b;
  b.step(1, 0, 1000);
  for (int k = 0; k < 4; ++k) b.launch(100 + 200 * k, 101 + 200 * k, 50);
  npu::Facts facts;
  npu::RunModel m = npu::test::load_trace_text(b.json(""));
  json d = dispatch_of(m, &facts);
  EXPECT_TRUE(unavailable_has(facts, "dispatch.host_bound_free"));
  EXPECT_FALSE(unavailable_has(facts, "dispatch"));
  const json& s = d["steps"][0];
  EXPECT_EQ(s["count"], 4);
  EXPECT_EQ(s["vertical_share"], 1.0);
  EXPECT_EQ(s["free_ns"], 0);
  EXPECT_FALSE(d["has_device_timeline"].get<bool>());
  const json v = classes_of(d)["steps"][0];
  EXPECT_EQ(v["class"], "host-bound");
  EXPECT_NE(v["why"].get<std::string>().find("no device timeline"), std::string::npos);
}

// An empty trace: nothing to say, nothing crashes.
TEST(Dispatch, EmptyTrace) {
  npu::Facts facts;
  json d = dispatch_of(npu::test::load_trace_text("[]"), &facts);
  EXPECT_TRUE(unavailable_has(facts, "dispatch"));
  EXPECT_EQ(d["steps"].size(), 0u);
  EXPECT_EQ(d["task_queue"]["two_stage_active"], false);
}

// The shipped sample (docs/sample.md): step 3 is planted host-bound, the others device-bound.
TEST(Dispatch, SampleMatchesExpected) {
  npu::RunModel m = npu::test::load_path(npu::test::sample_run());
  json d = dispatch_of(m);
  json expected;
  std::ifstream(npu::test::source_dir() + "/testdata/sample/expected.json") >> expected;
  const json& eb = expected["steps_breakdown"];
  ASSERT_EQ(d["steps"].size(), eb.size());
  EXPECT_EQ(d["flow_kind"], "HostToDevice");
  EXPECT_EQ(d["overall"]["flows_used"], expected["trace"]["flows_by_category"]["HostToDevice"]);
  int64_t host_bound_id = expected["host_bound_step"];
  const json cls = classes_of(d);
  int64_t max_hb_id = -1, max_hb = -1;
  for (size_t i = 0; i < eb.size(); ++i) {
    const json& s = d["steps"][i];
    const json& e = eb[i];
    SCOPED_TRACE("step " + std::to_string(e["id"].get<int>()));
    ASSERT_EQ(s["id"], e["id"]);
    EXPECT_EQ(s["count"], e["compute_tasks"]);
    // The generator's lag is task ts - HostToDevice s ts; its mean is sum // n.
    EXPECT_EQ(s["lag_mean_ns"], e["launch_to_start_lag_ns"]["mean"]);
    EXPECT_EQ(s["lag_min_ns"], e["launch_to_start_lag_ns"]["min"]);
    EXPECT_EQ(s["lag_max_ns"], e["launch_to_start_lag_ns"]["max"]);
    // Our idle gaps (busy = compute ∪ communication) are the profiler's Free exactly.
    EXPECT_EQ(s["free_ns"], e["free_ns"]);
    EXPECT_EQ(s["device_time_ns"], e["stage_ns"]);
    EXPECT_EQ(s["sync_calls"], 1);
    if (s["host_bound_free_ns"].get<int64_t>() > max_hb) {
      max_hb = s["host_bound_free_ns"];
      max_hb_id = s["id"];
    }
    if (e["id"] == host_bound_id) {
      EXPECT_EQ(cls["steps"][i]["class"], "host-bound");
      EXPECT_GE(s["vertical_share"].get<double>(), 0.9);
      EXPECT_LT(std::abs(s["slope_ns_per_ms"].get<double>()), 100.0);  // flat: 15.4 ns/ms
      EXPECT_GT(s["host_bound_free_ratio"].get<double>(), 0.5);
      EXPECT_EQ(s["evidence"].size(), 6u);
    } else {
      EXPECT_EQ(cls["steps"][i]["class"], "device-bound");
      EXPECT_GT(s["slope_ns_per_ms"].get<double>(), 1e6);  // lag grows > 1 ms per ms of launches
      EXPECT_GT(s["r2"].get<double>(), 0.9);
      EXPECT_LE(s["vertical_share"].get<double>(), 0.2);
      // The lag grows over the step, as the generator's half means say.
      EXPECT_LT(e["launch_to_start_lag_ns"]["mean_first_half"].get<int64_t>(),
                e["launch_to_start_lag_ns"]["mean_second_half"].get<int64_t>());
    }
  }
  EXPECT_EQ(max_hb_id, host_bound_id);
  const json& o = d["overall"];
  EXPECT_EQ(cls["steps_by_class"], json({{"device-bound", 4}, {"host-bound", 1}}));
  EXPECT_EQ(o["sync_calls"], expected["trace"]["aclrt_synchronize_stream"]["count"]);
  EXPECT_EQ(o["free_ns"], expected["trace"]["overlap_totals_ns"]["Free"]);
  const json& tq = d["task_queue"];
  EXPECT_EQ(tq["flows"], expected["trace"]["flows_by_category"]["async_task_queue"]);
  EXPECT_EQ(tq["enqueue_slices"], expected["trace"]["enqueue"]);
  EXPECT_EQ(tq["dequeue_slices"], expected["trace"]["dequeue"]);
  EXPECT_EQ(tq["two_stage_active"], true);
  EXPECT_EQ(tq["task_queue_enable_env"], "1");
  // 136 host cpu_ops per step (ProfilerStep# excluded), counted by the Python reference.
  for (const auto& s : d["steps"]) EXPECT_EQ(s["host_ops"], 136);
  EXPECT_EQ(d["interruptions"]["count"], 0);  // allreduces (<= 800 µs) stay below 20x the median task
}

// The real torch_npu trace from mstt (test/ut/advisor/timeline_advice). Expected numbers come
// from an independent Python script (json + decimal modules only) over trace_view.json:
// - 274 HostToDevice pairs, all in ProfilerStep#1. This export has no Node@launch: the `s`
//   points lie inside AscendCL@aclnnXxx / AscendCL@aclopCompileAndExecute.
// - lag (f ts - s ts): min -18591, p10 -14961, p50 -8321, p90 5368, max 300535 ns,
//   mean -2709 (floor); 218 of 274 are negative: the device task starts before the host's
//   launch point, up to 17 µs before the enclosing AscendCL call even begins, so it is a
//   host/device clock offset, not causality.
// - flow 38654705663 (the first): s 1704161511422898.906, f ...422904.204 -> lag 5298 ns;
//   flow 47244640255: f ...422917.264 before s ...422926.436 -> lag -9172 ns.
// - 270 of 274 lags <= 50 µs; OLS of lag on launch ms since the step start:
//   slope 861.513 ns/ms, intercept -10526.38 ns, r2 0.007358.
// - busy = union of the 276 device tasks (all Task Type "Other"/"AI_CPU" -> compute, no HCCL):
//   1788267 ns; gaps 9481650 ns; gaps ending at a task with lag <= 50 µs: 9455360 ns
//   (269 gaps), the longest 1093430 ns before trans_Cast_0, launched inside
//   AscendCL@aclopCompileAndExecute (online compile on the launch path).
// - 710 cpu_op slices besides ProfilerStep#1 (50.38 per ms); 6 AscendCL@aclrtSynchronizeStream*
//   (4 plain + 2 WithTimeout), 1 aclrtSynchronizeDevice inside the step and 1 after it.
// - 148 async_task_queue pairs: p50 2410715, p90 3040841 ns (the dequeue thread runs ms behind).
TEST(Dispatch, RealMsttTimelineAdviceTrace) {
  std::string dir = npu::test::realdata_dir() + "/ascend_torch_npu/mstt_timeline_advice";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no " << dir;
  npu::RunModel m = npu::test::load_path(dir);
  int checked = 0;
  for (const auto& f : m.flows) {
    if (f.kind != npu::FlowKind::HostToDevice) continue;
    if (f.id == 38654705663LL) {
      EXPECT_EQ(f.end_ts - f.start_ts, 5298);
      ++checked;
    } else if (f.id == 47244640255LL) {
      EXPECT_EQ(f.end_ts - f.start_ts, -9172);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
  json d = dispatch_of(m);
  ASSERT_EQ(d["steps"].size(), 1u);
  const json& s = d["steps"][0];
  EXPECT_EQ(s["count"], 274);
  EXPECT_EQ(s["lag_min_ns"], -18591);
  EXPECT_EQ(s["lag_p10_ns"], -14961);
  EXPECT_EQ(s["lag_p50_ns"], -8321);
  EXPECT_EQ(s["lag_p90_ns"], 5368);
  EXPECT_EQ(s["lag_max_ns"], 300535);
  EXPECT_EQ(s["lag_mean_ns"], -2709);
  EXPECT_EQ(s["negative_lags"], 218);
  EXPECT_DOUBLE_EQ(s["vertical_share"].get<double>(), 270.0 / 274.0);
  EXPECT_NEAR(s["slope_ns_per_ms"].get<double>(), 861.513, 1e-3);
  EXPECT_NEAR(s["intercept_ns"].get<double>(), -10526.381, 1e-3);
  EXPECT_NEAR(s["r2"].get<double>(), 0.007358, 1e-6);
  EXPECT_EQ(s["free_ns"], 9481650);
  EXPECT_EQ(s["host_bound_free_ns"], 9455360);
  EXPECT_EQ(s["host_bound_gaps"], 269);
  EXPECT_EQ(s["device_time_ns"], 1788267 + 9481650);
  EXPECT_EQ(classes_of(d)["steps"][0]["class"], "host-bound");
  EXPECT_EQ(s["top_host_bound_gaps"][0]["dur_ns"], 1093430);
  EXPECT_EQ(s["top_host_bound_gaps"][0]["task"], "trans_Cast_0");
  EXPECT_NE(s["evidence"][1]["what"].get<std::string>().find("aclopCompileAndExecute"), std::string::npos);
  EXPECT_EQ(s["host_ops"], 710);
  EXPECT_EQ(s["sync_calls"], 6);
  EXPECT_EQ(s["device_sync_calls"], 1);
  EXPECT_EQ(d["overall"]["device_sync_calls"], 2);
  EXPECT_EQ(d["task_queue"]["flows"], 148);
  EXPECT_EQ(d["task_queue"]["latency_p50_ns"], 2410715);
  EXPECT_EQ(d["task_queue"]["latency_p90_ns"], 3040841);
  EXPECT_TRUE(d["task_queue"]["task_queue_enable_env"].is_null());  // no profiler_metadata.json
}
