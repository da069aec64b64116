// The "inference" facts on real traces: the four TraceLens inference windows (SGLang and vLLM, each
// one iteration cut from a serving run), their start-up graph captures, and kineto_h200/decode
// (Hugging Face generate(), three calls of 32 tokens). Every expected number was computed
// independently by tests/realdata/verify_inference.py (Python json and regular expressions over
// the raw traces), not by our loaders; own window, holes and busy time agree within 1%, the graph
// share within 1 point.
#include <cstdlib>
#include <map>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

using npu::test::real;
using json = nlohmann::json;

const char* kDir = "kineto/tracelens/inference/";

struct Expected {
  const char* trace;
  const char* engine;
  const char* phase;
  int64_t requests, tokens, ops;
  double own_us, hole_us, busy_us, graph_share;
};

// python3 tests/realdata/verify_inference.py TRACE
const Expected kServing[] = {
    {"sglang_decode/sglang_Qwen3-8B_decode.json.gz", "sglang", "decode", 32, 32, 558, 10450.29, 463251.76, 9772.93,
     0.98808},
    {"sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz", "sglang", "prefill", 15, 15360, 534, 494001.67,
     493239.12, 492806.86, 0.0},
    {"vllm_decode_full/graph_execution.json.gz", "vllm", "decode", 32, 32, 434, 10743.18, 7826.15, 10717.70, 0.96928},
    {"vllm_prefilldecode_piecewise/graph_execution.json.gz", "vllm", "mixed", 46, 8192, 423, 156466.42, 148998.87, 156085.80,
     0.96050},
};

void expect_within_1pct(const json& v, double expected_us, const char* what) {
  const double ns = expected_us * 1e3;
  EXPECT_NEAR(v.get<double>(), ns, std::max(ns * 0.01, 1.0)) << what;
}

TEST(RealDataInference, ServingWindowsHaveOneIterationWithItsOwnWindow) {
  for (const Expected& e : kServing) {
    const std::string rel = std::string(kDir) + e.trace;
    REQUIRE_REALDATA(rel);
    SCOPED_TRACE(rel);
    npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
    ASSERT_TRUE(f.has("inference"));
    const json& j = f.doc["inference"];
    EXPECT_EQ(j["kind"], "serving");
    EXPECT_EQ(j["engine"], e.engine);
    ASSERT_EQ(j["iterations"].size(), 1u);
    const json& it = j["iterations"][0];
    EXPECT_EQ(it["phase"], e.phase);
    EXPECT_EQ(it["requests"], e.requests);
    EXPECT_EQ(it["tokens"], e.tokens);
    EXPECT_EQ(it["device_ops"], e.ops);
    expect_within_1pct(it["own_window_ns"], e.own_us, "own window");
    expect_within_1pct(it["hole_ns"], e.hole_us, "hole");
    expect_within_1pct(it["busy_ns"], e.busy_us, "busy");
    // tokens over the own window: vllm_decode_full 32 / 10.743 ms = 2979 tokens/s (the issue's ~3k)
    EXPECT_NEAR(it["tokens_per_s"].get<double>(), e.tokens / (e.own_us * 1e-6), e.tokens / (e.own_us * 1e-6) * 0.01);
    EXPECT_NEAR(it["graph_share"].get<double>(), e.graph_share, 0.01);
    // The iteration is the run's step, timed by its own window: the hole is not the step's.
    EXPECT_EQ(f.doc["run"]["step_source"], "engine iteration");
    EXPECT_EQ(f.doc["overall"]["steps"], 1);
    expect_within_1pct(f.doc["overall"]["stage_ns"], e.own_us, "step");
  }
}

// The roofline of a graph-replayed decode: SGLang's replay kernels have no operator in the replay
// trace; paired with the capture beside it, each is the aten::mm (or other op) the capture
// recorded, with its shapes. The step's FLOPs are the capture's 145 aten::mm, 2*M*K*N each:
// 484,358,225,920 (python3 tests/realdata/verify_replay_flops.py CAPTURE); the GEMMs are
// memory-bound (32 rows against 4096-151936-column weights), their evidence in the capture trace.
TEST(RealDataInference, GraphReplayedGemmsAreModelledFromTheirCapture) {
  const std::string rel = std::string(kDir) + kServing[0].trace;
  REQUIRE_REALDATA(rel);
  const npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
  const json& r = f.doc["roofline"];
  ASSERT_TRUE(r.is_object());
  ASSERT_EQ(r["steps"].size(), 1u);
  EXPECT_EQ(r["steps"][0]["flops"].get<double>(), 484358225920.0);
  EXPECT_GT(r["coverage"]["share"].get<double>(), 0.6);  // 0.001 before: "kernel launched outside any operator"
  size_t mm = 0;
  for (const json& g : r["groups"]) {
    if (g["op"] != "aten::mm") continue;
    ++mm;
    EXPECT_EQ(g["bound"], "memory") << g["shapes"];
    EXPECT_EQ(g["precision"], "bf16");
    const std::string file = g["evidence"][0]["file"];
    EXPECT_NE(file.find("capture_traces/bs_32_rank0.json.gz"), std::string::npos) << file;
  }
  EXPECT_EQ(mm, 5u);  // qkv, o, gate_up, down (x36 each) and the LM head
}

