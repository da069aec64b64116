// `compare` (compare): the statistics, and the facts delta on pairs of runs generated with
// planted regressions (tools/gen_sample.py --slow-op / --extra-free-us / --new-aicpu /
// --noise-seed) and on two real ranks. docs/compare-gate.md.
#include "compare/compare.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "base/json_file.h"
#include "compare/stats.h"
#include "facts/diagnostics/diagnostics.h"
#include "reports/compare_render.h"
#include "rules/rule_engine.h"
#include "test_support.h"

namespace {

using nlohmann::json;
namespace cmp = npu::compare;

// ------------------------------------------------------------------ statistics

TEST(CompareStats, QuantileIsNearestRankLikeTheFacts) {
  EXPECT_EQ(cmp::median({3, 1, 2}), 2);
  EXPECT_EQ(cmp::median({4, 1, 3, 2}), 3);  // element round(0.5 * 3) = 2 of the sorted values
  EXPECT_EQ(cmp::quantile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9), 9);
  EXPECT_EQ(cmp::median({}), 0);
  EXPECT_EQ(cmp::mad({1, 2, 3, 4, 100}), 1);
}

TEST(CompareStats, MannWhitneyExactSmallSamples) {
  // Fully separated 4 vs 4: U = 16, two-sided exact p = 2 / C(8,4) = 2/70.
  auto r = cmp::mann_whitney({1, 2, 3, 4}, {5, 6, 7, 8});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 16);
  EXPECT_NEAR(r.p_value, 2.0 / 70.0, 1e-12);
  auto same = cmp::mann_whitney({1, 2, 3}, {1, 2, 3});  // ties: normal approximation
  EXPECT_FALSE(same.exact);
  EXPECT_NEAR(same.p_value, 1.0, 1e-12);
  // Interleaved: U = 10 of 16; P(U >= 10) = P(U <= 6) = 24/70, two-sided 48/70.
  auto mid = cmp::mann_whitney({1, 3, 5, 7}, {2, 4, 6, 8});
  EXPECT_EQ(mid.u, 10);
  EXPECT_NEAR(mid.p_value, 48.0 / 70.0, 1e-12);
}

TEST(CompareStats, WilcoxonSignedRankExact) {
  auto r = cmp::wilcoxon_signed_rank({1, 2, 3, 4});  // all positive: p = 2 / 2^4
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.w_plus, 10);
  EXPECT_NEAR(r.p_value, 0.125, 1e-12);
  EXPECT_EQ(cmp::wilcoxon_signed_rank({0, 0, 0}).n, 0u);
  EXPECT_EQ(cmp::wilcoxon_signed_rank({0, 0, 0}).p_value, 1.0);
}

TEST(CompareStats, BootstrapIsDeterministicAndSensible) {
  std::vector<double> a{100, 101, 99, 100, 102, 98, 100}, b{110, 111, 109, 110, 112, 108, 110};
  auto r1 = cmp::bootstrap_median_diff(a, b, 0.95);
  auto r2 = cmp::bootstrap_median_diff(a, b, 0.95);
  EXPECT_EQ(r1.low, r2.low);
  EXPECT_EQ(r1.high, r2.high);
  EXPECT_GT(r1.low, 0);
  EXPECT_LE(r1.low, 10);
  EXPECT_GE(r1.high, 10);
  auto same = cmp::bootstrap_median_diff(a, a, 0.95);
  EXPECT_LE(same.low, 0);
  EXPECT_GE(same.high, 0);
  auto paired = cmp::bootstrap_median({0, 0, 0, 0}, 0.95);
  EXPECT_EQ(paired.low, 0);
  EXPECT_EQ(paired.high, 0);
}

TEST(CompareStats, NoiseTestNeedsThreeStepsASide) {
  cmp::CompareOptions o;
  json t = cmp::noise_test({1, 2}, {3, 4, 5}, o, false);
  EXPECT_FALSE(t["possible"].get<bool>());
  EXPECT_NE(t["why"].get<std::string>().find("too few steps"), std::string::npos);
  json p = cmp::noise_test({10, 20, 30}, {11, 21, 31}, o, true);
  EXPECT_TRUE(p["possible"].get<bool>());
  EXPECT_EQ(p["pairing"], "paired by step id");
  EXPECT_TRUE(p["significant"].get<bool>());  // every step +1
  EXPECT_EQ(p["test"]["name"], "Wilcoxon signed-rank");
}

