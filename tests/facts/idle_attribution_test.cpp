// facts.idle_attribution (facts/diagnostics/idle_attribution.cpp, docs/facts-idle.md): hand-built
// traces whose every idle microsecond has a cause worked out by hand, and a real trace against
// the profiler's own step_trace_time.csv.
#include <string>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "facts/facts_schema.h"
#include "test_support.h"
#include "trace_builder.h"

using nlohmann::json;
using npu::test::TraceBuilder;

namespace {

constexpr npu::Ns us(double v) { return static_cast<npu::Ns>(v * 1000); }

json attribution_of(const std::string& trace) {
  npu::Facts f = npu::compute_facts(npu::test::load_trace_text(trace));
  for (const auto& problem : npu::validate_facts(f.doc, npu::FactsSchema::builtin(), true)) ADD_FAILURE() << problem;
  EXPECT_TRUE(f.doc.contains("idle_attribution"));
  return f.doc.value("idle_attribution", json::object());
}

npu::Ns cause_ns(const json& a, const char* cause) { return a["causes"][cause]["ns"].get<npu::Ns>(); }

}  // namespace

// One step [0, 1000) µs. Device tasks (launch -> task):
//   A 100 -> [102, 200)  B 300 -> [302, 400)  C 500 -> [600, 700) (lag 100: not vertical)
//   D 760 -> [762, 800)  E 870 -> [871, 900)
// Host: dataloader [10, 90), compile [210, 290), GC [410, 450), aclrtSynchronizeStream
// [650, 705), c10d::barrier [810, 850).
// Idle and its causes:
//   Preparing [0, 102): dataloader 80; the rest (22) unexplained (no gap before the first task,
//     so no launch to judge it by).
//   [200, 302): compile 80; the rest (22) host launch (B's launch is vertical).
//   [400, 600): GC 40; the rest (160) unexplained (C's launch is not vertical).
//   [700, 762): the sync covers 5; the gap began inside it, so the rest (57) is sync too: 62.
//   [800, 871): barrier 40; the rest (31) host launch.
// Totals: compile 80, gc 40, sync 62, dataloader 80, communication_wait 40, host_launch 53,
// unexplained 182; idle 537; computing 98+98+100+38+29 = 363; step 900.
TEST(IdleAttribution, EveryCauseOnAHandBuiltStep) {
  TraceBuilder b;
  b.step(1, 0, 1000);
  b.host_op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10, 80);
  b.launch(100, 102, 98);
  b.cann("AscendCL@aclopCompileAndExecute", 210, 80);
  b.launch(300, 302, 98);
  b.gc(410, 40);
  b.launch(500, 600, 100);
  b.cann("AscendCL@aclrtSynchronizeStream", 650, 55);
  b.launch(760, 762, 38);
  b.host_op("c10d::barrier", 810, 40);
  b.launch(870, 871, 29);
  const json a = attribution_of(b.json());
  EXPECT_EQ(cause_ns(a, "compile"), us(80));
  EXPECT_EQ(cause_ns(a, "gc"), us(40));
  EXPECT_EQ(cause_ns(a, "sync"), us(62));
  EXPECT_EQ(cause_ns(a, "dataloader"), us(80));
  EXPECT_EQ(cause_ns(a, "communication_wait"), us(40));
  EXPECT_EQ(cause_ns(a, "host_launch"), us(53));
  EXPECT_EQ(cause_ns(a, "unexplained"), us(182));
  EXPECT_EQ(a["idle_ns"].get<npu::Ns>(), us(537));
  EXPECT_EQ(a["computing_ns"].get<npu::Ns>(), us(363));
  EXPECT_EQ(a["step_ns"].get<npu::Ns>(), us(900));
  EXPECT_TRUE(a["host_launch_judged"].get<bool>());
  // The longest compile stretch points at the compile call.
  const json& ev = a["causes"]["compile"]["longest"][0]["evidence"][0];
  EXPECT_TRUE(ev.contains("byte"));
  EXPECT_EQ(a["by_step"].size(), 1u);
  EXPECT_EQ(a["by_step"][0]["idle_ns"].get<npu::Ns>(), us(537));
}

// Two steps: step 1 [0, 500) runs a task [10, 100), step 2 [500, 1000) a task [600, 700). The gap
// [100, 600) is step 1's Free (it starts in step 1's window) and holds step 2's Preparing
// [500, 600): the profiler counts those 100 µs twice, the split once. Idle: step 1's Preparing
// [0, 10) + the gap 500 = 510.
TEST(IdleAttribution, PreparingInsideThePreviousGapCountsOnce) {
  TraceBuilder b;
  b.step(1, 0, 500);
  b.launch(5, 10, 90);
  b.step(2, 500, 500);
  b.launch(598, 600, 100);
  npu::Facts f = npu::compute_facts(npu::test::load_trace_text(b.json()));
  const json& o = f.doc["overall"];
  EXPECT_EQ(o["free_ns"].get<npu::Ns>() + o["preparing_ns"].get<npu::Ns>(), us(610));
  const json& a = f.doc["idle_attribution"];
  EXPECT_EQ(a["idle_ns"].get<npu::Ns>(), us(510));
  EXPECT_EQ(a["by_step"][0]["idle_ns"].get<npu::Ns>(), us(510));
  EXPECT_EQ(a["by_step"][1]["idle_ns"].get<npu::Ns>(), 0);
  EXPECT_EQ(cause_ns(a, "host_launch"), us(500));  // the gap ends with a vertical launch (lag 2)
  EXPECT_EQ(cause_ns(a, "unexplained"), us(10));   // step 1's Preparing: no gap before it
}

// No device timeline: nothing to split, and the facts say so.
TEST(IdleAttribution, UnavailableWithoutDeviceTasks) {
  TraceBuilder b;
  b.step(1, 0, 500);
  b.host_op("aten::add", 10, 5);
  npu::Facts f = npu::compute_facts(npu::test::load_trace_text(b.json("")));
  EXPECT_FALSE(f.doc.contains("idle_attribution"));
  EXPECT_TRUE(npu::test::is_unavailable(f.doc, "idle_attribution"));
}
