// The what-if replay (docs/whatif.md) on small Kineto traces worked out by hand: the unmodified
// replay gives the measured step back, and each transformation gives the step the comments
// compute.
#include "facts/whatif/whatif.h"

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "rules/rule_engine.h"
#include "test_support.h"

namespace {

using nlohmann::json;

std::string header() {
  return R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200"}], "traceEvents": [
  {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "python3"}},
  {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
)";
}

std::string call(const char* name, double ts, double dur, int corr) {
  std::string s = R"(  {"ph": "X", "cat": "cuda_runtime", "name": ")" + std::string(name) +
                  R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur);
  if (corr > 0) s += R"(, "args": {"correlation": )" + std::to_string(corr) + "}";
  return s + "},\n";
}

std::string op(const char* cat, const char* name, double ts, double dur, int corr, const std::string& extra = "") {
  return R"(  {"ph": "X", "cat": ")" + std::string(cat) + R"(", "name": ")" + name +
         R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) +
         R"(, "args": {"correlation": )" + std::to_string(corr) + R"(, "device": 0, "stream": 7)" + extra + "}},\n";
}

std::string close(std::string body) {
  body.resize(body.size() - 2);  // the last ",\n"
  return body + "\n]}\n";
}

json whatif_of(const std::string& trace) {
  npu::test::TempDir dir;
  const npu::Facts f = npu::compute_facts(npu::test::load_path(dir.write("t.pt.trace.json", trace)));
  return f.doc["whatif"];
}

// One step, 100 us: four launches (5 us each, at 10, 30, 50, 70 us) of 2 us kernels that start
// 10 us after their launch. The GPU waits on the host.
std::string launch_bound() {
  std::string t = header();
  for (int i = 0; i < 4; ++i) {
    t += call("cudaLaunchKernel", 1010 + 20 * i, 5, i + 1);
    t += op("kernel", "k", 1020 + 20 * i, 2, i + 1);
  }
  return close(t);
}

