// The step split in words (reports/attribution_text.cpp): a serving run's iterations add the
// host's turn between them as a part of the period, and the title says so.
#include <gtest/gtest.h>

#include "reports/report_document.h"

namespace {

using nlohmann::json;

json split(json parts, int steps) {
  return {{"available", true}, {"steps", steps}, {"step_ns", 2400000}, {"parts", std::move(parts)},
          {"idle_causes", json::array({{{"cause", "sync"}, {"ns", 380000}}})}};
}

TEST(AttributionText, AServingRunsTurnIsAPartOfTheIterationPeriod) {
  const json a = split({{"computing_ns", 800000}, {"idle_ns", 400000}, {"turn_ns", 1200000}}, 3);
  EXPECT_EQ(npu::step_split_title(a),
            "Where the time of an iteration goes (the mean of 3 iterations, 2.400 ms: the window and the turn after it)");
  EXPECT_EQ(npu::step_split_text(a),
            "computing 0.800 ms (33.3%), turn between iterations 1.200 ms (50.0%), idle 0.400 ms (16.7%): sync 0.380 ms");
}

TEST(AttributionText, StepsWithoutATurnAreSteps) {
  const json a = split({{"computing_ns", 2000000}, {"idle_ns", 400000}}, 3);
  EXPECT_EQ(npu::step_split_title(a), "Where the time of a step goes (the mean of 3 steps, 2.400 ms)");
  // A document read back may hold anything: a turn that is no number is no part.
  const json b = split({{"computing_ns", 2000000}, {"idle_ns", 400000}, {"turn_ns", "x"}}, 3);
  EXPECT_EQ(npu::step_split_title(b), "Where the time of a step goes (the mean of 3 steps, 2.400 ms)");
  EXPECT_EQ(npu::step_split_text(b).find("turn"), std::string::npos);
}

}  // namespace
