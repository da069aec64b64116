// The engines' annotation patterns (model/engine_patterns.h): a test per entry, with the
// names as the engines (and TraceLens's splitter) write them in ../shared/realdata.
#include "model/engine_patterns.h"

#include <gtest/gtest.h>

namespace {

using npu::InferencePhase;
using npu::PatternMatch;

std::string id_of(std::string_view name, PatternMatch& m) {
  const int i = npu::match_engine_pattern(name, m);
  return i < 0 ? "" : npu::engine_patterns()[static_cast<size_t>(i)].id;
}

TEST(EnginePatterns, EveryEntryMatchesItsOwnExample) {
  for (const auto& p : npu::engine_patterns()) {
    PatternMatch m;
    EXPECT_EQ(id_of(p.example, m), p.id) << p.example;
  }
}

TEST(EnginePatterns, SglangStepSaysPhaseRequestsAndTokens) {
  PatternMatch m;
  ASSERT_EQ(id_of("step[DECODE bs=32]", m), "sglang_step");
  EXPECT_EQ(m.phase, InferencePhase::Decode);
  EXPECT_EQ(m.requests, 32);
  EXPECT_EQ(m.tokens, -1);
  ASSERT_EQ(id_of("step[EXTEND bs=15 toks=15360]", m), "sglang_step");
  EXPECT_EQ(m.phase, InferencePhase::Prefill);
  EXPECT_EQ(m.requests, 15);
  EXPECT_EQ(m.tokens, 15360);
  ASSERT_EQ(id_of("step[MIXED bs=8 toks=900]", m), "sglang_step");
  EXPECT_EQ(m.phase, InferencePhase::Mixed);
  EXPECT_EQ(m.requests, 8);
  // Names that carry the batch are one pattern, whatever the batch.
  for (const char* n : {"step[DECODE bs=31]", "step[DECODE bs=30]", "step[DECODE bs=1]"}) {
    EXPECT_EQ(id_of(n, m), "sglang_step") << n;
    EXPECT_EQ(m.phase, InferencePhase::Decode);
  }
  EXPECT_EQ(id_of("step[DECODE bs=x]", m), "");
  EXPECT_EQ(id_of("step[FOO bs=3]", m), "");
  EXPECT_EQ(id_of("ProfilerStep#3", m), "");
}

TEST(EnginePatterns, VllmDetailedSaysTokensAndBothPhases) {
  PatternMatch m;
  ASSERT_EQ(id_of("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)", m),
            "vllm_detailed");
  EXPECT_EQ(m.phase, InferencePhase::Decode);
  EXPECT_EQ(m.requests, 32);
  EXPECT_EQ(m.tokens, 32);
  ASSERT_EQ(
      id_of("execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37(sq37sk34489sqsq37sqsk34489)", m),
      "vllm_detailed");
  EXPECT_EQ(m.phase, InferencePhase::Mixed);
  EXPECT_EQ(m.requests, 46);
  EXPECT_EQ(m.tokens, 8192);
  ASSERT_EQ(id_of("execute_15360_context_15(sq15360sk15360sqsq15728640sqsk15728640)_generation_0(sq0sk0sqsq0sqsk0)", m),
            "vllm_detailed");
  EXPECT_EQ(m.phase, InferencePhase::Prefill);
  EXPECT_EQ(m.requests, 15);
  EXPECT_EQ(id_of("execute_model", m), "");
}

TEST(EnginePatterns, VllmNativeSaysRequests) {
  PatternMatch m;
  ASSERT_EQ(id_of("execute_new_2_cached_30", m), "vllm_native");
  EXPECT_EQ(m.requests, 32);
  EXPECT_EQ(m.phase, InferencePhase::Mixed);
  ASSERT_EQ(id_of("execute_new_4_cached_0", m), "vllm_native");
  EXPECT_EQ(m.phase, InferencePhase::Prefill);
  ASSERT_EQ(id_of("execute_new_0_cached_16", m), "vllm_native");
  EXPECT_EQ(m.phase, InferencePhase::Unknown);  // decode, or the next chunk of a prefill
  EXPECT_EQ(m.requests, 16);
}

TEST(EnginePatterns, XditDiffusionSaysImages) {
  PatternMatch m;
  ASSERT_EQ(id_of("execute_diffusion_1_256x256", m), "xdit_diffusion");
  EXPECT_EQ(m.kind, PatternMatch::Kind::Iteration);
  EXPECT_EQ(m.requests, 1);
  EXPECT_EQ(m.phase, InferencePhase::Unknown);
  ASSERT_EQ(id_of("execute_diffusion_4_1024x768", m), "xdit_diffusion");
  EXPECT_EQ(m.requests, 4);
  EXPECT_EQ(id_of("execute_diffusion_1_256", m), "");
  EXPECT_EQ(id_of("execute_diffusion_1_256x256_x", m), "");
}

TEST(EnginePatterns, CapturesSayBatchAndMode) {
  PatternMatch m;
  ASSERT_EQ(id_of("capture_32_FULL", m), "graph_capture");
  EXPECT_EQ(m.kind, PatternMatch::Kind::Capture);
  EXPECT_EQ(m.batch, 32);
  EXPECT_EQ(m.mode, "FULL");
  ASSERT_EQ(id_of("capture_8192_PIECEWISE", m), "graph_capture");
  EXPECT_EQ(m.batch, 8192);
  EXPECT_EQ(m.mode, "PIECEWISE");
  ASSERT_EQ(id_of("capture_32_DECODE", m), "graph_capture");
  EXPECT_EQ(m.mode, "DECODE");
  EXPECT_EQ(id_of("capture_graph", m), "");
  EXPECT_EQ(id_of("capture_32_", m), "");
  EXPECT_EQ(id_of("capture_32_full mode", m), "");
}

TEST(EnginePatterns, ModelRunnerStagesSayWhichStageAndWhichOpens) {
  PatternMatch m;
  ASSERT_EQ(id_of("gpu_model_runner: preprocess", m), "vllm_v1_stages");
  EXPECT_EQ(m.kind, PatternMatch::Kind::Stage);
  EXPECT_TRUE(m.opens);
  EXPECT_EQ(m.stage, 0);
  ASSERT_EQ(id_of("gpu_model_runner: sample", m), "vllm_v1_stages");
  EXPECT_FALSE(m.opens);
  EXPECT_EQ(m.stage, 3);
  EXPECT_EQ(m.phase, InferencePhase::Unknown);
  EXPECT_EQ(m.requests, -1);
  ASSERT_EQ(id_of("prepare input", m), "vllm_ascend_stages");
  EXPECT_TRUE(m.opens);
  for (const char* n : {"forward", "post process", "sample_token", "draft_token", "async_state_update"}) {
    EXPECT_EQ(id_of(n, m), "vllm_ascend_stages") << n;
    EXPECT_FALSE(m.opens) << n;
  }
  EXPECT_EQ(id_of("gpu_model_runner: forwardx", m), "");
  EXPECT_EQ(id_of("prepare inputs", m), "");
  EXPECT_EQ(id_of("Forward", m), "");
}

TEST(EnginePatterns, SourcesAndGraphCalls) {
  EXPECT_EQ(npu::match_engine_source("/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py(2919): x"), 0);
  EXPECT_EQ(npu::match_engine_source("vllm_ascend/worker/model_runner_v1.py(1777): execute_model"), 1);
  EXPECT_EQ(npu::match_engine_source("vllm/v1/worker/gpu_model_runner.py(3380): execute_model"), 2);
  EXPECT_EQ(npu::match_engine_source("mindie_llm/text_generator/generator.py(90): forward"), 3);
  EXPECT_EQ(npu::match_engine_source("/app/xDiT/xfuser/runner.py(126): <module>"), 4);
  EXPECT_EQ(npu::match_engine_source("site-packages/diffusers/pipelines/sd3/pipeline.py(10): __call__"), 5);
  EXPECT_EQ(npu::match_engine_source("transformers/generation/utils.py(2000): generate"), 6);
  EXPECT_EQ(npu::match_engine_source("torch/nn/modules/module.py(1): _call_impl"), -1);
  using npu::GraphCall;
  EXPECT_EQ(npu::graph_call("hipStreamBeginCapture"), GraphCall::BeginCapture);
  EXPECT_EQ(npu::graph_call("cudaStreamBeginCapture_v10000"), GraphCall::BeginCapture);
  EXPECT_EQ(npu::graph_call("hipStreamEndCapture"), GraphCall::EndCapture);
  EXPECT_EQ(npu::graph_call("hipGraphInstantiateWithFlags"), GraphCall::Instantiate);
  EXPECT_EQ(npu::graph_call("cudaGraphLaunch"), GraphCall::Launch);
  EXPECT_EQ(npu::graph_call("cudaLaunchKernel"), GraphCall::None);
}

}  // namespace
