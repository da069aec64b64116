// fit_line / solve_spd_2x2 (facts/diagnostics/line_fit.h): the lag regression of "dispatch",
// on small systems whose answers were worked out by hand.
#include "facts/diagnostics/line_fit.h"

#include <vector>

#include <gtest/gtest.h>

namespace {

using npu::fit_line;
using npu::solve_spd_2x2;

TEST(LineFit, SolvesTwoByTwoPivotingOnTheFirstDiagonal) {
  // [4 2; 2 3] c = [10 8]: det 8, c0 = (3*10 - 2*8)/8 = 1.75, c1 = (4*8 - 2*10)/8 = 1.5.
  // LDLT: l = 0.5, d1 = 3 - 0.5*2 = 2; every step is exact in binary, so the answer is too.
  auto c = solve_spd_2x2(4, 2, 3, {10, 8});
  EXPECT_EQ(c[0], 1.75);
  EXPECT_EQ(c[1], 1.5);
}

TEST(LineFit, SolvesTwoByTwoPivotingOnTheLargerSecondDiagonal) {
  // [1 1; 1 4] c = [3 6]: det 3, c0 = (4*3 - 1*6)/3 = 2, c1 = (1*6 - 1*3)/3 = 1.
  // Pivot 4 first: l = 0.25, d1 = 1 - 0.25*1 = 0.75, again exact.
  auto c = solve_spd_2x2(1, 1, 4, {3, 6});
  EXPECT_EQ(c[0], 2.0);
  EXPECT_EQ(c[1], 1.0);
}

TEST(LineFit, ExactLine) {
  // y = 1 + 2x through 4 points: slope 2, intercept 1, r2 1.
  auto f = fit_line({0, 1, 2, 3}, {1, 3, 5, 7});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->slope, 2.0);
  EXPECT_EQ(f->intercept, 1.0);
  ASSERT_TRUE(f->r2);
  EXPECT_EQ(*f->r2, 1.0);
}

TEST(LineFit, NoisyLine) {
  // (0,0) (1,1) (2,1) (3,3): mean x 1.5, mean y 1.25, sum dx^2 = 5, sum dx*y = 4.5, so slope 0.9
  // and intercept 1.25 - 0.9*1.5 = -0.1. Residuals 0.1, 0.2, -0.7, 0.4: ss_res 0.7; ss_tot
  // 4.75; r2 = 1 - 0.7/4.75 = 81/95.
  auto f = fit_line({0, 1, 2, 3}, {0, 1, 1, 3});
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->slope, 0.9);
  EXPECT_NEAR(f->intercept, -0.1, 1e-15);
  ASSERT_TRUE(f->r2);
  EXPECT_DOUBLE_EQ(*f->r2, 81.0 / 95.0);
}

TEST(LineFit, UndefinedCases) {
  EXPECT_FALSE(fit_line({}, {}));
  EXPECT_FALSE(fit_line({1}, {5}));              // one point
  EXPECT_FALSE(fit_line({2, 2, 2}, {1, 2, 3}));  // every x equal
  auto flat = fit_line({0, 1, 2}, {4, 4, 4});    // every y equal: a line, but no r2
  ASSERT_TRUE(flat);
  EXPECT_EQ(flat->slope, 0.0);
  EXPECT_EQ(flat->intercept, 4.0);
  EXPECT_FALSE(flat->r2);
}

}  // namespace