// The modules of a graph-replayed decode: each replayed kernel counts for the nn.Module frames
// the capture recorded around its launch. python3 tests/realdata/verify_replay_modules.py CAPTURE
// REPLAY --layer Qwen3DecoderLayer pairs the i-th replayed op with the i-th captured launch:
// Qwen3Model_0 9251.121 us, LogitsProcessor_0 405.283 us, 36 Qwen3DecoderLayer, median 250.259 us,
// the slowest (Qwen3DecoderLayer_7) 378.511 us.
TEST(RealDataInference, GraphReplayedKernelsCountForTheirCapturedModules) {
  const std::string rel = std::string(kDir) + kServing[0].trace;
  REQUIRE_REALDATA(rel);
  const npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
  const json& m = f.doc["modules"];
  EXPECT_EQ(m["graph"]["mapped_share"], 1.0);
  std::map<std::string, int64_t> device;
  for (const json& n : m["tree"]) device[n["name"]] = n["device_ns"];
  EXPECT_EQ(device["Qwen3Model_0"], 9251121);
  EXPECT_EQ(device["LogitsProcessor_0"], 405283);
  ASSERT_FALSE(m["repeated"].empty());
  const json& layers = m["repeated"][0];
  EXPECT_EQ(layers["class"], "Qwen3DecoderLayer");
  EXPECT_EQ(layers["count"], 36);
  EXPECT_EQ(layers["median_ns"], 250259);
  EXPECT_EQ(layers["max_ns"], 378511);
}

// Several iterations, varying batch sizes, as an engine runs: a window built from the real single
// SGLang iteration (make_serving_window.py: copies shifted in time, bs=32, 31, 32, 30, 29 written
// into the engine's names) gives one iteration and one step each, in order, each timed by the
// original's own window, its hole left out; neither the graphs nor the async_scheduling what-if
// claims anything from the holes.
TEST(RealDataInference, MultiIterationWindowGivesOneIterationEach) {
  const std::string one = std::string(kDir) + kServing[0].trace;
  REQUIRE_REALDATA(one);
  npu::test::TempDir dir;
  const std::string window = (dir.path() / "window.json").string();
  const std::string cmd = std::string("/usr/bin/python3 '") + NPU_SOURCE_DIR +
                          "/tests/realdata/make_serving_window.py' '" + real(one) + "' '" + window +
                          "' --batches 32,31,32,30,29";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  npu::Facts f = npu::compute_facts(npu::test::load_path(window));
  const json& its = f.doc["inference"]["iterations"];
  ASSERT_EQ(its.size(), 5u);
  const int64_t requests[] = {32, 31, 32, 30, 29};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(its[i]["requests"], requests[i]) << i;
    EXPECT_EQ(its[i]["phase"], "decode");
    expect_within_1pct(its[i]["own_window_ns"], kServing[0].own_us, "own window");
    expect_within_1pct(its[i]["hole_ns"], kServing[0].hole_us, "hole");
    if (i > 0) EXPECT_LT(its[i - 1]["start_ns"].get<int64_t>(), its[i]["start_ns"].get<int64_t>());
  }
  EXPECT_EQ(f.doc["overall"]["steps"], 5);
  expect_within_1pct(f.doc["overall"]["stage_ns"], 5 * kServing[0].own_us, "steps");
  const json& decode = f.doc["inference"]["phases"][0];
  EXPECT_EQ(decode["phase"], "decode");
  EXPECT_EQ(decode["iterations"], 5);
  EXPECT_EQ(decode["by_batch_size"].size(), 4u);
  EXPECT_EQ(f.doc["inference"]["gaps"].size(), 4u);
  EXPECT_EQ(f.doc["whatif"]["transforms"]["graphs"]["applicable"], false);
  // The turns between the copies are measured, but each precedes a hole (the copy's first kernel
  // waited on the previous batch, which the trace does not hold): async scheduling saves nothing,
  // and the period's replay gives the measured one back.
  const json& w = f.doc["whatif"];
  EXPECT_TRUE(w["period"]["reproduces"].get<bool>()) << w["period"];
  EXPECT_GT(w["period"]["measured_turn_ns"].get<int64_t>(), 0);
  EXPECT_EQ(w["transforms"]["async_scheduling"]["applicable"], true);
  EXPECT_EQ(w["transforms"]["async_scheduling"]["saving_ns"], 0);
}

