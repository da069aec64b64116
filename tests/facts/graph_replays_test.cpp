// Graph replays opened up (model/graph_capture.h, facts inference.graphs and the iterations'
// classes): small Kineto traces whose captures and replays are read off them. Times in us in the
// trace, ns in the facts.
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "facts/inference/op_classes.h"
#include "kineto_text.h"
#include "test_support.h"

namespace {

using nlohmann::json;
using npu::test::kineto::close;
using npu::test::kineto::facts_of;
using npu::test::kineto::host;
using npu::test::kineto::kernel;

std::string header() { return npu::test::kineto::header(0); }

// A launch call a capture records: its kernel in args.kernel (as ROCm writes it), no device op.
std::string captured(const std::string& kernel_name, double ts, int corr) {
  return R"(  {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "dur": 2, "args": {"correlation": )" + std::to_string(corr) +
         R"(, "kernel": ")" + kernel_name + "\"}},\n";
}

// capture_N_MODE with one graph of three launches, each under its operators: attention, a GEMM
// (aten::linear around aten::addmm), the MoE.
std::string capture(const std::string& name = "capture_32_FULL") {
  std::string t = host("user_annotation", name, 100, 100);
  t += host("cuda_runtime", "hipStreamBeginCapture", 105, 1);
  t += host("cpu_op", "vllm::unified_attention_with_output", 110, 10) + captured("attn_k", 112, 11);
  t += host("cpu_op", "aten::linear", 130, 10) + host("cpu_op", "aten::addmm", 131, 8) + captured("Cijk_gemm", 133, 12);
  t += host("cpu_op", "vllm::moe_forward", 150, 10) + captured("_matmul_ogs", 152, 13);
  t += host("cuda_runtime", "hipStreamEndCapture", 190, 1);
  return t;
}

// One decode iteration of `bs` requests: a graph replay of the three kernels (20 + 30 + 50 us)
// and one eager sampler kernel (10 us) launched under aten::argmax.
std::string decode_iteration(int bs) {
  std::string t = host("user_annotation", "step[DECODE bs=" + std::to_string(bs) + "]", 1000, 900);
  t += host("cuda_runtime", "hipGraphLaunch", 1010, 5, 100);
  t += host("cpu_op", "aten::argmax", 1018, 6) + host("cuda_runtime", "hipLaunchKernel", 1020, 2, 101);
  t += kernel("attn_k", 1100, 20, 100) + kernel("Cijk_gemm", 1120, 30, 100) + kernel("_matmul_ogs", 1150, 50, 100);
  t += kernel("reduce_kernel", 1200, 10, 101);
  return t;
}

TEST(GraphReplays, OpClassesReadTheOperatorsOutermostFirstThenTheKernel) {
  using npu::OpClass;
  EXPECT_EQ(npu::classify_op("vllm::moe_forward", "TopK", "_topk_forward"), OpClass::Moe);
  EXPECT_EQ(npu::classify_op("vllm::unified_kv_cache_update", "_C_cache_ops::reshape_and_cache_flash", "k"),
            OpClass::KvWrite);
  EXPECT_EQ(npu::classify_op("vllm::unified_attention_with_output", "", "kernel_unified_attention_2d"),
            OpClass::Attention);
  EXPECT_EQ(npu::classify_op("aten::linear", "aten::addmm", "Cijk_Alik"), OpClass::DenseGemm);
  EXPECT_EQ(npu::classify_op("vllm::rocm_aiter_rms_norm", "aiter::rms_norm", "ck_tile"), OpClass::Norm);
  EXPECT_EQ(npu::classify_op("", "", "triton_poi_fused_0"), OpClass::Other);
  EXPECT_EQ(npu::classify_op("", "", "nvjet_tst_128x64"), OpClass::DenseGemm);  // no operator: the kernel says
}

