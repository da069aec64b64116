// The serving what-ifs (docs/whatif.md, "Serving": async_scheduling, capture_sizes) on small
// Kineto traces of an engine's iterations, worked out by hand: times in us in the trace, ns in
// the facts. A serving run's savings are of the iteration period, its window and the host's turn
// after it, which lies in no step.
#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "kineto_text.h"
#include "rules/rule_engine.h"
#include "test_support.h"

namespace {

using nlohmann::json;

using npu::test::kineto::close;
using npu::test::kineto::facts_of;
using npu::test::kineto::header;
using npu::test::kineto::host;
using npu::test::kineto::kernel;

// One synchronous decode iteration of SGLang at `t0`: its annotation 1200 us long, four launches
// (5 us, from t0 + 10 every 20 us) of 200 us kernels back to back from t0 + 20 (first_kernel_at:
// the first one later, after a hole), and a synchronize from t0 + 100 until the last kernel ends
// (+ 5 us). `corr`: the first correlation id.
std::string sync_iteration(double t0, int corr, double first_kernel_at = -1, double annotation_us = 1200) {
  std::string t = host("user_annotation", "step[DECODE bs=8]", t0, annotation_us);
  t += host("cpu_op", "aten::argmax", t0 + 1, 2);  // the sampler's operator
  double k = first_kernel_at < 0 ? t0 + 20 : first_kernel_at;
  for (int j = 0; j < 4; ++j) {
    t += host("cuda_runtime", "cudaLaunchKernel", t0 + 10 + 20 * j, 5, corr + j);
    t += kernel("decode_kernel", k, 200, corr + j);
    k += 200;
  }
  t += host("cuda_runtime", "cudaStreamSynchronize", t0 + 100, k + 5 - (t0 + 100));
  return t;
}

// Three iterations 3000 us apart: each window is its annotation, 1200 us (the device runs 800 us
// of it); between two the host takes 1800 us of turn with the device idle. The period: (3 x 1200
// + 2 x 1800) / 3 = 2400 us. Async scheduling overlaps each turn with the iteration before it, at
// most its 1200 us window: the turns become 600 us, the period (3 x 1200 + 2 x 600) / 3 = 1600 us,
// a saving of 800 us per iteration.
TEST(WhatIfServing, AsyncSchedulingOverlapsTheTurnBetweenIterations) {
  std::string t = header();
  for (int i = 0; i < 3; ++i) t += sync_iteration(1000 + 3000 * i, 1 + 10 * i);
  const npu::Facts f = facts_of(close(t));
  const json& w = f.doc["whatif"];
  ASSERT_TRUE(w["reproduces"].get<bool>()) << w.dump();
  EXPECT_EQ(w["measured_step_ns"], 1200000);
  EXPECT_EQ(w["period"]["measured_ns"], 2400000);
  EXPECT_EQ(w["period"]["replayed_ns"], 2400000);
  EXPECT_EQ(w["period"]["measured_turn_ns"], 1200000);  // 2 x 1800 / 3
  const json& a = w["transforms"]["async_scheduling"];
  ASSERT_TRUE(a["applicable"].get<bool>()) << a.dump();
  EXPECT_EQ(a["host_turn_ns"], 1200000);
  EXPECT_EQ(a["period_ns"], 1600000);
  EXPECT_EQ(a["saving_ns"], 800000);
  EXPECT_EQ(a["step_ns"], 1200000);  // no window changes: the saving is the turn's
  EXPECT_EQ(f.doc["idle_attribution"]["turns_ns"], 3600000);
  EXPECT_EQ(w["transforms"]["capture_sizes"]["why"],
            "no iteration replays a graph: nothing to time a captured iteration by (graphs applies)");

  // The rule's finding: the turn's pool, SGLang's overlap scheduler, the replayed saving.
  npu::RuleEngine engine;
  engine.add_builtin_rules();
  bool found = false;
  for (const auto& o : engine.run(f))
    for (const json& x : o.findings) {
      if (x["rule"] != "dispatch.async_scheduling") continue;
      found = true;
      EXPECT_EQ(x["pool"], "turn");
      EXPECT_EQ(x["saving_method"], "replay");
      EXPECT_EQ(x["saving_ns"], 800000);
      EXPECT_NE(x["action"].get<std::string>().find("overlap scheduler"), std::string::npos) << x["action"];
      EXPECT_NE(x["observed"].get<std::string>().find("1.200 ms per iteration"), std::string::npos) << x["observed"];
    }
  EXPECT_TRUE(found);
}

// The second iteration's kernels wait from 4015 to 5500 us on work the trace does not hold (a
// hole: the engine had queued it behind the previous batch, scheduled ahead already). Its turn,
// 5500 - 2200 - 1485 = 1815 us, is measured; async scheduling moves its host earlier but not the
// kernel after the hole: nothing saved.
TEST(WhatIfServing, ATurnBeforeAHoleSavesNothing) {
  std::string t = header();
  t += sync_iteration(1000, 1);
  t += sync_iteration(4000, 11, 5500, 2400);
  const npu::Facts f = facts_of(close(t));
  const json& w = f.doc["whatif"];
  ASSERT_TRUE(w["reproduces"].get<bool>()) << w.dump();
  EXPECT_EQ(w["period"]["measured_turn_ns"], 1815000 / 2);
  const json& a = w["transforms"]["async_scheduling"];
  ASSERT_TRUE(a["applicable"].get<bool>()) << a.dump();
  EXPECT_EQ(a["saving_ns"], 0);
}

// A graphed decode iteration at `t0`: one cudaGraphLaunch (10 us) of four 20 us kernels 2 us
// apart from t0 + 30.
std::string graphed_iteration(double t0, int corr) {
  std::string t = host("user_annotation", "step[DECODE bs=8]", t0, 300);
  t += host("cuda_runtime", "cudaGraphLaunch", t0 + 10, 10, corr);
  for (int j = 0; j < 4; ++j) t += kernel("graph_kernel", t0 + 30 + 22 * j, 20, corr);
  return t;
}

// Two graphed decode iterations and one eager (bs=16: four 5 us launches at t0 + 10, 60, 110, 160
// of 20 us kernels 10 us after each; the annotation ends at t0 + 300). capture_sizes makes the
// eager launches one graph launch at the trace's graph costs: 10 / 4 = 2.5 us per node (below the
// 5 us median launch), so the host's time from t0 + 10 + 4 x 2.5 to the last launch's end,
// t0 + 165, is removed: 145 us. The annotation's end, the window's, comes 145 us earlier (the
// relaunched kernels end at t0 + 20 + 4 x 20 + 3 x 2 = t0 + 106, before it): 145 / 3 iterations.
TEST(WhatIfServing, CaptureSizesReplaysTheEagerDecodeIterationsFromGraphs) {
  std::string t = header();
  t += graphed_iteration(1000, 1);
  t += graphed_iteration(2000, 2);
  t += host("user_annotation", "step[DECODE bs=16]", 3000, 300);
  for (int j = 0; j < 4; ++j) {
    t += host("cuda_runtime", "cudaLaunchKernel", 3010 + 50 * j, 5, 10 + j);
    t += kernel("eager_kernel", 3020 + 50 * j, 20, 10 + j);
  }
  const npu::Facts f = facts_of(close(t));
  const json& w = f.doc["whatif"];
  ASSERT_TRUE(w["reproduces"].get<bool>()) << w.dump();
  const json& c = w["transforms"]["capture_sizes"];
  ASSERT_TRUE(c["applicable"].get<bool>()) << c.dump();
  EXPECT_EQ(c["eager_iterations"], 1);
  EXPECT_EQ(c["saving_ns"], 145000 / 3);
  EXPECT_NE(c["formula"].get<std::string>().find("host cost 2.50 us per graph node, kernels 2.00 us apart"),
            std::string::npos)
      << c["formula"];
}

// A training-style run (ProfilerStep#N) is no serving run: neither applies, and no period is said.
TEST(WhatIfServing, StepsThatAreNotIterationsHaveNoPeriod) {
  std::string t = header(500);
  t += host("cuda_runtime", "cudaLaunchKernel", 1010, 5, 1);
  t += kernel("k", 1020, 100, 1);
  const json w = facts_of(close(t)).doc["whatif"];
  EXPECT_FALSE(w.contains("period"));
  EXPECT_EQ(w["transforms"]["async_scheduling"]["why"], "the steps are not a serving engine's iterations");
  EXPECT_EQ(w["transforms"]["capture_sizes"]["applicable"], false);
}

}  // namespace