struct Capture {
  const char* trace;
  const char* engine;
  int64_t batch;
  const char* mode;
  int64_t stream_captures;
};

const Capture kCaptures[] = {
    {"sglang_decode/capture_traces/bs_32_rank0.json.gz", "sglang", 32, "DECODE", 1},
    {"vllm_decode_full/capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz", "vllm", 32, "FULL",
     1},
    {"vllm_prefilldecode_piecewise/capture_traces/graph_capture_rank_0.1773709679453551615.pt.trace.json.gz", "vllm",
     8192, "PIECEWISE", 25},
};

// A start-up capture says so, counts its graphs, and no step rule fires on it (main fired
// dispatch.launch_bound, dispatch.gpu_sync and schedule.free_time on them), nor does a Hugging
// Face command go to a serving engine's run.
TEST(RealDataInference, StartUpCapturesAreNotServing) {
  for (const Capture& c : kCaptures) {
    const std::string rel = std::string(kDir) + c.trace;
    REQUIRE_REALDATA(rel);
    SCOPED_TRACE(rel);
    npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
    ASSERT_TRUE(f.has("inference"));
    const json& j = f.doc["inference"];
    EXPECT_EQ(j["kind"], "graph_capture");
    EXPECT_EQ(j["engine"], c.engine);
    EXPECT_EQ(j["summary"], "graph capture: start-up, not serving");
    ASSERT_EQ(j["capture"]["graphs"].size(), 1u);
    EXPECT_EQ(j["capture"]["graphs"][0]["batch_size"], c.batch);
    EXPECT_EQ(j["capture"]["graphs"][0]["mode"], c.mode);
    EXPECT_EQ(j["capture"]["stream_captures"], c.stream_captures);
    const json r = npu::test::analyze_json(real(rel));
    ASSERT_TRUE(r.is_object());
    for (const auto& finding : r["findings"]) {
      const std::string rule = finding.value("rule", "");
      EXPECT_TRUE(rule.rfind("dispatch.", 0) != 0 && rule.rfind("schedule.", 0) != 0) << rule;
    }
    EXPECT_EQ(r.dump().find("cache_implementation"), std::string::npos);
  }
}

// HF generate() (kineto_h200/decode): each ProfilerStep one request of 32 tokens, the steps as today.
TEST(RealDataInference, GenerateLoopStepsAreRequests) {
  REQUIRE_REALDATA("kineto_h200/decode");
  npu::Facts f = npu::compute_facts(npu::test::load_path(real("kineto_h200/decode")));
  ASSERT_TRUE(f.has("inference"));
  const json& j = f.doc["inference"];
  EXPECT_EQ(j["kind"], "generate_loop");
  EXPECT_EQ(j["engine"], "hf_generate");
  ASSERT_EQ(j["iterations"].size(), 3u);
  const double own_us[] = {258058.29, 268993.55, 264067.10}, busy_us[] = {22829.92, 22864.46, 22851.68};
  const double prefill_us[] = {9069.15, 9476.03, 9399.81}, per_token_us[] = {8031.91, 8371.53, 8215.07};
  for (size_t i = 0; i < 3; ++i) {
    const json& it = j["iterations"][i];
    EXPECT_EQ(it["tokens"], 32);
    EXPECT_EQ(it["phase"], "unknown");
    EXPECT_TRUE(it["requests"].is_null());
    EXPECT_EQ(it["device_ops"], 9481);
    expect_within_1pct(it["own_window_ns"], own_us[i], "own window");
    expect_within_1pct(it["busy_ns"], busy_us[i], "busy");
    // prefill to the first token, then each later token (verify_inference.py)
    expect_within_1pct(it["prefill_ns"], prefill_us[i], "prefill");
    expect_within_1pct(it["decode_ns_per_token"], per_token_us[i], "per token");
  }
  EXPECT_EQ(f.doc["overall"]["steps"], 3);
}

}  // namespace
