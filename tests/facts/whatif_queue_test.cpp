// The replay's two-stage host pipeline (docs/whatif.md, "The task queue") on torch_npu traces
// built here, with the answers worked out by hand in the comments: the unmodified two-stage
// replay gives the measured step back, TASK_QUEUE_ENABLE=2 (task_queue) and CPU binding
// (cpu_binding) save what the comments compute, and the rules use those savings.
#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"
#include "trace_builder.h"

namespace {

using nlohmann::json;
using npu::test::TraceBuilder;

// An operator on the Python thread (pid 1 / CANN pid 2, tid 1) whose Enqueue at `enq` (1 us, or
// `enq_dur`) is dequeued 3 us after it ends on the queue thread (tid 5): a 10 us Dequeue holding
// a 2 us launch 2 us in, whose 5 us task starts 5 us after the launch.
void queued_op(TraceBuilder& b, int k, double enq, double enq_dur = 1, double deq_dur = 10) {
  const std::string id = std::to_string(k);
  b.x(1, 1, "Enqueue", enq, enq_dur, "enqueue");
  b.flow_point("async_task_queue", id, 's', 1, 1, enq);
  const double deq = enq + enq_dur + 3;
  b.x(1, 5, "Dequeue@aclnnAdd", deq, deq_dur, "dequeue");
  b.flow_point("async_task_queue", id, 'f', 1, 5, deq);
  b.x(2, 5, "Node@launch", deq + 2, 2);
  b.flow_point("HostToDevice", "9" + id, 's', 2, 5, deq + 3);
  b.task("add" + id, deq + 7, 5);
  b.flow_point("HostToDevice", "9" + id, 'f', 3, 3, deq + 7);
}

json whatif_of(const TraceBuilder& b) {
  return npu::compute_facts(npu::test::load_trace_text(b.json())).doc["whatif"];
}

// One step [0, 230) us. Operator k (k = 0..3) runs on the Python thread from 10 + 50k to 60 + 50k:
// its workspace call aclnnAddGetWorkspaceSize [10 + 50k, 30 + 50k), its Enqueue [55 + 50k, 60 +
// 50k). Its Dequeue [63 + 50k, 73 + 50k) launches at 65 + 50k a task [70 + 50k, 75 + 50k). A
// synchronize [218, 227) waits for the last task (ends 225), the step ends at 230.
TraceBuilder level1_trace() {
  TraceBuilder b;
  b.step(1, 0, 230);
  for (int k = 0; k < 4; ++k) {
    b.x(2, 1, "AscendCL@aclnnAddGetWorkspaceSize", 10 + 50 * k, 20);
    queued_op(b, k, 55 + 50 * k, 5);
  }
  b.x(2, 1, "AscendCL@aclrtSynchronizeStream", 218, 9);
  return b;
}

TEST(WhatIfQueue, TheTwoStageReplayGivesTheMeasuredStepBack) {
  const json w = whatif_of(level1_trace());
  ASSERT_EQ(w["available"], true) << w.dump();
  ASSERT_TRUE(w.contains("two_stage")) << w.dump();
  const json& q = w["two_stage"];
  EXPECT_EQ(q["queue_links"], 4);
  EXPECT_EQ(q["replayed_step_ns"], w["measured_step_ns"]);
  EXPECT_EQ(q["deviation"], 0.0);
  EXPECT_EQ(q["reproduces"], true);
  // Every Dequeue started 3 us after its Enqueue ended (its Enqueue held it: the queue was empty).
  EXPECT_EQ(q["queue_lag_ns"], 3'000);
}

// Level 2: the four 20 us workspace calls leave the Python thread and run on the queue thread
// just before their Dequeue. Python: Enqueue k now ends at 40 + 30k (20 us less per operator).
// Queue thread: Dequeue 0 starts 3 us after Enqueue 0 (43) plus its 20 us workspace: 63..73;
// Dequeue k>0 at max(Enqueue k's end + 3, the previous Dequeue's end) + 20 = 73 + 30(k - 1) + 20,
// so Dequeue 3 runs 153..163, its launch at 155 and its task 160..165. The synchronize now starts
// 8 us after Enqueue 3 (130 + 8 = 138) and waits for that task: it ends at 165 + 2 = 167; the
// step ends 3 us later, at 170 instead of 230: 60 us saved.
TEST(WhatIfQueue, TaskQueueLevel2MovesTheWorkspaceCallsToTheQueueThread) {
  const json w = whatif_of(level1_trace());
  const json& t = w["transforms"]["task_queue"];
  ASSERT_EQ(t["applicable"], true) << t.dump();
  EXPECT_EQ(t["saving_ns"], 60'000);
  EXPECT_NE(t["formula"].get<std::string>().find("4 aclnn workspace calls (0.080 ms per step)"), std::string::npos)
      << t["formula"];
  // Not combined with the one-lane transformations (another graph).
  for (const auto& n : w["combined"]["transforms"]) EXPECT_NE(n, "task_queue");
}

// A run of 100 such steps (300 us apart, ids 1..100): the two-stage graph holds the middle 64
// (kTwoStageSteps: indexes 18..81, ids 19..82), which replay as measured, and level 2 saves the
// same 60 us per step, with 4 workspace calls per step moved (256 in the block): a block of a
// steady loop gives the whole run's per-step saving. The one-lane replay holds all 100 steps.
TEST(WhatIfQueue, ARunOfManyStepsIsReplayedInTwoStagesOverItsMiddleBlock) {
  TraceBuilder b;
  for (int s = 0; s < 100; ++s) {
    const double o = 300.0 * s;
    b.step(s + 1, o, 230);
    for (int k = 0; k < 4; ++k) {
      b.x(2, 1, "AscendCL@aclnnAddGetWorkspaceSize", o + 10 + 50 * k, 20);
      queued_op(b, 4 * s + k, o + 55 + 50 * k, 5);
    }
    b.x(2, 1, "AscendCL@aclrtSynchronizeStream", o + 218, 9);
  }
  const json w = whatif_of(b);
  ASSERT_EQ(w["available"], true) << w.dump();
  EXPECT_EQ(w["steps"], 100);
  const json& q = w["two_stage"];
  EXPECT_EQ(q["steps"], 64);
  EXPECT_EQ(q["step_ids"], json({19, 82}));
  EXPECT_EQ(q["queue_links"], 256);
  EXPECT_EQ(q["reproduces"], true) << q.dump();
  EXPECT_EQ(q["measured_step_ns"], w["measured_step_ns"]);  // every step alike
  EXPECT_EQ(q["replayed_step_ns"], q["measured_step_ns"]);
  const json& t = w["transforms"]["task_queue"];
  ASSERT_EQ(t["applicable"], true) << t.dump();
  EXPECT_EQ(t["saving_ns"], 60'000);
  EXPECT_NE(t["formula"].get<std::string>().find("256 aclnn workspace calls (0.080 ms per step)"), std::string::npos)
      << t["formula"];
}

// Without workspace calls on the Python thread, level 2 has nothing to move; without the queue's
// arrows there is no second stage at all.
TEST(WhatIfQueue, TaskQueueNeedsWorkspaceCallsAndTheQueue) {
  TraceBuilder b;
  b.step(1, 0, 100);
  queued_op(b, 0, 10);
  EXPECT_EQ(whatif_of(b)["transforms"]["task_queue"]["applicable"], false);
  TraceBuilder c;
  c.step(1, 0, 100);
  c.launch(10, 20, 5);
  const json w = whatif_of(c);
  EXPECT_FALSE(w.contains("two_stage"));
  EXPECT_NE(w["transforms"]["task_queue"]["why"].get<std::string>().find("task queue is off"), std::string::npos);
}

// 64 operators: Enqueues 10 us apart but for operators 32..47, 30 us apart. Stretches of 16 from
// the first Enqueue's start to the last one's end: 3 x 151 us (9437 ns per operator, the median:
// the lower middle of four) and one of 451 us (28187 ns, over twice the median). It runs at the
// median: f = (451000 - 16 x 9437) / 451000 of each operator's 30 us (the last one's 1 us) comes
// off: 15 x floor(30000 f) + floor(1000 f) = 15 x 19956 + 665 = 300005 ns. The queue thread
// follows each Enqueue (3 us after it), so the step ends that much earlier.
TEST(WhatIfQueue, CpuBindingRunsTheSlowStretchAtTheMedianRate) {
  TraceBuilder b;
  double t = 10;
  for (int k = 0; k < 64; ++k) {
    queued_op(b, k, t, 1, 2);
    t += (k >= 31 && k < 47) ? 30 : 10;
  }
  b.x(2, 1, "AscendCL@aclrtSynchronizeStream", t, 20);
  b.step(1, 0, t + 30);
  const json w = whatif_of(b);
  ASSERT_EQ(w["two_stage"]["reproduces"], true) << w["two_stage"].dump();
  const json& c = w["transforms"]["cpu_binding"];
  ASSERT_EQ(c["applicable"], true) << c.dump();
  EXPECT_EQ(c["saving_ns"], 300'005);
  EXPECT_NE(c["formula"].get<std::string>().find("1 of 4 stretches of 16 operators"), std::string::npos) << c["formula"];
  EXPECT_NE(c["formula"].get<std::string>().find("median 9.44 us"), std::string::npos) << c["formula"];
}

}  // namespace