// ------------------------------------------------------------------ generated pairs

bool have_python() { return std::system("python3 --version > /dev/null 2>&1") == 0; }

std::string gen(const npu::test::TempDir& dir, const std::string& name, const std::string& flags, int steps) {
  std::string out = (dir.path() / name).string();
  std::string cmd = "python3 " + npu::test::source_dir() + "/tools/gen_sample.py " + out + " --steps " +
                    std::to_string(steps) + " " + flags + " > /dev/null";
  if (std::system(cmd.c_str()) != 0) return "";
  return out;
}

cmp::CompareSide side_of(const std::string& path) {
  cmp::CompareSide s;
  s.path = path;
  s.kind = "test";
  s.facts = npu::compute_facts(npu::test::load_path(path));
  npu::RuleEngine engine;
  engine.add_builtin_rules();
  s.findings = npu::ranked_findings(engine.run(s.facts));
  return s;
}

// Runs are generated (10 steps) and loaded on first use, once per test process.
class ComparePairs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!have_python()) return;
    dir_ = new npu::test::TempDir;
    sides_ = new std::map<std::string, cmp::CompareSide>;
  }
  static void TearDownTestSuite() {
    delete sides_;
    delete dir_;
    sides_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!sides_) GTEST_SKIP() << "python3 unavailable";
  }
  static const cmp::CompareSide& side(const std::string& name) {
    static const std::map<std::string, std::string> flags = {{"base", ""},
                                                             {"matmul", "--slow-op MatMulV3=1.3"},
                                                             {"free", "--extra-free-us 500"},
                                                             {"aicpu", "--new-aicpu"},
                                                             {"noise", "--noise-seed 2"}};
    auto it = sides_->find(name);
    if (it != sides_->end()) return it->second;
    std::string p = gen(*dir_, name, flags.at(name), 10);
    if (p.empty()) throw std::runtime_error("tools/gen_sample.py failed for " + name);
    return sides_->emplace(name, side_of(p)).first->second;
  }
  static json compare(const std::string& a, const std::string& b) { return cmp::build_compare(side(a), side(b)); }
  // The first why entry about an operator.
  static json top_operator(const json& doc) {
    for (const auto& w : doc["why"])
      if (w["kind"] == "operator_type" || w["kind"] == "operator_name") return w;
    return nullptr;
  }
  static npu::test::TempDir* dir_;
  static std::map<std::string, cmp::CompareSide>* sides_;
};
npu::test::TempDir* ComparePairs::dir_ = nullptr;
std::map<std::string, cmp::CompareSide>* ComparePairs::sides_ = nullptr;

void expect_adds_up(const json& doc) {
  const json& dec = doc["device_time"]["decomposition"];
  int64_t sum = 0;
  for (const auto& p : dec["parts"]) sum += p["delta_ns"].get<int64_t>();
  EXPECT_EQ(sum, dec["sum_of_parts_ns"].get<int64_t>());
  EXPECT_EQ(dec["sum_of_parts_ns"].get<int64_t>() + dec["residual_ns"].get<int64_t>(),
            dec["total_delta_ns"].get<int64_t>());
  EXPECT_EQ(dec["total_delta_ns"], doc["device_time"]["delta_ns"]);
  const json& mean = doc["device_time"]["mean_decomposition"];
  EXPECT_EQ(mean["sum_of_parts_ns"].get<int64_t>() + mean["residual_ns"].get<int64_t>(),
            mean["total_delta_ns"].get<int64_t>());
  EXPECT_LE(std::llabs(mean["residual_ns"].get<int64_t>()), 2);  // means add up (to rounding)
}

