// Advice that fits the job (issue 30) on the real runs: the job's context, the user's call sites
// (with_stack traces), the commands each workload gets, and the Cube precision finding of the
// 2-rank torch_npu job. Independent numbers: the call sites were counted by a short script over
// the trace's python_function nesting, the fp32 matrix time summed from kernel_details.csv.
#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

using nlohmann::json;

std::string h200(const std::string& workload) {
  namespace fs = std::filesystem;
  for (const auto& e : fs::directory_iterator(npu::test::real("kineto_h200/" + workload)))
    if (e.path().string().ends_with(".pt.trace.json.gz")) return e.path().string();
  return "";
}

const json* finding(const json& report, const std::string& rule) {
  for (const auto& f : report["findings"])
    if (f["rule"] == rule) return &f;
  return nullptr;
}

// sync: the .item() calls are made in step() (w_sync.py, the function at line 11): 21 sync
// calls (6 data-dependent checks and the loss, 3 steps) and 3 .cpu(); the launch-bound finding
// says to remove them first, at that call site, before capturing graphs.
TEST(AdviceFits, SyncNamesItsCallSitesAndRemovesThemBeforeGraphs) {
  REQUIRE_REALDATA("kineto_h200/sync");
  const json d = npu::test::analyze_json(h200("sync"));
  const json& sites = d["facts"]["gpu"]["syncs"]["call_sites"];
  ASSERT_GE(sites.size(), 2u) << sites.dump();
  EXPECT_EQ(sites[0]["site"], "w_sync.py:11 step()");
  EXPECT_EQ(sites[0]["call"], ".item()");
  EXPECT_EQ(sites[0]["count"], 21);
  bool cpu = false;
  for (const auto& s : sites) cpu = cpu || (s["call"] == ".cpu()" && s["count"] == 3);
  EXPECT_TRUE(cpu) << sites.dump();
  const json* lb = finding(d, "dispatch.launch_bound");
  ASSERT_NE(lb, nullptr);
  EXPECT_EQ(lb->at("rank"), 1);
  EXPECT_NE(lb->at("action").get<std::string>().find("First remove the"), std::string::npos);
  EXPECT_NE(lb->at("commands")[0].get<std::string>().find("set_sync_debug_mode"), std::string::npos);
  EXPECT_NE(lb->at("commands")[0].get<std::string>().find("step() at w_sync.py:11"), std::string::npos);
}

// dataloader: the fetches are made in step() (w_dataloader.py:17) and spend their time in the
// Dataset's __getitem__ (w_dataloader.py:8): 96 samples (32 per batch, 3 steps).
TEST(AdviceFits, DataloaderNamesTheGetitemItsTimeGoesTo) {
  REQUIRE_REALDATA("kineto_h200/dataloader");
  const json d = npu::test::analyze_json(h200("dataloader"));
  EXPECT_EQ(d["facts"]["job"]["dataloader"], "single_process");
  const json& in = d["facts"]["operator_health"]["dataloader"]["time_in"];
  ASSERT_FALSE(in.empty());
  EXPECT_EQ(in[0]["site"], "w_dataloader.py:8 __getitem__()");
  EXPECT_EQ(in[0]["count"], 96);
  const json* f = finding(d, "schedule.dataloader");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->at("rank"), 1);
  EXPECT_NE(f->at("action").get<std::string>().find("The time is in your __getitem__() at w_dataloader.py:8"),
            std::string::npos);
}

// decode (GPT-2 generate(), fp16, no optimizer): inference; the launch-bound finding gives a
// static KV cache and a graphed forward. healthy and compiled: no finding above 5 % of the step.
TEST(AdviceFits, DecodeGetsAStaticCacheAndHealthyRunsStayQuiet) {
  REQUIRE_REALDATA("kineto_h200/decode");
  const json d = npu::test::analyze_json(h200("decode"));
  const json* lb = finding(d, "dispatch.launch_bound");
  ASSERT_NE(lb, nullptr);
  EXPECT_EQ(lb->at("rank"), 1);
  EXPECT_NE(lb->dump().find("cache_implementation = \\\"static\\\""), std::string::npos) << lb->dump();
  for (const char* w : {"healthy", "compiled"}) {
    const json r = npu::test::analyze_json(h200(w));
    for (const auto& f : r["findings"])
      EXPECT_LT(f["saving_ratio"].get<double>(), 0.05) << w << ": " << f["rule"];
  }
}

// msinsight_pytorch_2rank rank 0: 23 fp32 matrix operators (MatMulV2 x8 with HF32 off; Conv2D,
// Conv2DBackpropFilter, Conv2DBackpropInput with HF32 allowed, and a MatMulV3) take 2,805,855 ns
// (kernel_details.csv summed). The finding names them, tells the matmuls to allow HF32, and its
// saving is bounded by their time, below the stalled allreduce. mstt_compute_advice runs in bf16.
TEST(AdviceFits, AscendFp32CubeOperatorsAreNamedAndBounded) {
  REQUIRE_REALDATA("ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt");
  const json d = npu::test::analyze_json(npu::test::real("ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt"));
  const json& mp = d["facts"]["operators"]["matmul_precision"];
  EXPECT_EQ(mp["fp32_kernels"], 23);
  EXPECT_EQ(mp["fp32_ns"], 2805855);
  const json* f = finding(d, "compute.cube_precision");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->at("observed").get<std::string>().find("MatMulV2 x8"), std::string::npos);
  // The fp32 MatMulV2 are fully-connected layers at batch 32 (~16 FLOP/byte): memory-bound on the
  // roofline (docs/facts-roofline.md), so HF32 would change nothing; bf16 halves their bytes.
  EXPECT_EQ(f->at("commands").size(), 1u);
  EXPECT_EQ(f->at("commands")[0], "with torch.autocast(\"npu\", dtype=torch.bfloat16): loss = loss_fn(model(x), y)");
  EXPECT_NE(f->at("action").get<std::string>().find("memory-bound"), std::string::npos);
  EXPECT_NE(f->at("action").get<std::string>().find("HF32 changes nothing"), std::string::npos);
  EXPECT_LE(f->at("saving_ns").get<int64_t>(), 2805855);
  const json* comm = finding(d, "communication.long_collective");
  ASSERT_NE(comm, nullptr);
  EXPECT_LT(comm->at("rank").get<int>(), f->at("rank").get<int>());
  REQUIRE_REALDATA("ascend_torch_npu/mstt_compute_advice");
  const json q = npu::test::analyze_json(npu::test::real("ascend_torch_npu/mstt_compute_advice"));
  EXPECT_EQ(finding(q, "compute.cube_precision"), nullptr);
}

}  // namespace