// The capture in the trace itself: the replay of a batch of 16 pairs with the capture of 32 (the
// smallest at least 16), its kernels get the capture's operators and classes.
TEST(GraphReplays, AReplayPairsWithItsCaptureInTheTrace) {
  const json j = facts_of(close(header() + capture() + decode_iteration(16))).doc["inference"];
  ASSERT_TRUE(j.is_object());
  const json& g = j["graphs"];
  ASSERT_EQ(g["captures"].size(), 1u);
  EXPECT_EQ(g["captures"][0]["batch_size"], 32);
  EXPECT_EQ(g["captures"][0]["mode"], "FULL");
  EXPECT_EQ(g["captures"][0]["graphs"], 1);
  EXPECT_EQ(g["captures"][0]["launches"], 3);
  EXPECT_EQ(g["captures"][0]["source"], "the trace itself");
  EXPECT_EQ(g["captured_sizes"], json::array({32}));
  EXPECT_EQ(g["pairing"]["replays"], 1);
  EXPECT_EQ(g["pairing"]["paired_replays"], 1);
  EXPECT_EQ(g["pairing"]["paired_ops"], 3);
  const json& it = j["iterations"][0];
  EXPECT_EQ(it["graph_ops"], 3);
  EXPECT_EQ(it["paired_ops"], 3);
  EXPECT_EQ(it["eager_in_graph_ns"], 10000);
  // 20 + 30 + 50 replayed, 10 eager: 110 us of op time.
  EXPECT_NEAR(it["classes"]["attention"].get<double>(), 20.0 / 110, 1e-9);
  EXPECT_NEAR(it["classes"]["dense_gemm"].get<double>(), 30.0 / 110, 1e-9);
  EXPECT_NEAR(it["classes"]["moe"].get<double>(), 50.0 / 110, 1e-9);
  EXPECT_NEAR(it["classes"]["sampler"].get<double>(), 10.0 / 110, 1e-9);
  EXPECT_NEAR(j["phases"][0]["classes"]["moe"].get<double>(), 50.0 / 110, 1e-9);
  ASSERT_EQ(g["classes"][0]["class"], "moe");
  EXPECT_EQ(g["classes"][0]["top_ops"][0]["op"], "vllm::moe_forward");
  EXPECT_EQ(g["classes"][1]["top_ops"][0]["op"], "aten::linear");  // the outermost operator
  EXPECT_EQ(g["eager_in_graphed"]["ops"], 1);
  EXPECT_NEAR(g["eager_in_graphed"]["classes"]["sampler"].get<double>(), 1.0, 1e-9);
}

// A batch above the largest captured size: no capture pairs, the replay stays opaque (its kernels
// are classed by their names alone) and the facts say why.
TEST(GraphReplays, ABatchAboveTheLargestCaptureIsNotPaired) {
  const json j = facts_of(close(header() + capture() + decode_iteration(48))).doc["inference"];
  const json& g = j["graphs"];
  EXPECT_EQ(g["pairing"]["paired_replays"], 0);
  EXPECT_EQ(g["pairing"]["paired_ops"], 0);
  ASSERT_EQ(g["pairing"]["not_paired"].size(), 1u);
  EXPECT_EQ(g["pairing"]["not_paired"][0]["why"], "no capture of the iteration's batch size or larger");
  EXPECT_EQ(j["iterations"][0]["paired_ops"], 0);
}

// Piecewise: two graphs in one capture, two launches in the iteration: the k-th launch replays the
// k-th graph.
TEST(GraphReplays, PiecewiseLaunchesReplayTheGraphsInOrder) {
  std::string t = header() + host("user_annotation", "capture_64_PIECEWISE", 100, 100);
  t += host("cuda_runtime", "hipStreamBeginCapture", 105, 1);
  t += host("cpu_op", "aten::linear", 110, 10) + captured("gemm_a", 112, 11);
  t += host("cuda_runtime", "hipStreamEndCapture", 125, 1) + host("cuda_runtime", "hipStreamBeginCapture", 130, 1);
  t += host("cpu_op", "vllm::moe_forward", 140, 10) + captured("moe_b", 142, 12);
  t += host("cuda_runtime", "hipStreamEndCapture", 160, 1);
  t += host("user_annotation", "execute_64_context_2(sq60)_generation_4(sq4)", 1000, 900);
  t += host("cuda_runtime", "hipGraphLaunch", 1010, 5, 100) + host("cuda_runtime", "hipGraphLaunch", 1030, 5, 101);
  t += host("cpu_op", "vllm::unified_attention_with_output", 1020, 8) + host("cuda_runtime", "hipLaunchKernel", 1021, 2, 102);
  t += kernel("gemm_a", 1100, 40, 100) + kernel("attn_eager", 1140, 20, 102) + kernel("moe_b", 1160, 40, 101);
  const json j = facts_of(close(t)).doc["inference"];
  const json& g = j["graphs"];
  EXPECT_EQ(g["captures"][0]["graphs"], 2);
  EXPECT_EQ(g["pairing"]["paired_replays"], 2);
  EXPECT_EQ(g["pairing"]["paired_ops"], 2);
  const json& it = j["iterations"][0];
  EXPECT_EQ(it["phase"], "mixed");
  EXPECT_NEAR(it["classes"]["dense_gemm"].get<double>(), 0.4, 1e-9);
  EXPECT_NEAR(it["classes"]["moe"].get<double>(), 0.4, 1e-9);
  EXPECT_NEAR(it["classes"]["attention"].get<double>(), 0.2, 1e-9);
  EXPECT_EQ(it["eager_in_graph_ns"], 20000);
}

