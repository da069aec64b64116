// verify's verdicts (compare/verify.cpp), the same-work check (compare/same_work.cpp) and the
// command-line pieces verify uses, on CPU-only sides made of host step spans (facts.host_steps):
// every expected figure is worked by hand from the step times below.
#include "compare/verify.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "collector/command_line.h"
#include "compare/compare.h"
#include "compare/same_work.h"

namespace {

using nlohmann::json;
namespace cmp = npu::compare;

// A CPU-only side: steps of the given times (ms), ids 10.., 11 backward ops per optimizer step.
cmp::CompareSide side(const std::vector<double>& ms, double backward_per_step = 11) {
  cmp::CompareSide s;
  json steps = json::array();
  int64_t t = 0;
  for (size_t i = 0; i < ms.size(); ++i) {
    const auto d = static_cast<int64_t>(ms[i] * 1e6);
    steps.push_back({{"id", 10 + i}, {"start_ns", t}, {"end_ns", t + d}, {"host_dur_ns", d}, {"evidence", json::array()}});
    t += d;
  }
  s.facts.doc = {{"host_steps", steps},
                 {"job", {{"backward_ops", backward_per_step * ms.size()}, {"optimizer_steps", ms.size()}}}};
  return s;
}

json judge(const cmp::CompareSide& b, const cmp::CompareSide& n, std::optional<cmp::Prediction> p) {
  return cmp::verify_fix(cmp::build_compare(b, n), p);
}

cmp::Prediction predicted(double ms) {
  cmp::Prediction p;
  p.rule = "schedule.dataloader";
  p.saving_ns = ms * 1e6;
  p.method = "formula";
  return p;
}

// 9 steps: the first (warm-up) is dropped; the other 8 differ by 30 ms +- 0.4.
const std::vector<double> kBase = {200, 50, 50.2, 49.8, 50.1, 49.9, 50.3, 49.7, 50};
const std::vector<double> kFast = {200, 20, 20.1, 20.3, 19.8, 20, 20.2, 19.9, 20.1};

TEST(Verify, ConfirmedWhenThePredictionIsInsideTheBand) {
  // Per-step savings 30, 30.1, 29.5, 30.3, 29.9, 30.1, 29.8, 29.9: the median (element round(0.5 x 7)
  // = 4 of the sorted differences new - base) is -29.9, a saving of 29.9 ms.
  json v = judge(side(kBase), side(kFast), predicted(33));
  EXPECT_EQ(v["verdict"], "confirmed") << v.dump(1);
  EXPECT_EQ(v["realised"]["saving_ns"], 29900000);
  EXPECT_GT(v["realised"]["ci_low_ns"].get<double>(), 29e6);
  EXPECT_NEAR(v["prediction_off_ratio"].get<double>(), 33 / 29.9 - 1, 1e-9);
}

TEST(Verify, PredictionOffSaysByHowMuch) {
  json v = judge(side(kBase), side(kFast), predicted(80));  // 80 / 29.9 = 2.68: +168%
  EXPECT_EQ(v["verdict"], "confirmed, prediction off");
  EXPECT_NE(v["why"].get<std::string>().find("off by +168%"), std::string::npos) << v["why"];
  v = judge(side(kBase), side(kFast), predicted(20));  // 20 / 29.9: -33%, under the -25% edge
  EXPECT_EQ(v["verdict"], "confirmed, prediction off");
}

TEST(Verify, NoEffectSlowerAndInconclusive) {
  // The same steps shifted by +-0.1 ms: the interval holds 0 and rules out 30 ms.
  std::vector<double> same = kBase;
  for (size_t i = 1; i < same.size(); ++i) same[i] += (i % 2 ? 0.1 : -0.1);
  EXPECT_EQ(judge(side(kBase), side(same), predicted(30))["verdict"], "no effect");
  // No prediction: a saving of 10% of the 50 ms step (5 ms) is ruled out.
  EXPECT_EQ(judge(side(kBase), side(same), std::nullopt)["verdict"], "no effect");
  // No prediction, a shift of 1 ms on a 50 ms step, beyond step-to-step noise: inside the 10% one
  // run may drift from another, no effect.
  std::vector<double> drifted = kBase;
  for (size_t i = 1; i < drifted.size(); ++i) drifted[i] -= 1 + (i % 2 ? 0.05 : -0.05);
  json d = judge(side(kBase), side(drifted), std::nullopt);
  EXPECT_EQ(d["verdict"], "no effect") << d.dump(1);
  EXPECT_GT(d["realised"]["ci_low_ns"].get<double>(), 0);
  // Slower by 30 ms.
  EXPECT_EQ(judge(side(kFast), side(kBase), predicted(5))["verdict"], "slower");
  // Noise of +-20 ms around no change: neither 0 nor the 5 ms prediction is ruled out.
  std::vector<double> noisy = kBase;
  for (size_t i = 1; i < noisy.size(); ++i) noisy[i] += (i % 2 ? 20 : -20);
  json v = judge(side(kBase), side(noisy), predicted(5));
  EXPECT_EQ(v["verdict"], "inconclusive");
  EXPECT_NE(v["why"].get<std::string>().find("noise wider than the prediction"), std::string::npos);
  // Two steps a side: no noise test.
  v = judge(side({50, 50}), side({20, 20}), predicted(30));
  EXPECT_EQ(v["verdict"], "inconclusive");
  EXPECT_NE(v["why"].get<std::string>().find("too few steps"), std::string::npos);
}

TEST(SameWork, ADifferentModelIsNamed) {
  json same = cmp::same_work(side(kBase).facts, side(kFast).facts);
  EXPECT_TRUE(same["same"].get<bool>());
  json diff = cmp::same_work(side(kBase).facts, side(kFast, 21).facts);
  EXPECT_FALSE(diff["same"].get<bool>());
  EXPECT_EQ(cmp::describe_differences(diff), "backward operators per optimizer step: 11 -> 21");
  json v = judge(side(kBase), side(kFast, 21), predicted(30));
  EXPECT_EQ(v["verdict"], "inconclusive");
  EXPECT_NE(v["why"].get<std::string>().find("different work"), std::string::npos);
  // And a different step count.
  EXPECT_FALSE(cmp::same_work(side(kBase).facts, side({50, 50, 50}).facts)["same"].get<bool>());
}

// FLOPs per step from shapes (facts.roofline.steps[].flops) decide where both sides have them: the
// same FLOPs with other counts is the same arithmetic run by other kernels (count_changes).
TEST(SameWork, FlopsFromShapesDecideOverKernelCounts) {
  auto with_flops = [](cmp::CompareSide s, double flops) {
    json steps = json::array();
    for (int i = 0; i < 3; ++i) steps.push_back({{"step", i}, {"flops", flops}});
    s.facts.doc["roofline"] = {{"steps", steps}};
    return s;
  };
  json same = cmp::same_work(with_flops(side(kBase), 1e12).facts, with_flops(side(kFast, 21), 1e12).facts);
  EXPECT_TRUE(same["same"].get<bool>()) << same.dump(1);
  ASSERT_EQ(same["count_changes"].size(), 1u);
  EXPECT_EQ(same["count_changes"][0]["text"], "backward operators per optimizer step: 11 -> 21");
  json diff = cmp::same_work(with_flops(side(kBase), 1e12).facts, with_flops(side(kFast, 21), 2e12).facts);
  EXPECT_FALSE(diff["same"].get<bool>());
  EXPECT_EQ(cmp::describe_differences(diff),
            "modelled FLOPs per step (recorded shapes): 1e+12 -> 2e+12; backward operators per optimizer step: 11 -> 21");
  // One side without shapes: the counts decide, as before.
  json one = cmp::same_work(with_flops(side(kBase), 1e12).facts, side(kFast, 21).facts);
  EXPECT_FALSE(one["same"].get<bool>());
}

TEST(Verify, EnvironmentAssignmentsInFindingCommands) {
  EXPECT_EQ(cmp::env_assignment("export TASK_QUEUE_ENABLE=2"), "TASK_QUEUE_ENABLE=2");
  EXPECT_EQ(cmp::env_assignment("CPU_AFFINITY_CONF=1   # bind the cores"), "CPU_AFFINITY_CONF=1");
  EXPECT_FALSE(cmp::env_assignment("DataLoader(dataset, num_workers=8)").has_value());
  EXPECT_FALSE(cmp::env_assignment("export A=1 && python x.py").has_value());
  json findings = json::array({{{"rule", "dispatch.task_queue"}, {"saving_ns", 5e6}, {"commands", {"export TASK_QUEUE_ENABLE=2"}}},
                               {{"rule", "schedule.dataloader"}, {"saving_ns", 9e6}, {"commands", {"DataLoader(...)"}}}});
  auto fixes = cmp::env_fixes(findings);
  ASSERT_EQ(fixes.size(), 1u);
  EXPECT_EQ(fixes[0].first, "TASK_QUEUE_ENABLE=2");
  EXPECT_EQ(fixes[0].second.rule, "dispatch.task_queue");
  std::string why;
  EXPECT_EQ(cmp::prediction_of(findings, "", &why)->rule, "dispatch.task_queue");
  EXPECT_EQ(cmp::prediction_of(findings, "schedule.dataloader", &why)->saving_ns, 9e6);
  EXPECT_FALSE(cmp::prediction_of(findings, "memory.x", &why).has_value());
}

TEST(Verify, WhatifAlternativeReplacesTheFindingsSaving) {
  // compute.precision: two commands (TF32, bf16), its saving the bf16 replay's
  json findings = json::array({{{"rule", "compute.precision"}, {"saving_ns", 53.9e6}, {"saving_method", "replay"},
                                {"whatif", "bf16"}, {"commands", {"allow_tf32 = True", "autocast(bf16)"}}}});
  json facts = {{"whatif",
                 {{"available", true},
                  {"reproduces", true},
                  {"transforms",
                   {{"tf32", {{"applicable", true}, {"saving_ns", 49.5e6}, {"formula", "roofline TF32"}}},
                    {"bf16", {{"applicable", true}, {"saving_ns", 53.9e6}}},
                    {"task_queue", {{"applicable", false}, {"why", "no task queue"}}}}}}}};
  std::string why;
  const auto top = cmp::prediction_of(findings, "", &why);
  ASSERT_TRUE(top.has_value());
  EXPECT_NE(cmp::alternatives_note(findings, *top).find("--whatif"), std::string::npos);
  const auto tf32 = cmp::prediction_of_whatif(facts, top, "tf32", &why);
  ASSERT_TRUE(tf32.has_value());
  EXPECT_EQ(tf32->saving_ns, 49.5e6);
  EXPECT_EQ(tf32->rule, "compute.precision");
  EXPECT_EQ(tf32->method, "replay");
  EXPECT_EQ(cmp::alternatives_note(findings, *tf32), "");  // chosen: nothing left to say
  EXPECT_FALSE(cmp::prediction_of_whatif(facts, top, "task_queue", &why).has_value());
  EXPECT_NE(why.find("no task queue"), std::string::npos);
  EXPECT_FALSE(cmp::prediction_of_whatif(facts, top, "fp8", &why).has_value());
  EXPECT_FALSE(cmp::prediction_of_whatif(json::object(), top, "tf32", &why).has_value());
  facts["whatif"]["reproduces"] = false;  // a replay that does not give the steps back predicts nothing
  facts["whatif"]["why"] = "the unmodified replay differs from the measured steps by 3%";
  EXPECT_FALSE(cmp::prediction_of_whatif(facts, top, "tf32", &why).has_value());
  EXPECT_NE(why.find("differs from the measured steps by 3%"), std::string::npos) << why;
}

TEST(Verify, AfterCommandsSplitLikeAShell) {
  using V = std::vector<std::string>;
  EXPECT_EQ(npu::collector::split_shell_words("python3 job.py --workers 2"), (V{"python3", "job.py", "--workers", "2"}));
  EXPECT_EQ(npu::collector::split_shell_words(R"(python3 'my job.py' "a b" c\ d)"), (V{"python3", "my job.py", "a b", "c d"}));
  EXPECT_THROW(npu::collector::split_shell_words("python3 'x"), std::invalid_argument);
}

// A serving baseline with turns between its iterations predicts savings of the period; comparing
// the windows cannot check them, so verify says why instead of a verdict.
TEST(Verify, ASavingOfTheServingPeriodIsNotJudgedOnTheWindows) {
  json facts = {{"whatif", {{"period", {{"measured_ns", 2400000}, {"measured_turn_ns", 1200000}}}}}};
  EXPECT_NE(cmp::period_unverifiable(facts).find("1.200 ms of turn per iteration"), std::string::npos);
  facts["whatif"]["period"]["measured_turn_ns"] = 0;  // one iteration: the period is the window
  EXPECT_EQ(cmp::period_unverifiable(facts), "");
  EXPECT_EQ(cmp::period_unverifiable(json::object()), "");
  EXPECT_EQ(cmp::period_unverifiable({{"whatif", {{"period", "x"}}}}), "");
}

}  // namespace