TEST_F(ComparePairs, IdenticalRunsHaveNoDelta) {
  json doc = compare("base", "base");
  EXPECT_EQ(doc["schema"], "npu-advisor.compare");
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["step_time"]["delta_ns"], 0);
  EXPECT_FALSE(doc["step_time"]["noise"]["significant"].get<bool>());
  EXPECT_TRUE(doc["series"]["paired"].get<bool>());
  for (const auto& p : doc["device_time"]["decomposition"]["parts"]) EXPECT_EQ(p["delta_ns"], 0);
  EXPECT_TRUE(doc["why"].empty());
  EXPECT_TRUE(doc["operators"]["new"].empty());
  EXPECT_TRUE(doc["operators"]["vanished"].empty());
  EXPECT_TRUE(doc["findings"]["appeared"].empty());
  EXPECT_TRUE(doc["findings"]["disappeared"].empty());
  expect_adds_up(doc);
}

TEST_F(ComparePairs, WarmupStepIsDropped) {
  json doc = compare("base", "noise");
  EXPECT_EQ(doc["step_time"]["warmup"]["base_dropped"], 1);
  EXPECT_EQ(doc["step_time"]["warmup"]["new_dropped"], 1);
  EXPECT_EQ(doc["step_time"]["base"]["steps_used"], 9);
  EXPECT_EQ(doc["series"]["base"]["step_ids"].front(), 2);
  bool said = false;
  for (const auto& n : doc["notes"]) said |= n.get<std::string>().find("warm-up") != std::string::npos;
  EXPECT_TRUE(said);
  cmp::CompareOptions keep;
  keep.skip_warmup = false;
  json all = cmp::build_compare(side("base"), side("noise"), keep);
  EXPECT_EQ(all["step_time"]["base"]["steps_used"], 10);
}

TEST_F(ComparePairs, NoiseOnlyIsWithinNoise) {
  json doc = compare("base", "noise");
  EXPECT_FALSE(doc["step_time"]["noise"]["significant"].get<bool>());
  EXPECT_LT(std::fabs(doc["step_time"]["delta_ratio"].get<double>()), 0.02);
  EXPECT_FALSE(doc["why_basis"]["significant"].get<bool>());
  expect_adds_up(doc);
}

TEST_F(ComparePairs, SlowerMatMulIsComputingAndMatMulV3) {
  json doc = compare("base", "matmul");
  EXPECT_GT(doc["step_time"]["delta_ratio"].get<double>(), 0.10);
  EXPECT_TRUE(doc["step_time"]["noise"]["significant"].get<bool>());
  ASSERT_FALSE(doc["why"].empty());
  EXPECT_EQ(doc["why"][0]["subject"], "computing");
  json op = top_operator(doc);
  ASSERT_TRUE(op.is_object());
  EXPECT_EQ(op["subject"], "MatMulV3");
  EXPECT_EQ(op["status"], "changed");
  EXPECT_NE(op["summary"].get<std::string>().find("each call got slower"), std::string::npos);
  // The operator table: MatMulV3 leads, 30 % slower, same number of calls.
  const json& t = doc["operators"]["by_type"][0];
  EXPECT_EQ(t["type"], "MatMulV3");
  EXPECT_NEAR(t["delta_ratio"].get<double>(), 0.30, 0.005);
  EXPECT_EQ(t["delta_calls_per_step"].get<double>(), 0.0);
  // Computing explains nearly all of the device-time delta.
  const json& parts = doc["device_time"]["decomposition"]["parts"];
  EXPECT_GT(parts[0]["delta_ns"].get<double>(), 0.85 * doc["device_time"]["delta_ns"].get<double>());
  expect_adds_up(doc);
}

TEST_F(ComparePairs, ExtraFreeTimeIsFree) {
  json doc = compare("base", "free");
  ASSERT_FALSE(doc["why"].empty());
  const json& w = doc["why"][0];
  EXPECT_EQ(w["subject"], "free");
  EXPECT_NEAR(w["delta_ns"].get<double>(), 500000, 1000);
  EXPECT_TRUE(w["significant"].get<bool>());
  bool dataloader = false;
  for (const auto& r : w["related"]) dataloader |= r.get<std::string>().find("dataloader") != std::string::npos;
  EXPECT_TRUE(dataloader) << w.dump(1);
  // The idle split names the cause first: the generator's extra 500 us sit in the dataloader call.
  EXPECT_EQ(w["related"][0].get<std::string>().rfind("idle: dataloader: +0.5", 0), 0u) << w.dump(1);
  bool row = false;
  for (const auto& r : doc["idle_causes"]["metrics"])
    if (r["key"] == "dataloader") {
      row = true;
      EXPECT_NEAR(r["delta"].get<double>(), 500000, 1000);
    }
  EXPECT_TRUE(row) << doc["idle_causes"].dump(1);
  EXPECT_TRUE(top_operator(doc).is_null());  // no operator changed
  EXPECT_GT(doc["device_time"]["free_ratio"]["delta"].get<double>(), 0.05);
  expect_adds_up(doc);
}

