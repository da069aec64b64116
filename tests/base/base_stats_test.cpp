// base/stats: the two medians and their MADs on samples worked out by hand.
#include <gtest/gtest.h>

#include "base/stats.h"

using namespace npu::stats;

TEST(BaseStats, NearestRankIsAnObservedValue) {
  // n = 4: index round(0.5 * 3) = 2 -> the upper middle value.
  EXPECT_EQ(median({4, 1, 3, 2}), 3);
  EXPECT_EQ(quantile({10, 20, 30, 40, 50}, 0.9), 50);  // round(0.9 * 4) = 4
  EXPECT_EQ(quantile({10, 20, 30, 40, 50}, 0.1), 10);  // round(0.4) = 0
  EXPECT_EQ(quantile({}, 0.5), 0);
  std::vector<int64_t> sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(nearest_rank(sorted, 0.9), 9);  // round(8.1) = 8
}

TEST(BaseStats, MidpointMedianAveragesTheMiddle) {
  EXPECT_EQ(median_midpoint({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median_midpoint({5, 1, 3}), 3);
  EXPECT_EQ(median_midpoint({}), 0);
  // |x - 2.5| = 1.5, 0.5, 0.5, 1.5 -> midpoint median 1.0
  EXPECT_EQ(mad_midpoint({1, 2, 3, 4}, 2.5), 1.0);
}

TEST(BaseStats, NearestRankMad) {
  // median 3 (upper middle of 1,2,3,4); deviations 2,1,0,1 -> sorted 0,1,1,2 -> upper middle 1
  EXPECT_EQ(mad({1, 2, 3, 4}), 1);
  EXPECT_EQ(mad({}), 0);
}

TEST(BaseStats, RatioOfNothingIsZero) {
  EXPECT_EQ(ratio(5, 0), 0.0);
  EXPECT_EQ(ratio(5, -1), 0.0);
  EXPECT_EQ(ratio(1, 4), 0.25);
}
