// compare and gate of two serving windows of known times, built from the real SGLang decode
// iteration by tests/realdata/make_serving_window.py (copies stretched in time by a factor each):
//   base: batch sizes 32, 30, 32, 29 at 1, 1.2, 1, 1 x the original
//   new:  batch sizes 30, 32, 32, 16 at 1.32, 1.1, 1.1, 1 x the original: 10% slower at 30 and 32
// tests/realdata/verify_inference.py (the raw JSON, not our loaders) reads the own windows of the
// windows built: O = 10450.29 us, 1.2 O = 12540.35 us, 1.32 O = 13794.39 us, 1.1 O = 11495.32 us.
// By phase and batch size: 32: 10450.29 -> 11495.32 us (+10%), 30: 12540.35 -> 13794.39 us (+10%),
// 29 only in the base, 16 only in the new run. In the order they ran, iteration 1 (32 in the
// base, 30 in the new run) would read +32%, iteration 4 (29, 16) 0%. Decode time per token over
// 30 and 32 at the base's mix (1 x 30, 2 x 32): base (2 x 10450.29 + 12540.35) / 94 = 355.755 us,
// new (2 x 11495.32 + 13794.39) / 94 = 391.330 us: +10.0%.
#include <cstdlib>

#include <gtest/gtest.h>

#include "compare/compare.h"
#include "compare/gate.h"
#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

using json = nlohmann::json;
namespace cmp = npu::compare;

const char* kOne = "kineto/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz";

cmp::CompareSide window(const npu::test::TempDir& dir, const char* name, const char* batches, const char* scales) {
  const std::string out = (dir.path() / name).string();
  const std::string cmd = std::string("/usr/bin/python3 '") + NPU_SOURCE_DIR +
                          "/tests/realdata/make_serving_window.py' '" + npu::test::real(kOne) + "' '" + out +
                          "' --batches " + batches + " --scales " + scales;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  cmp::CompareSide s;
  s.path = out;
  s.kind = "TraceFile";
  s.facts = npu::compute_facts(npu::test::load_path(out));
  return s;
}

void expect_within_1pct(const json& v, double expected_us) {
  EXPECT_NEAR(v.get<double>(), expected_us * 1e3, expected_us * 10);
}

TEST(RealDataInferenceCompare, ServingWindowsMatchByPhaseAndBatchSize) {
  REQUIRE_REALDATA(kOne);
  npu::test::TempDir dir;
  const cmp::CompareSide base = window(dir, "base.json", "32,30,32,29", "1,1.2,1,1");
  const cmp::CompareSide next = window(dir, "new.json", "30,32,32,16", "1.32,1.1,1.1,1");
  const json doc = cmp::build_compare(base, next);
  const json& inf = doc["inference"];
  ASSERT_TRUE(inf["available"].get<bool>());
  ASSERT_EQ(inf["groups"].size(), 4u);  // decode 16, 29, 30, 32
  EXPECT_EQ(inf["groups"][0]["status"], "only_new");
  EXPECT_EQ(inf["groups"][1]["status"], "only_base");
  const json &g30 = inf["groups"][2], &g32 = inf["groups"][3];
  expect_within_1pct(g30["base"]["own_window_median_ns"], 12540.35);
  expect_within_1pct(g30["new"]["own_window_median_ns"], 13794.39);
  expect_within_1pct(g32["base"]["own_window_median_ns"], 10450.29);
  expect_within_1pct(g32["new"]["own_window_median_ns"], 11495.32);
  EXPECT_NEAR(g30["delta_ratio"].get<double>(), 0.10, 0.002);
  EXPECT_NEAR(g32["delta_ratio"].get<double>(), 0.10, 0.002);
  const json& d = inf["decode_token"];
  expect_within_1pct(d["base_ns"], 355.755);
  expect_within_1pct(d["new_ns"], 391.330);
  EXPECT_NEAR(d["delta_ratio"].get<double>(), 0.10, 0.002);
  EXPECT_FALSE(inf["prefill_1k_tokens"]["available"].get<bool>());  // no prefill in either
  // The steps are the iterations: never paired by their order.
  EXPECT_FALSE(doc["series"]["paired"].get<bool>());

  cmp::GateConfig cfg;
  cfg.set({"decode_token", cmp::Budget::Kind::Relative, 0.05, "5%", "test"});
  cfg.set({"step_time", cmp::Budget::Kind::Off, 0, "off", "test"});
  EXPECT_TRUE(cmp::gate_failed(cmp::evaluate_gate(doc, cfg)));
  cfg.set({"decode_token", cmp::Budget::Kind::Relative, 0.12, "12%", "test"});
  EXPECT_FALSE(cmp::gate_failed(cmp::evaluate_gate(doc, cfg)));
  cfg.set({"prefill_1k_tokens", cmp::Budget::Kind::Relative, 0.05, "5%", "test"});
  const json g = cmp::evaluate_gate(doc, cfg);
  ASSERT_TRUE(cmp::gate_input_error(g, doc).has_value());
  EXPECT_NE(cmp::gate_input_error(g, doc)->find("has no prefill phase"), std::string::npos);
}

}  // namespace