TEST_F(ComparePairs, NewAiCpuOperatorIsNamed) {
  json doc = compare("base", "aicpu");
  EXPECT_EQ(doc["operators"]["new"], json::array({"Unique"}));
  EXPECT_EQ(doc["operators"]["ai_cpu"]["delta_calls_per_step"].get<double>(), 1.0);
  EXPECT_EQ(doc["operators"]["ai_cpu"]["new_types"], json::array({"Unique"}));
  json op = top_operator(doc);
  ASSERT_TRUE(op.is_object());
  EXPECT_EQ(op["subject"], "Unique");
  EXPECT_EQ(op["status"], "new");
  EXPECT_EQ(op["accelerator_core"], "AI_CPU");
  bool computing = false;
  for (const auto& w : doc["why"]) computing |= w["subject"] == "computing";
  EXPECT_TRUE(computing);
  expect_adds_up(doc);
}

TEST_F(ComparePairs, RenderingsCarryTheAnswer) {
  json doc = compare("base", "matmul");
  std::string text = npu::reports::render_compare_text(doc);
  EXPECT_NE(text.find("MatMulV3"), std::string::npos);
  EXPECT_NE(text.find("residual"), std::string::npos);
  EXPECT_NE(text.find("beyond step-to-step noise"), std::string::npos);
  std::string md = npu::reports::render_compare_markdown(doc);
  EXPECT_NE(md.find("## Why"), std::string::npos);
  EXPECT_NE(md.find("| computing |"), std::string::npos);
}

// ------------------------------------------------------------------ robustness

TEST(CompareFacts, AbsentSectionsAreSaidNotFatal) {
  cmp::CompareSide a, b;
  a.path = "a.json";
  b.path = "b.json";
  a.facts.doc = {{"schema", "npu-advisor.facts"}, {"schema_version", 1}, {"unavailable", json::array()}};
  b.facts.doc = a.facts.doc;
  json steps = json::array();
  for (int i = 1; i <= 5; ++i)
    steps.push_back({{"id", i}, {"computing_ns", 1000000 * i}, {"comm_not_overlapped_ns", 100000}, {"free_ns", 50000}});
  a.facts.doc["steps"] = steps;
  for (auto& s : steps) s["free_ns"] = 150000;
  b.facts.doc["steps"] = steps;
  json doc = cmp::build_compare(a, b);
  EXPECT_FALSE(doc["operators"]["available"].get<bool>());
  EXPECT_NE(doc["operators"]["note"].get<std::string>().find("no operator facts"), std::string::npos);
  EXPECT_FALSE(doc["dispatch"]["available"].get<bool>());
  EXPECT_FALSE(doc["memory"]["available"].get<bool>());
  // No host spans: the step time is the device time.
  EXPECT_EQ(doc["series"]["step_time_basis"], "device");
  EXPECT_EQ(doc["step_time"]["delta_ns"], 100000);
  EXPECT_EQ(doc["why"][0]["subject"], "free");
  expect_adds_up(doc);
  EXPECT_FALSE(npu::reports::render_compare_text(doc).empty());

  // No steps at all on one side.
  b.facts.doc.erase("steps");
  json none = cmp::build_compare(a, b);
  EXPECT_FALSE(none["step_time"]["available"].get<bool>());
  EXPECT_TRUE(none["why"].empty());
  EXPECT_FALSE(npu::reports::render_compare_markdown(none).empty());
}

