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