TEST(WhatIf, TheUnmodifiedReplayGivesTheMeasuredStepBack) {
  const json w = whatif_of(launch_bound());
  ASSERT_EQ(w["available"], true) << w.dump();
  EXPECT_EQ(w["measured_step_ns"], 100'000);
  EXPECT_EQ(w["replayed_step_ns"], 100'000);
  EXPECT_EQ(w["reproduces"], true);
  EXPECT_EQ(w["tasks"], 4);
  EXPECT_EQ(w["joined"], 4);
  // Every kernel waited for its launch: the typical latency is theirs, 10 us.
  EXPECT_EQ(w["typical"]["launch_latency_ns"], 10'000);
}

// Graphs: the four launches become one graph launch of 4 nodes (1 us each, the default): the
// host time [1014, 1075] is removed, so the step's host end comes at 1100 - 61 = 1039. The
// kernels start 10 us after the first launch and follow each other 0.1 us apart: the last ends
// at 1020 + 4 x 2 + 3 x 0.1 = 1028.3, before the host end. Step: 39 us, saving 61 us.
TEST(WhatIf, GraphsReplaceTheLaunchesByOne) {
  const json w = whatif_of(launch_bound());
  const json& g = w["transforms"]["graphs"];
  ASSERT_EQ(g["applicable"], true) << g.dump();
  EXPECT_EQ(g["step_ns"], 39'000);
  EXPECT_EQ(g["saving_ns"], 61'000);
  EXPECT_NE(g["formula"].get<std::string>().find("1.00 us per graph node"), std::string::npos);
  EXPECT_EQ(w["transforms"]["syncs"]["applicable"], false);
  EXPECT_EQ(w["transforms"]["dataloader"]["why"], "no DataLoader fetches in the trace");
  EXPECT_EQ(w["combined"]["saving_ns"], 61'000);
}

// Two waits in one step: a launch at 10 us of a 40 us kernel (20..60), a sync from 16 to 61 us
// (it waited for the kernel, then 1 us), a launch at 62 us of a 2 us kernel (72..74) and a last
// sync from 68 to 75 us. Removing the first wait (the step's last stays): the first sync ends
// at 16; the second launch starts at 17 (the 1 us gap after the sync), its kernel can start at
// 27 but follows the first kernel 1 us apart (no stream-gated kernel measured: the 1 us
// default): 61..63. The last sync starts 1 us after the launch's end (23) and waits for that
// kernel: max(23 + 5, 63 + 1) = 64; the host step ends 25 us later, at 89. Step: 89 us, saving
// 11 us.
TEST(WhatIf, SyncsLetTheHostRunAhead) {
  std::string t = header();
  t += call("cudaLaunchKernel", 1010, 5, 1);
  t += op("kernel", "long", 1020, 40, 1);
  t += call("cudaDeviceSynchronize", 1016, 45, 0);
  t += call("cudaLaunchKernel", 1062, 5, 2);
  t += op("kernel", "short", 1072, 2, 2);
  t += call("cudaDeviceSynchronize", 1068, 7, 0);
  const json w = whatif_of(close(t));
  ASSERT_EQ(w["reproduces"], true) << w.dump();
  const json& s = w["transforms"]["syncs"];
  ASSERT_EQ(s["applicable"], true) << s.dump();
  EXPECT_EQ(s["step_ns"], 89'000);
  EXPECT_EQ(s["saving_ns"], 11'000);
}

// A 32 MiB pageable copy taking 10 ms, whose call blocks the host until it ends, then a kernel.
// Pinned at the H200's default 50 GB/s it takes 33554432 / 50 = 671088 ns, and the call returns
// at once (an eager launch: 5 us, the median launch call).
TEST(WhatIf, PinnedCopiesRunAtPinnedBandwidth) {
  std::string t = header();
  t += call("cudaMemcpyAsync", 1005, 10'010, 1);
  t += op("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 1010, 10'000, 1, R"(, "bytes": 33554432)");
  t += call("cudaLaunchKernel", 11'020, 5, 2);
  t += op("kernel", "k", 11'030, 2, 2);
  std::string body = close(t);
  // The step span covers the copy and the kernel: 1000 .. 11100.
  const std::string span = R"("ts": 1000, "dur": 100})";
  body.replace(body.find(span), span.size(), R"("ts": 1000, "dur": 10100})");
  const json w = whatif_of(body);
  ASSERT_EQ(w["reproduces"], true) << w.dump();
  const json& p = w["transforms"]["pinned"];
  ASSERT_EQ(p["applicable"], true) << p.dump();
  EXPECT_NE(p["formula"].get<std::string>().find("HtoD at 50.0 GB/s (PCIe Gen5 x16 default for NVIDIA H200)"),
            std::string::npos)
      << p["formula"];
  // Before: 10.1 ms. After: the copy 1010 .. 1681.088 us; the call ends at 1005 + 5 = 1010; the
  // launch follows 5 us later (its measured gap after the call): 1015, its kernel 10 us after
  // its launch and 1 us after the copy (the default stream gap): 1682.088 .. 1684.088. The host
  // step ends at 1015 + 5 + 75 = 1095 us, the kernel at 1684.088: the step is 684.088 us.
  EXPECT_EQ(p["step_ns"], 684'088);
}

// A rule that names a transformation gets the replay's saving; one naming an unknown one fails
// at load.
TEST(WhatIf, ARuleAsksForATransformationByName) {
  npu::test::TempDir dir;
  const npu::Facts f = npu::compute_facts(npu::test::load_path(dir.write("t.pt.trace.json", launch_bound())));
  npu::RuleEngine engine;
  engine.add_rule_source({"mine.lua", R"(rule { id = "my.graphs", title = "t", whatif = "graphs" }
function check(facts, p, emit) emit { observed = "launch-bound", saving_ns = 1000, saving_formula = "mine" } end)"},
                         false);
  engine.add_rule_source({"bad.lua", R"(rule { id = "my.bad", title = "t", whatif = "faster" }
function check(facts, p, emit) end)"},
                         false);
  const auto outcomes = engine.run(f);
  ASSERT_EQ(outcomes.size(), 2u + engine.verdicts().size());  // the rules, then the verdicts
  ASSERT_EQ(outcomes[0].findings.size(), 1u) << outcomes[0].reason;
  const json& x = outcomes[0].findings[0];
  EXPECT_EQ(x["saving_ns"], 61'000);
  EXPECT_EQ(x["saving_method"], "replay");
  EXPECT_EQ(x["saving_rule_ns"], 1000);
  EXPECT_EQ(x["saving_rule_formula"], "mine");
  EXPECT_EQ(x["saving_formula"].get<std::string>().rfind("replay (graphs): ", 0), 0u);
  EXPECT_EQ(outcomes[1].status, npu::RuleOutcome::Status::Failed);
  EXPECT_NE(outcomes[1].reason.find("whatif 'faster' is no transformation of the replay"), std::string::npos)
      << outcomes[1].reason;
}

// Without a usable replay the rule's own estimate stays, and the finding says why.
TEST(WhatIf, WithoutAReplayTheRuleKeepsItsFormula) {
  npu::Facts f;
  f.doc = {{"whatif", {{"available", false}, {"why", "no device tasks"}}}};
  npu::RuleEngine engine;
  engine.add_rule_source({"mine.lua", R"(rule { id = "my.graphs", title = "t", whatif = "graphs" }
function check(facts, p, emit) emit { observed = "x", saving_ns = 1000 } end)"},
                         false);
  const auto outcomes = engine.run(f);
  ASSERT_EQ(outcomes[0].findings.size(), 1u) << outcomes[0].reason;
  const json& x = outcomes[0].findings[0];
  EXPECT_EQ(x["saving_ns"], 1000);
  EXPECT_EQ(x["saving_method"], "formula");
  EXPECT_EQ(x["saving_note"], "the rule's own estimate: no replay: no device tasks");
}

// fp32 GEMMs on the CUDA cores timed on the tensor cores by the roofline (docs/facts-roofline.md,
// "The precision change"), on an H200 (132 SMs: TF32 494.7, BF16 989.4 TFLOP/s, 4.8 TB/s). An
// aten::mm of 4096 x 4096 x 4096 fp32 (2 x 4096^3 = 137438953472 FLOPs, 3 x 4096^2 x 4 =
// 201326592 bytes) runs 2 ms on the CUDA cores; a second aten::mm without recorded shapes runs
// 0.5 ms after it; a sync waits for both. At 0.7 of the roofs: TF32 max(137438953472 / (0.7 x
// 494.7e12), 201326592 / (0.7 x 4.8e12)) = 396889.76 ns, bf16 max(198444.88, 29959.31) ns. The
// kernels run back to back and the sync ends 1 us after the last: the step shortens by what the
// first kernel loses. `tf32_done`: a third aten::mm of the same shapes already in TF32 (600 us).
std::string fp32_gemms(bool tf32_done) {
  std::string t = header();
  const std::string mm = R"(  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )";
  const std::string dims = R"(, "args": {"Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["float", "float"]}},
)";
  t += mm + R"(1005, "dur": 10)" + dims;
  t += call("cudaLaunchKernel", 1008, 5, 1);
  t += op("kernel", "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>", 1020, 2000, 1);
  t += mm + R"(1016, "dur": 10},
)";
  t += call("cudaLaunchKernel", 1018, 5, 2);
  t += op("kernel", "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>", 3021, 500, 2);
  npu::Ns end = 3521;
  if (tf32_done) {
    t += mm + R"(1027, "dur": 10)" + dims;
    t += call("cudaLaunchKernel", 1029, 5, 3);
    t += op("kernel", "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute", 3522,
            600, 3);
    end = 4122;
  }
  t += call("cudaDeviceSynchronize", 1040, static_cast<double>(end + 1 - 1040), 0);
  std::string body = close(t);
  body.replace(body.find(R"("name": "NVIDIA H200"})"), 22, R"("name": "NVIDIA H200", "numSms": 132})");
  const std::string span = R"("ts": 1000, "dur": 100})";
  body.replace(body.find(span), span.size(), R"("ts": 1000, "dur": )" + std::to_string(end + 9 - 1000) + "}");
  return body;
}

TEST(WhatIf, PrecisionTransformsTimeTheGemmsOnTheRoofline) {
  const json w = whatif_of(fp32_gemms(false));
  ASSERT_EQ(w["reproduces"], true) << w.dump();
  const json& t = w["transforms"]["tf32"];
  ASSERT_EQ(t["applicable"], true) << t.dump();
  EXPECT_EQ(t["kernels_ns"], 2'000'000);
  EXPECT_EQ(t["kernels_after_ns"], 396'889);
  EXPECT_EQ(t["not_counted_ns"], 500'000);  // the shapeless aten::mm keeps its time
  EXPECT_EQ(t["saving_ns"], 2'000'000 - 396'889);
  EXPECT_GE(t["bound_ns"], t["saving_ns"]);  // the kernels at no time at all save at least as much
  const std::string f = t["formula"];
  EXPECT_NE(f.find("max(FLOPs / (0.70 x 494.7 TFLOP/s), bytes / (0.70 x 4.80 TB/s))"), std::string::npos) << f;
  EXPECT_NE(f.find("no shapes recorded (record_shapes off): 1 kernels, 0.500 ms"), std::string::npos) << f;
  const json& b = w["transforms"]["bf16"];
  EXPECT_EQ(b["kernels_after_ns"], 198'444);
  EXPECT_EQ(b["saving_ns"], 2'000'000 - 198'444);
}

// A group of the same op and shapes already in TF32 (600 us an instance) holds the fp32 one's
// TF32 time there, above the roofline's 396.9 us; bf16 has no such group.
TEST(WhatIf, PrecisionTransformsAreNeverFasterThanTheRunsOwnKernels) {
  const json w = whatif_of(fp32_gemms(true));
  ASSERT_EQ(w["reproduces"], true) << w.dump();
  EXPECT_EQ(w["transforms"]["tf32"]["kernels_after_ns"], 600'000) << w["transforms"]["tf32"].dump();
  EXPECT_NE(w["transforms"]["tf32"]["formula"].get<std::string>().find("1 held at the time a group of the same shapes"),
            std::string::npos);
  EXPECT_EQ(w["transforms"]["bf16"]["kernels_after_ns"], 198'444);
}

// On a device the peaks table does not hold, nothing is guessed: no precision replay.
TEST(WhatIf, PrecisionTransformsNeedTheDevicesPeaks) {
  std::string body = fp32_gemms(false);
  body.replace(body.find("NVIDIA H200"), 11, "NVIDIA RTX9");
  const json w = whatif_of(body);
  EXPECT_EQ(w["transforms"]["bf16"]["applicable"], false);
  EXPECT_NE(w["transforms"]["bf16"]["why"].get<std::string>().find("not in the peaks table"), std::string::npos)
      << w["transforms"]["bf16"].dump();
}

}  // namespace
