// `verify BASE NEW` on the real H200 before/after pair (issue 45): the dataloader finding's
// predicted saving against what dataloader_fixed realised, and a pair of different jobs refused.
// The expected figures are tests/realdata/verify_reference.py's, computed from the raw traces
// (launched-work step times, paired by ProfilerStep id: 68.978448 / 68.802875 / 68.654090 ms
// before, 2.520996 / 1.992093 / 2.216626 ms after).
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compare/compare.h"
#include "compare/same_work.h"
#include "compare/verify.h"
#include "pipeline/compare_side.h"
#include "test_support.h"

namespace {

using nlohmann::json;

std::string h200(const std::string& workload) { return npu::test::real("kineto_h200/" + workload); }

#define REQUIRE_H200() REQUIRE_REALDATA("kineto_h200/dataloader_fixed")

TEST(VerifyRealdata, DataloaderFixConfirmedWithItsInterval) {
  REQUIRE_H200();
  auto base = npu::pipeline::load_compare_side(h200("dataloader"), {}, {});
  auto next = npu::pipeline::load_compare_side(h200("dataloader_fixed"), {}, {});
  std::string why;
  auto pred = npu::compare::prediction_of(base.findings, "schedule.dataloader", &why);
  ASSERT_TRUE(pred) << why;
  EXPECT_EQ(pred->method, "replay");
  const json v = npu::compare::verify_fix(npu::compare::build_compare(base, next), pred);
  // Savings 66.457452, 66.810782, 66.437464 ms: median 66.457452; 3 values, so the percentile
  // interval's ends are the smallest and the largest.
  EXPECT_NEAR(v["realised"]["saving_ns"].get<double>(), 66457452, 1);
  EXPECT_NEAR(v["realised"]["ci_low_ns"].get<double>(), 66437464, 1);
  EXPECT_NEAR(v["realised"]["ci_high_ns"].get<double>(), 66810782, 1);
  EXPECT_EQ(v["verdict"], "confirmed") << v.dump(1);
  // 3 steps cannot pass the rank test (exact Wilcoxon p = 0.25): the why says so.
  EXPECT_NE(v["why"].get<std::string>().find("too few for the Wilcoxon signed-rank test"), std::string::npos)
      << v["why"];
}

TEST(VerifyRealdata, DifferentJobsAreNamed) {
  REQUIRE_H200();
  auto base = npu::pipeline::load_compare_side(h200("healthy"), {}, {});
  auto next = npu::pipeline::load_compare_side(h200("launch"), {}, {});
  const json same = npu::compare::same_work(base.facts, next.facts);
  EXPECT_FALSE(same["same"].get<bool>());
  // healthy: 319 kernels and 129 backward ops over its 3 steps / 6 optimizer steps; launch: 4635 and 3843.
  EXPECT_NE(npu::compare::describe_differences(same).find("device kernels per step: 106.3 -> 1545"), std::string::npos)
      << same.dump(1);
  EXPECT_NE(npu::compare::describe_differences(same).find("backward operators per optimizer step: 21.5 -> 640.5"),
            std::string::npos);
}

}  // namespace

// The H200 precision captures (testdata/captured/h200_precision, README.md there): a bf16 autocast
// fix adds casts and their backward operators, yet runs the same arithmetic. FLOPs per step by hand
// from the workloads' shapes: mlp4096 = 17 GEMMs (6 forward, 6 weight gradients, 5 input gradients:
// the input needs none) x 2 x 4096^3 = 2336.5 GFLOP; mlp8192 = 11 x 2 x 2048 x 8192^2 = 3023.7 GFLOP.
std::string captured(const std::string& run) {
  return std::string(NPU_SOURCE_DIR) + "/testdata/captured/h200_precision/" + run;
}

TEST(VerifyCaptured, Bf16AutocastIsTheSameWorkDifferentBatchIsNot) {
  auto fp32 = npu::pipeline::load_compare_side(captured("mlp4096_fp32"), {}, {});
  auto bf16 = npu::pipeline::load_compare_side(captured("mlp4096_bf16"), {}, {});
  const json same = npu::compare::same_work(fp32.facts, bf16.facts);
  EXPECT_TRUE(same["same"].get<bool>()) << same.dump(1);
  ASSERT_TRUE(same.contains("count_changes")) << same.dump(1);
  EXPECT_EQ(same["count_changes"][0]["what"], "device kernels per step");
  auto wider = npu::pipeline::load_compare_side(captured("mlp8192_fp32"), {}, {});
  const json other = npu::compare::same_work(fp32.facts, wider.facts);
  EXPECT_FALSE(other["same"].get<bool>());
  ASSERT_FALSE(other["differences"].empty());
  EXPECT_EQ(other["differences"][0]["what"], "modelled FLOPs per step (recorded shapes)");
  EXPECT_NEAR(other["differences"][0]["base"].get<double>(), 2336.5e9, 0.1e9);
  EXPECT_NEAR(other["differences"][0]["new"].get<double>(), 3023.7e9, 0.1e9);
}