// No capture anywhere: coverage only. An eager decode iteration of 48 is listed; the replayed one
// says its replay was not paired.
TEST(GraphReplays, WithoutACaptureCoverageOnly) {
  std::string t = header() + decode_iteration(16);
  t += host("user_annotation", "step[DECODE bs=48]", 2000, 500);
  t += host("cuda_runtime", "hipLaunchKernel", 2010, 2, 200) + kernel("attn_k", 2100, 100, 200);
  const json j = facts_of(close(t)).doc["inference"];
  const json& g = j["graphs"];
  EXPECT_EQ(g["captures"].size(), 0u);
  EXPECT_EQ(g["captured_sizes"].size(), 0u);
  EXPECT_EQ(g["pairing"]["not_paired"][0]["why"], "no capture in the trace or beside it");
  ASSERT_EQ(g["eager_iterations"].size(), 1u);
  EXPECT_EQ(g["eager_iterations"][0]["phase"], "decode");
  EXPECT_EQ(g["eager_iterations"][0]["requests"], 48);
  EXPECT_EQ(g["eager_iterations"][0]["iterations"], 1);
  EXPECT_NEAR(g["replay_share"].get<double>(), 100.0 / 210, 1e-9);  // 100 us replayed of 110 + 100 busy
  EXPECT_TRUE(j["iterations"][1]["eager_in_graph_ns"].is_null());
}

// TraceLens's layout: the capture trace beside the replay, its batch size and mode from
// capture_traces/execution_details.json (over the annotation's); a broken entry is a warning.
TEST(GraphReplays, ACaptureTraceBesideTheReplayIsRead) {
  npu::test::TempDir dir;
  const std::string replay = dir.write("graph_execution.json", close(header() + decode_iteration(16)));
  std::filesystem::create_directories(std::filesystem::path(replay).parent_path() / "capture_traces");
  dir.write("capture_traces/cap.json", close(header() + capture("capture_99_DECODE")));
  dir.write("capture_traces/execution_details.json",
            R"([{"file": "cap.json", "batch_size": 16, "mode": "FULL"}, {"file": "gone.json", "batch_size": 8, "mode": "FULL"}])");
  const npu::RunModel m = npu::test::load_path(replay);
  ASSERT_EQ(m.graph_replays.captures.size(), 1u);
  EXPECT_EQ(m.graph_replays.captures[0].batch, 16);
  EXPECT_EQ(m.graph_replays.captures[0].mode, "FULL");
  bool warned = false;
  for (const auto& w : m.stats.warnings) warned |= w.find("gone.json is not there") != std::string::npos;
  EXPECT_TRUE(warned);
  const json j = npu::compute_facts(npu::test::load_path(replay)).doc["inference"];
  EXPECT_EQ(j["graphs"]["pairing"]["paired_ops"], 3);
  EXPECT_NE(j["graphs"]["captures"][0]["source"].get<std::string>().find("cap.json"), std::string::npos);
  EXPECT_NEAR(j["iterations"][0]["classes"]["moe"].get<double>(), 50.0 / 110, 1e-9);
}

