// A serving engine on Ascend (docs/facts-inference.md, "Ascend"): hand-built torch_npu text
// exports (tests/trace_builder.h: Python pid 1, CANN pid 2, device pid 3; times in us, ns in the
// facts) written from the formats' documentation, since no public vLLM-Ascend profile exists:
// vLLM-Ascend's model runner stages (VLLM_CUSTOM_SCOPES_FOR_PROFILING=1) around ACL graph replays
// (AscendCL@aclmdlRIExecuteAsync, whose tasks have no launch arrow). Answers worked out below.
#include <string>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "model/engine_patterns.h"
#include "test_support.h"
#include "trace_builder.h"

using nlohmann::json;

namespace {

// Three decode iterations, 1000 us apart, from b = 100 + 1000 k. Each: "prepare input" [b, b+200]
// launching one task (b+60, 20 us); "forward" [b+220, b+320] replaying a graph from
// aclmdlRIExecuteAsync at b+230 (two tasks: b+245 150 us, b+400 150 us); "post process"
// [b+330, b+380]; "sample_token" [b+400, b+700] launching the sampler (b+560, 20 us: after the
// graph). Own window b+60 -> b+580 = 520 us; busy 20 + 150 + 150 + 20 = 340 us, 300 of them from
// the graph; the window ends with the host span at b+700, and the turn to the next iteration's
// first task (b+1060) is 360 us.
std::string vllm_ascend_decode(bool stages = true, bool frames = false) {
  npu::test::TraceBuilder t;
  int id = 0;
  auto arrow = [&](double from, double to) {
    const std::string f = std::to_string(++id);
    t.cann("Node@launch", from - 1, 2);
    t.flow_point("HostToDevice", f, 's', 2, 2, from);
    t.flow_point("HostToDevice", f, 'f', 3, 3, to);
  };
  t.host_op("forward", 10, 20);  // a "forward" before any opening stage: no iteration of its own
  for (int k = 0; k < 3; ++k) {
    const double b = 100 + 1000.0 * k;
    if (frames) t.x(1, 1, "vllm_ascend/worker/model_runner_v1.py(1777): execute_model", b, 700, "python_function");
    if (stages) {
      t.host_op("prepare input", b, 200);
      t.host_op("forward", b + 220, 100);
      t.host_op("post process", b + 330, 50);
      t.host_op("sample_token", b + 400, 300);
    }
    arrow(b + 50, b + 60), t.task("PrepareInputs", b + 60, 20);
    t.cann("AscendCL@aclmdlRIExecuteAsync", b + 230, 10);
    t.task("MatMulV2", b + 245, 150), t.task("FusedInferAttentionScore", b + 400, 150);
    arrow(b + 420, b + 560), t.task("ArgMaxV2", b + 560, 20);
  }
  return t.json();
}

TEST(AscendServing, TheModelRunnersStagesMakeTheIterationsTheSteps) {
  const npu::RunModel m = npu::test::load_trace_text(vllm_ascend_decode());
  ASSERT_EQ(m.steps.size(), 3u);
  EXPECT_TRUE(m.meta.engine_iteration_steps);
  EXPECT_EQ(m.meta.step_source, "engine iteration");
  // From the opening stage's start to the last stage's end.
  EXPECT_EQ(m.steps[0].start - npu::test::TraceBuilder::kBaseNs, 100'000);
  EXPECT_EQ(m.steps[0].end - npu::test::TraceBuilder::kBaseNs, 800'000);
  EXPECT_EQ(m.steps[2].start - npu::test::TraceBuilder::kBaseNs, 2'100'000);
}

TEST(AscendServing, IterationsGetTheirTasksGraphReplaysIncluded) {
  npu::Facts f = npu::compute_facts(npu::test::load_trace_text(vllm_ascend_decode()));
  ASSERT_TRUE(f.has("inference")) << f.doc["unavailable"].dump();
  const json& inf = f.doc["inference"];
  EXPECT_EQ(inf["kind"], "serving");
  EXPECT_EQ(inf["engine"], "vllm_ascend");
  ASSERT_EQ(inf["iterations"].size(), 3u);
  for (const json& it : inf["iterations"]) {
    EXPECT_EQ(it["pattern"], "vllm_ascend_stages");
    EXPECT_EQ(it["phase"], "unknown");  // the stages do not say the batch
    EXPECT_EQ(it["device_ops"], 4);
    EXPECT_EQ(it["graph_ops"], 2);
    EXPECT_EQ(it["own_window_ns"], 520'000);
    EXPECT_EQ(it["busy_ns"], 340'000);
    EXPECT_NEAR(it["graph_share"].get<double>(), 300.0 / 340.0, 1e-12);
    EXPECT_EQ(it["hole_ns"], 0);
  }
  // Every task of the run is an iteration's, and the graph execution facts count the same replays.
  EXPECT_EQ(f.doc["graph_execution"]["graph_tasks"], 6);
  EXPECT_EQ(f.doc["graph_execution"]["other_tasks"], 6);
}

TEST(AscendServing, TheStepWindowsAreTheIterationsOwnWindows) {
  npu::Facts f = npu::compute_facts(npu::test::load_trace_text(vllm_ascend_decode()));
  const json& steps = f.doc["steps"];
  ASSERT_EQ(steps.size(), 3u) << f.doc["steps"].dump().substr(0, 400);
  // Each window: its first task (b+60) to the host span's end (b+700, after the sampler's end).
  for (const json& s : steps) {
    const json& w = s["device_window"];
    EXPECT_EQ(w["end_ns"].get<int64_t>() - w["start_ns"].get<int64_t>(), 640'000) << s.dump();
    EXPECT_EQ(w["launched_tasks"], 4);
    EXPECT_EQ(s["evidence"][0]["what"].get<std::string>().rfind("engine iteration ", 0), 0u) << s.dump();
  }
  // Between two windows the device idles 360 us: the host's turn, in no step.
  EXPECT_EQ(f.doc["idle_attribution"]["turns_ns"], 2 * 360'000);
}

TEST(AscendServing, WithoutTheStagesTheRunStaysOnePseudoStep) {
  const npu::RunModel m = npu::test::load_trace_text(vllm_ascend_decode(false));
  EXPECT_TRUE(m.steps.empty());
  EXPECT_FALSE(m.meta.engine_iteration_steps);
}

// vLLM-Ascend's frames (with_stack) but no stages: the run stays one pseudo-step, and the facts say
// why the iterations are not known and how to get them.
TEST(AscendServing, AnEngineWithoutIterationMarksIsSaidWithHowToGetThem) {
  npu::Facts f = npu::compute_facts(npu::test::load_trace_text(vllm_ascend_decode(false, true)));
  EXPECT_FALSE(f.has("inference"));
  std::string why;
  for (const json& u : f.doc["unavailable"])
    if (u["fact"] == "inference") why = u["why"];
  EXPECT_NE(why.find("the vllm_ascend engine ran"), std::string::npos) << why;
  EXPECT_NE(why.find("VLLM_CUSTOM_SCOPES_FOR_PROFILING=1"), std::string::npos) << why;
}

}  // namespace