TEST(CompareFacts, MedianResidualIsExplicit) {
  // Medians of parts need not add up to the median of their sums.
  cmp::CompareSide a, b;
  a.facts.doc = {{"schema", "npu-advisor.facts"}, {"schema_version", 1}};
  b.facts.doc = a.facts.doc;
  a.facts.doc["steps"] =
      json::array({{{"id", 1}, {"computing_ns", 10}, {"comm_not_overlapped_ns", 0}, {"free_ns", 0}},
                   {{"id", 2}, {"computing_ns", 10}, {"comm_not_overlapped_ns", 0}, {"free_ns", 0}},
                   {{"id", 3}, {"computing_ns", 10}, {"comm_not_overlapped_ns", 0}, {"free_ns", 0}}});
  b.facts.doc["steps"] =
      json::array({{{"id", 1}, {"computing_ns", 20}, {"comm_not_overlapped_ns", 0}, {"free_ns", 5}},
                   {{"id", 2}, {"computing_ns", 10}, {"comm_not_overlapped_ns", 0}, {"free_ns", 30}},
                   {{"id", 3}, {"computing_ns", 30}, {"comm_not_overlapped_ns", 0}, {"free_ns", 0}}});
  json doc = cmp::build_compare(a, b);
  const json& dec = doc["device_time"]["decomposition"];
  EXPECT_EQ(dec["total_delta_ns"], 30 - 10);  // device times 25, 40, 30: median 30
  EXPECT_EQ(dec["sum_of_parts_ns"], 10 + 0 + 5);
  EXPECT_EQ(dec["residual_ns"], 5);
}

// ------------------------------------------------------------------ real data

using npu::test::real;

TEST(CompareRealData, TwoRanksDecompositionAddsUp) {
  std::string r0 = real("ascend_torch_npu/msinsight_2rank/test_rank_0"),
              r1 = real("ascend_torch_npu/msinsight_2rank/test_rank_1");
  if (!std::filesystem::exists(r0) || !std::filesystem::exists(r1)) GTEST_SKIP() << "no ../shared/realdata";
  json doc = cmp::build_compare(side_of(r0), side_of(r1));
  ASSERT_TRUE(doc["step_time"]["available"].get<bool>());
  // One step each: the step time is the profiler's device time (no trace), no noise test.
  EXPECT_EQ(doc["series"]["step_time_basis"], "device");
  EXPECT_FALSE(doc["step_time"]["noise"]["possible"].get<bool>());
  EXPECT_EQ(doc["step_time"]["base"]["steps_used"], 1);
  expect_adds_up(doc);
  const json& dec = doc["device_time"]["decomposition"];
  EXPECT_EQ(dec["residual_ns"], 0);     // one step: the parts add up exactly
  EXPECT_NE(dec["total_delta_ns"], 0);  // the two step_trace_time.csv rows differ
  // The largest part is the communication not overlapped (146.6 -> 151.3 ms).
  ASSERT_FALSE(doc["why"].empty());
  EXPECT_EQ(doc["why"][0]["subject"], "comm_not_overlapped");
  EXPECT_TRUE(doc["memory"]["available"].get<bool>());
  EXPECT_TRUE(doc["operators"]["available"].get<bool>());
}

// ------------------------------------------------------------------ CLI

int run(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(CompareCli, FactsFilesAndRunsMix) {
  npu::test::TempDir d;
  std::string bin = NPU_ADVISOR_BIN, sample = npu::test::sample_run();
  std::string facts = (d.path() / "base.json").string(), out = (d.path() / "cmp.json").string();
  ASSERT_EQ(run(bin + " facts -q " + sample + " -o " + facts), 0);
  ASSERT_EQ(run(bin + " compare -q " + facts + " " + sample + " -o " + out), 0);
  json doc = npu::read_json_file(out);
  EXPECT_EQ(doc["schema"], "npu-advisor.compare");
  EXPECT_EQ(doc["base"]["kind"], "facts file");
  EXPECT_EQ(doc["new"]["kind"], "ascend run folder");
  EXPECT_EQ(doc["step_time"]["delta_ns"], 0);
  EXPECT_EQ(doc["step_time"]["base"]["steps_used"], 4);  // 5 steps, warm-up dropped
  std::string md = (d.path() / "cmp.md").string();
  ASSERT_EQ(run(bin + " compare -q " + sample + " " + facts + " -o " + md), 0);
  EXPECT_TRUE(std::filesystem::file_size(md) > 100);
  EXPECT_EQ(run(bin + " compare -q " + sample + " /nonexistent/run 2> /dev/null"), 2);
}

}  // namespace
