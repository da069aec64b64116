// The roofline facts on real runs (docs/facts-roofline.md), each number against
// tests/realdata/verify_roofline.py, which computes it from the inputs with plain json / csv.
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json verifier(const std::string& kind, const std::string& path) {
  std::string cmd = "/usr/bin/python3 " + npu::test::source_dir() + "/tests/realdata/verify_roofline.py " + kind +
                    " '" + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return json();
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  return pclose(p) == 0 ? json::parse(out, nullptr, false) : json();
}

std::string healthy_trace() {
  for (const auto& e : fs::directory_iterator(npu::test::real("kineto_h200/healthy")))
    if (e.path().extension() == ".gz") return e.path().string();
  return "";
}

// 8 x Linear(8192) bf16 at batch 8192: 23 GEMMs of 2 x 8192^3 per step, at ~0.75 of the H200's
// dense BF16 peak: compute-bound, nothing to advise.
TEST(RooflineRealdata, HealthyGemmsMatchTheScriptAndSitNearTheBf16Peak) {
  REQUIRE_REALDATA("kineto_h200/healthy");
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const std::string trace = healthy_trace();
  const json v = verifier("kineto", trace);
  ASSERT_TRUE(v.is_object());
  npu::Facts f = npu::compute_facts(npu::test::load_path(trace));
  const json& r = f.doc["roofline"];
  EXPECT_EQ(r["device"]["id"], "nvidia-h200-sxm");
  for (const json& s : r["steps"]) {
    const std::string name = "ProfilerStep#" + std::to_string(s["step"].get<int>());
    EXPECT_DOUBLE_EQ(s["flops"].get<double>(), v["gemm_flops_per_step"][name].get<double>()) << name;
  }
  int gemms = 0;
  for (const json& g : r["groups"]) {
    if (g["kind"] != "gemm") continue;
    ++gemms;
    EXPECT_EQ(g["bound"], "compute");
    EXPECT_EQ(g["precision"], "bf16");
    EXPECT_GT(g["fraction"].get<double>(), 0.70);
    EXPECT_LT(g["fraction"].get<double>(), 0.80);
    for (const json& e : v["groups"])
      if (e["op"] == g["op"]) {
        EXPECT_EQ(g["count"], e["count"]);
        EXPECT_NEAR(g["achieved_flops_per_s"].get<double>() / e["achieved_flops_per_s"].get<double>(), 1.0, 0.03);
      }
  }
  EXPECT_EQ(gemms, 2);
}

// Rank 0 of the AlexNet-style 2-rank job: the clock and core count from the counters, convolution
// rates as the script computes them, and the fp32 fully-connected layers memory-bound.
TEST(RooflineRealdata, AscendClockCoresAndConvolutionRatesFromTheCounters) {
  const std::string rank0 = "ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt";
  REQUIRE_REALDATA(rank0);
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const json v = verifier("ascend", npu::test::real(rank0 + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"));
  ASSERT_TRUE(v.is_object());
  npu::Facts f = npu::compute_facts(npu::test::load_path(npu::test::real(rank0)));
  const json& r = f.doc["roofline"];
  EXPECT_EQ(r["device"]["cores"], 24);
  EXPECT_EQ(r["device"]["clock_mhz"], 1800.0);
  EXPECT_EQ(v["cores"], 24);
  EXPECT_NEAR(r["device"]["peak_flops_per_s"]["fp16"].get<double>(), 24 * 1.8e9 * 8192, 1.0);
  int convs = 0, matmuls = 0;
  for (const json& g : r["groups"]) {
    const std::string op = g["op"];
    if (op.rfind("Conv2D", 0) != 0 && op != "MatMulV2") continue;
    if (g["count"] != 1) continue;  // one row each: compare with the script's row
    for (const json& e : v["ops"])
      if (e["type"] == op && e["shapes"] == g["shapes"]) {
        EXPECT_NEAR(g["achieved_flops_per_s"].get<double>() / e["achieved_flops_per_s"].get<double>(), 1.0, 0.03) << op;
        EXPECT_DOUBLE_EQ(g["flops"].get<double>(), e["flops"].get<double>()) << op;
        if (op == "MatMulV2") {
          ++matmuls;
          EXPECT_EQ(g["precision"], "fp32");
          if (g["shapes"] == "32,9216;4096,9216;4096") {
            EXPECT_NEAR(g["intensity"].get<double>(), 15.8, 0.1);
            EXPECT_EQ(g["bound"], "memory");
          }
        } else {
          ++convs;
          EXPECT_EQ(g["precision"], "hf32");
        }
        break;
      }
  }
  EXPECT_GE(convs, 10);
  EXPECT_GE(matmuls, 3);
}

// A trace recorded without shapes: exit 0, and coverage says why.
TEST(RooflineRealdata, WithoutShapesCoverageSaysWhy) {
  REQUIRE_REALDATA("kineto_h200/collector_sync");
  for (const auto& e : fs::directory_iterator(npu::test::real("kineto_h200/collector_sync"))) {
    if (e.path().extension() != ".gz" && e.path().extension() != ".json") continue;
    npu::Facts f = npu::compute_facts(npu::test::load_path(e.path().string()));
    ASSERT_TRUE(f.doc.contains("roofline"));
    const json& c = f.doc["roofline"]["coverage"];
    EXPECT_EQ(c["modelled_ns"], 0);
    ASSERT_FALSE(c["not_modelled"].empty());
    EXPECT_EQ(c["not_modelled"][0]["reason"], "no shapes recorded (record_shapes off)");
    EXPECT_EQ(f.doc["roofline"]["device"]["id"], "nvidia-h200-sxm");  // FLOPs unknown, the device still is
  }
}

}  // namespace
