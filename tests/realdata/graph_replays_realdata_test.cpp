// Graph replays opened up on real traces: the TraceLens vLLM and SGLang windows with their start-up
// captures beside them (capture_traces/ + execution_details.json). Every expected number was
// computed independently by tests/realdata/verify_graph_replays.py (Python json over the raw
// traces, capture and replay), not by our loaders: the capture paired, every replayed kernel paired
// with its captured launch, and the iteration's class shares within 0.1 point.
#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

using npu::test::real;
using json = nlohmann::json;

struct Expected {
  const char* trace;
  int64_t capture_batch;
  const char* mode;
  int graphs, launches, replayed_ops;
  std::vector<std::pair<const char*, double>> classes;
};

// python3 tests/realdata/verify_graph_replays.py TRACE
const Expected kTraces[] = {
    // TraceLens's report on this trace: MoE ~67% (its MoE GEMMs, matmul_ogs + finalize: 66.9% here;
    // the routing's top-k and sort, 4.6 points, and the MoE input pad, 1.1, are the MoE layer's too),
    // attention ~7%, dense GEMM ~9% (8.9% replayed; an eager GEMM after the replay adds 2.6 points).
    {"vllm_decode_full/graph_execution.json.gz", 32, "FULL", 1, 1, 421,
     {{"moe", 0.72675}, {"attention", 0.06759}, {"dense_gemm", 0.11482}, {"norm", 0.03098}, {"kv_write", 0.01273},
      {"other", 0.04714}}},
    {"vllm_prefilldecode_piecewise/graph_execution.json.gz", 8192, "PIECEWISE", 25, 25, 361,
     {{"moe", 0.81382}, {"attention", 0.03297}, {"dense_gemm", 0.11307}, {"norm", 0.02183}, {"kv_write", 0.00376},
      {"other", 0.01455}}},
    {"sglang_decode/sglang_Qwen3-8B_decode.json.gz", 32, "FULL", 1, 1, 544,
     {{"attention", 0.21816}, {"dense_gemm", 0.59132}, {"norm", 0.10539}, {"kv_write", 0.01775}, {"sampler", 0.00551},
      {"other", 0.06188}}},
};

TEST(RealDataGraphReplays, ReplayedKernelsGetTheirCapturesOperatorsAndClasses) {
  for (const Expected& e : kTraces) {
    const std::string rel = std::string("kineto/tracelens/inference/") + e.trace;
    REQUIRE_REALDATA(rel);
    SCOPED_TRACE(rel);
    npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
    ASSERT_TRUE(f.has("inference"));
    const json& g = f.doc["inference"]["graphs"];
    ASSERT_EQ(g["captures"].size(), 1u);
    EXPECT_EQ(g["captures"][0]["batch_size"], e.capture_batch);
    EXPECT_EQ(g["captures"][0]["mode"], e.mode);
    EXPECT_EQ(g["captures"][0]["graphs"], e.graphs);
    EXPECT_EQ(g["pairing"]["replays"], e.launches);
    EXPECT_EQ(g["pairing"]["paired_replays"], e.launches);
    EXPECT_EQ(g["pairing"]["replayed_ops"], e.replayed_ops);
    EXPECT_EQ(g["pairing"]["paired_ops"], e.replayed_ops);
    const json& it = f.doc["inference"]["iterations"][0];
    EXPECT_EQ(it["paired_ops"], e.replayed_ops);
    ASSERT_EQ(it["classes"].size(), e.classes.size());
    for (const auto& [cls, share] : e.classes) EXPECT_NEAR(it["classes"][cls].get<double>(), share, 0.001) << cls;
  }
}

// The prefill window runs eager (SGLang graphs decode only): coverage, no capture, no pairing.
TEST(RealDataGraphReplays, AnEagerPrefillIsCoverageOnly) {
  const std::string rel = "kineto/tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz";
  REQUIRE_REALDATA(rel);
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
  const json& g = f.doc["inference"]["graphs"];
  EXPECT_EQ(g["captures"].size(), 0u);
  EXPECT_EQ(g["replay_share"], 0.0);
  ASSERT_EQ(g["eager_iterations"].size(), 1u);
  EXPECT_EQ(g["eager_iterations"][0]["phase"], "prefill");
  EXPECT_EQ(g["eager_iterations"][0]["requests"], 15);
}

}  // namespace