// The roofline of a graph-replayed GEMM: its kernel has no operator in the replay trace; the
// capture recorded aten::mm with its shapes around the launch, so the replayed kernel is that
// operator's: 2 x 32 x 64 x 128 FLOPs, its evidence the aten::mm event in the capture's file.
TEST(GraphReplays, AReplayedKernelIsModelledByItsCapturedOperatorsShapes) {
  const std::string mm =
      R"(  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 131, "dur": 8, )"
      R"("args": {"Input Dims": [[32, 64], [64, 128]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
)";
  std::string cap = header() + host("user_annotation", "capture_32_FULL", 100, 100);
  cap += host("cuda_runtime", "hipStreamBeginCapture", 105, 1);
  cap += host("cpu_op", "vllm::unified_attention_with_output", 110, 10) + captured("attn_k", 112, 11);
  cap += host("cpu_op", "aten::linear", 130, 10) + mm + captured("Cijk_gemm", 133, 12);
  cap += host("cuda_runtime", "hipStreamEndCapture", 190, 1);
  std::string replay = header() + host("user_annotation", "step[DECODE bs=16]", 1000, 900);
  replay += host("cuda_runtime", "hipGraphLaunch", 1010, 5, 100);
  replay += kernel("attn_k", 1100, 20, 100) + kernel("Cijk_gemm", 1120, 30, 100);
  npu::test::TempDir dir;
  const std::string path = dir.write("graph_execution.json", close(replay));
  std::filesystem::create_directories(std::filesystem::path(path).parent_path() / "capture_traces");
  const std::string cap_text = close(cap);
  const std::string cap_path = dir.write("capture_traces/cap.json", cap_text);
  dir.write("capture_traces/execution_details.json", R"([{"file": "cap.json", "batch_size": 32, "mode": "FULL"}])");
  const json r = npu::compute_facts(npu::test::load_path(path)).doc["roofline"];
  ASSERT_TRUE(r.is_object()) << r.dump();
  EXPECT_EQ(r["coverage"]["compute_ns"], 50000);
  EXPECT_EQ(r["coverage"]["modelled_ns"], 30000);
  // The attention kernel's operator is captured too, without recorded shapes.
  ASSERT_EQ(r["coverage"]["not_modelled"].size(), 1u) << r["coverage"].dump();
  EXPECT_EQ(r["coverage"]["not_modelled"][0]["reason"], "no shapes recorded (record_shapes off)");
  ASSERT_EQ(r["groups"].size(), 1u);
  const json& g = r["groups"][0];
  EXPECT_EQ(g["op"], "aten::mm");
  EXPECT_EQ(g["shapes"], "[[32, 64], [64, 128]]");  // as the capture wrote them
  EXPECT_EQ(g["count"], 1);
  EXPECT_EQ(g["time_ns"], 30000);
  EXPECT_DOUBLE_EQ(g["flops"].get<double>(), 2.0 * 32 * 64 * 128);
  EXPECT_EQ(r["steps"][0]["flops"], 2.0 * 32 * 64 * 128);
  const json& ev = g["evidence"][0];
  EXPECT_EQ(ev["file"], cap_path);
  EXPECT_EQ(ev["byte"], cap_text.find(R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm")"));
}

// Modules of a graph replay: the capture recorded nn.Module frames around its launches
// (Model_0 > Layer_0, Layer_1), so the replayed kernels count for those modules, below the
// iteration's annotation that holds the replay call: Model_0 50 us, Layer_0 20 us, Layer_1 30 us.
TEST(GraphReplays, ReplayedKernelsCountForTheModulesTheirCaptureRecorded) {
  std::string t = header() + host("user_annotation", "capture_16_FULL", 100, 100);
  t += host("cuda_runtime", "hipStreamBeginCapture", 105, 1);
  t += host("python_function", "nn.Module: Model_0", 108, 80);
  t += host("python_function", "nn.Module: Layer_0", 109, 30) + captured("k0", 112, 11);
  t += host("python_function", "nn.Module: Layer_1", 140, 30) + captured("k1", 142, 12);
  t += host("cuda_runtime", "hipStreamEndCapture", 190, 1);
  t += host("user_annotation", "step[DECODE bs=16]", 1000, 900);
  t += host("cuda_runtime", "hipGraphLaunch", 1010, 5, 100);
  t += kernel("k0", 1100, 20, 100) + kernel("k1", 1120, 30, 100);
  const json m = facts_of(close(t)).doc["modules"];
  ASSERT_TRUE(m.is_object());
  EXPECT_EQ(m["graph"]["device_ns"], 50000);
  EXPECT_EQ(m["graph"]["mapped"], true);
  EXPECT_EQ(m["graph"]["mapped_ns"], 50000);
  EXPECT_EQ(m["graph"]["mapped_share"], 1.0);
  EXPECT_FALSE(m["graph"].contains("why_not_mapped"));
  std::map<std::string, int64_t> device;
  for (const json& n : m["tree"]) device[n["path"]] = n["device_ns"];
  EXPECT_EQ(device["step[DECODE bs=16]/Model_0"], 50000);
  EXPECT_EQ(device["step[DECODE bs=16]/Model_0/Layer_0"], 20000);
  EXPECT_EQ(device["step[DECODE bs=16]/Model_0/Layer_1"], 30000);
}

}  // namespace
