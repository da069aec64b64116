// The "inference" facts (facts/diagnostics/inference.cpp, facts/inference/iterations.h) on small
// Kineto traces whose answers are read off them: times in us in the trace, ns in the facts.
#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "kineto_text.h"
#include "model/engine_patterns.h"
#include "test_support.h"

namespace {

using nlohmann::json;

using npu::test::kineto::close;
using npu::test::kineto::facts_of;
using npu::test::kineto::host;
using npu::test::kineto::kernel;

std::string header(const std::string& step = "") { return npu::test::kineto::header(step.empty() ? 0 : 1000, step); }

// The engine's iterations are the run's steps: the outermost annotations, a nested one filling in
// what the outer name does not say; a capture is not one.
TEST(Inference, EngineIterationsAreTheRunsSteps) {
  std::string t = header();
  t += host("user_annotation", "execute_32_context_0(sq0)_generation_32(sq32)", 1000, 100);
  t += host("user_annotation", "step[DECODE bs=32]", 1001, 90);
  t += host("user_annotation", "capture_32_FULL", 1200, 50);
  t += host("user_annotation", "step[EXTEND bs=4 toks=512]", 1300, 40);
  t += host("cuda_runtime", "hipLaunchKernel", 1010, 5, 1);
  t += kernel("a", 1020, 10, 1);
  npu::test::TempDir dir;
  const npu::RunModel m = npu::test::load_path(dir.write("t.pt.trace.json", close(t)));
  const auto its = npu::engine_iterations(m);
  ASSERT_EQ(its.size(), 2u);
  EXPECT_EQ(its[0].match.phase, npu::InferencePhase::Decode);
  EXPECT_EQ(its[0].match.requests, 32);
  EXPECT_EQ(its[1].match.phase, npu::InferencePhase::Prefill);
  EXPECT_EQ(its[1].match.tokens, 512);
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[0].start, 1000'000);
  EXPECT_EQ(m.steps[1].start, 1300'000);
  EXPECT_EQ(m.meta.step_source, "engine iteration");
  EXPECT_TRUE(m.meta.engine_iteration_steps);
}

// vLLM V1's model-runner stages (no iteration annotation): an opening "preprocess" and the stages
// after it make one iteration each, up to the next opening one; a lone "forward" before the first
// makes none. Two iterations, 1000 -> 1300 and 1500 -> 1800 us.
TEST(Inference, ModelRunnerStagesMakeTheIterations) {
  std::string t = header();
  t += host("user_annotation", "gpu_model_runner: forward", 900, 50);
  for (double b : {1000.0, 1500.0}) {
    t += host("user_annotation", "gpu_model_runner: preprocess", b, 50);
    t += host("user_annotation", "gpu_model_runner: forward", b + 60, 100);
    t += host("cuda_runtime", "cudaLaunchKernel", b + 70, 5, static_cast<int>(b));
    t += kernel("gemm", b + 80, 40, static_cast<int>(b));
    t += host("user_annotation", "gpu_model_runner: sample", b + 200, 100);
  }
  npu::test::TempDir dir;
  const npu::RunModel m = npu::test::load_path(dir.write("t.pt.trace.json", close(t)));
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[0].start, 1000'000);
  EXPECT_EQ(m.steps[0].end, 1300'000);
  EXPECT_EQ(m.steps[1].start, 1500'000);
  EXPECT_TRUE(m.meta.engine_iteration_steps);
  const json f = facts_of(close(t)).doc;
  EXPECT_EQ(f["inference"]["engine"], "vllm");
  EXPECT_EQ(f["inference"]["iterations"][0]["pattern"], "vllm_v1_stages");
  EXPECT_EQ(f["inference"]["iterations"][1]["own_window_ns"], 40'000);
}

// A cut SGLang decode window: TraceLens's execute_* around SGLang's step[DECODE bs=4]; a kernel of
// the previous iteration (launched before the window) ends inside it, then one eager kernel and a
// graph replay of two kernels. Own window 1400 -> 1600 us; busy 50 + 60 + 40 = 150 us, 100 of them
// replayed.
TEST(Inference, ACutSglangDecodeIterationGetsItsOwnWindow) {
  std::string t = header();
  t += host("user_annotation", "execute_4_context_0(sq0sk0sqsq0sqsk0)_generation_4(sq4sk40sqsq4sqsk40)", 1000, 900);
  t += host("user_annotation", "step[DECODE bs=4]", 1010, 880);
  t += host("cuda_runtime", "hipLaunchKernel", 950, 5, 1);  // before the window: not the iteration's
  t += kernel("prev", 1000, 300, 1);
  t += host("cuda_runtime", "hipLaunchKernel", 1100, 5, 2);
  t += kernel("eager", 1400, 50, 2);
  t += host("cuda_runtime", "hipGraphLaunch", 1200, 5, 3);
  t += kernel("replay_a", 1500, 60, 3);
  t += kernel("replay_b", 1560, 40, 3);
  const json j = facts_of(close(t)).doc["inference"];
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["kind"], "serving");
  EXPECT_EQ(j["engine"], "sglang");  // step[...] names it; the execute_* around it does not decide
  EXPECT_EQ(j["summary"], "serving: 1 iteration (decode, 4 requests)");
  ASSERT_EQ(j["evidence"].size(), 1u);
  EXPECT_GT(j["evidence"][0]["byte"].get<int64_t>(), 0);
  ASSERT_EQ(j["iterations"].size(), 1u);
  const json& it = j["iterations"][0];
  EXPECT_EQ(it["pattern"], "vllm_detailed");  // the outermost annotation
  EXPECT_EQ(it["phase"], "decode");
  EXPECT_EQ(it["requests"], 4);
  EXPECT_EQ(it["tokens"], 4);
  EXPECT_EQ(it["start_ns"], 1000000);
  EXPECT_EQ(it["end_ns"], 1900000);
  EXPECT_EQ(it["device_ops"], 3);
  EXPECT_EQ(it["device_start_ns"], 1400000);
  EXPECT_EQ(it["device_end_ns"], 1600000);
  EXPECT_EQ(it["own_window_ns"], 200000);
  EXPECT_DOUBLE_EQ(it["tokens_per_s"].get<double>(), 4 / 200e-6);  // 4 tokens in 200 us
  EXPECT_EQ(it["busy_ns"], 150000);
  EXPECT_NEAR(it["graph_share"].get<double>(), 100.0 / 150.0, 1e-9);
  EXPECT_TRUE(j["capture"].is_null());
}

// A hole: the op launched at 1100 us waits until 4000 us while none of the iteration's ops runs
// (work the trace does not hold): 2.9 ms of hole, the own window from 4000 to 4050 us.
TEST(Inference, AHoleIsLeftOutOfTheOwnWindow) {
  std::string t = header();
  t += host("user_annotation", "step[DECODE bs=2]", 1000, 500);
  t += host("cuda_runtime", "cudaLaunchKernel", 1010, 5, 1);
  t += kernel("first", 1020, 10, 1);
  t += host("cuda_runtime", "cudaLaunchKernel", 1100, 5, 2);
  t += kernel("waited", 4000, 50, 2);
  const json it = facts_of(close(t)).doc["inference"]["iterations"][0];
  EXPECT_EQ(it["hole_ns"], 2895000) << it.dump();  // 1105 -> 4000 us
  EXPECT_EQ(it["device_start_ns"], 4000000);
  EXPECT_EQ(it["own_window_ns"], 50000);
  EXPECT_EQ(it["busy_ns"], 60000);
}

// Iterations whose names carry the batch (bs=4, bs=3) are one kind: two iterations, in order.
TEST(Inference, NamesThatCarryTheBatchAreIterationsInOrder) {
  std::string t = header();
  t += host("user_annotation", "step[DECODE bs=4]", 1000, 100);
  t += host("cuda_runtime", "cudaLaunchKernel", 1010, 5, 1);
  t += kernel("a", 1020, 30, 1);
  t += host("user_annotation", "step[EXTEND bs=3 toks=300]", 1200, 100);
  t += host("cuda_runtime", "cudaLaunchKernel", 1210, 5, 2);
  t += kernel("b", 1220, 70, 2);
  const json j = facts_of(close(t)).doc["inference"];
  ASSERT_EQ(j["iterations"].size(), 2u) << j.dump();
  EXPECT_EQ(j["summary"], "serving: 2 iterations (3-4 requests)");
  // one phase each, in the order prefill, decode; a gap of 1220 - 1050 = 170 us of device idle
  ASSERT_EQ(j["phases"].size(), 2u);
  EXPECT_EQ(j["phases"][0]["phase"], "prefill");
  EXPECT_EQ(j["phases"][0]["own_window_median_ns"], 70000);
  EXPECT_EQ(j["phases"][1]["phase"], "decode");
  EXPECT_EQ(j["phases"][1]["own_window_median_ns"], 30000);
  ASSERT_EQ(j["gaps"].size(), 1u);
  EXPECT_EQ(j["gaps"][0]["device_idle_ns"], 170000);
  EXPECT_EQ(j["gaps"][0]["host_ns"], 100000);
  EXPECT_EQ(j["iterations"][0]["requests"], 4);
  EXPECT_EQ(j["iterations"][0]["phase"], "decode");
  EXPECT_EQ(j["iterations"][0]["busy_ns"], 30000);
  EXPECT_EQ(j["iterations"][1]["requests"], 3);
  EXPECT_EQ(j["iterations"][1]["phase"], "prefill");
  EXPECT_EQ(j["iterations"][1]["tokens"], 300);
  EXPECT_EQ(j["iterations"][1]["own_window_ns"], 70000);
  EXPECT_TRUE(j["iterations"][1]["graph_share"] == 0.0);
}

// A start-up capture: capture_4_FULL, one stream capture and one instantiation inside, a graph
// of another batch outside; the engine from a vLLM Python frame.
TEST(Inference, AStartUpCaptureIsNotServing) {
  std::string t = header();
  t += host("python_function", "vllm/v1/worker/gpu_model_runner.py(3000): capture_model", 990, 500);
  t += host("user_annotation", "capture_4_FULL", 1000, 400);
  t += host("cuda_runtime", "cudaStreamBeginCapture", 1010, 2);
  t += host("cuda_runtime", "cudaStreamEndCapture", 1300, 2);
  t += host("cuda_runtime", "cudaGraphInstantiateWithFlags", 1310, 20);
  t += host("cuda_runtime", "cudaStreamBeginCapture", 1450, 2);
  t += host("cuda_runtime", "cudaLaunchKernel", 1010, 5, 1);
  t += kernel("warmup", 1020, 3, 1);
  const json j = facts_of(close(t)).doc["inference"];
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["kind"], "graph_capture");
  EXPECT_EQ(j["engine"], "vllm");
  EXPECT_EQ(j["summary"], "graph capture: start-up, not serving");
  EXPECT_TRUE(j["iterations"].empty());
  const json& c = j["capture"];
  ASSERT_EQ(c["graphs"].size(), 1u);
  EXPECT_EQ(c["graphs"][0]["batch_size"], 4);
  EXPECT_EQ(c["graphs"][0]["mode"], "FULL");
  EXPECT_EQ(c["graphs"][0]["stream_captures"], 1);
  EXPECT_EQ(c["graphs"][0]["instantiations"], 1);
  EXPECT_EQ(c["stream_captures"], 2);
  EXPECT_EQ(c["instantiations"], 1);
}

// HF generate() without stacks: a ProfilerStep with the stopping criteria's isin and one argmax
// per token is one request of 3 tokens.
TEST(Inference, AGenerateLoopIsKnownByItsSignature) {
  std::string t = header("ProfilerStep#1");
  t += host("cpu_op", "aten::isin", 1005, 5);
  for (int k = 0; k < 3; ++k) {
    const double at = 1100 + 200 * k;
    t += host("cpu_op", "aten::linear", at, 20);
    t += host("cuda_runtime", "cudaLaunchKernel", at + 5, 5, k + 1);
    t += kernel("gemm", at + 20, 10, k + 1);
    t += host("cpu_op", "aten::argmax", at + 40, 5);
  }
  const json j = facts_of(close(t)).doc["inference"];
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["kind"], "generate_loop");
  EXPECT_EQ(j["engine"], "hf_generate");
  ASSERT_EQ(j["iterations"].size(), 1u);
  EXPECT_EQ(j["iterations"][0]["tokens"], 3);
  EXPECT_EQ(j["iterations"][0]["pattern"], "hf_generate_step");
  EXPECT_EQ(j["iterations"][0]["device_ops"], 3);
  EXPECT_EQ(j["iterations"][0]["busy_ns"], 30000);
  EXPECT_EQ(j["iterations"][0]["own_window_ns"], 410000);  // 1120 -> 1530 us
}

// A training step with the same ops, and a forward no engine names: no section.
TEST(Inference, TrainingAndUnnamedRunsHaveNoSection) {
  std::string t = header("ProfilerStep#1");
  t += host("cpu_op", "aten::isin", 1005, 5);
  t += host("cpu_op", "aten::argmax", 1100, 5);
  t += host("cpu_op", "aten::argmax", 1200, 5);
  t += host("cpu_op", "Optimizer.step#AdamW.step", 1300, 50);
  EXPECT_FALSE(facts_of(close(t)).has("inference"));
  std::string u = header("ProfilerStep#1");
  u += host("cpu_op", "aten::linear", 1010, 20);
  u += host("cuda_runtime", "cudaLaunchKernel", 1012, 5, 1);
  u += kernel("gemm", 1020, 10, 1);
  EXPECT_FALSE(facts_of(close(u)).has("inference"));
}

}  // namespace
