// The build must not fuse a*b+c into one multiply-add (CMakeLists.txt: -ffp-contract=off where the
// CPU has FMA, as aarch64 does): a fused result is rounded once, a plain one twice, and figures
// printed from sums and ratios would then differ in the last digit between aarch64 and x86-64.
#include <cmath>

#include <gtest/gtest.h>

namespace {
// Out of line, and fed from volatiles, so the compiler computes it at run time as written.
[[gnu::noinline]] double multiply_add(double a, double b, double c) { return a * b + c; }
}  // namespace

TEST(FloatingPoint, MultiplyThenAddRoundsTwiceOnEveryCpu) {
  volatile double x = 1.0 + std::ldexp(1.0, -30), minus_one = -1.0;
  // x*x = 1 + 2^-29 + 2^-60 exactly; rounded to a double it loses the 2^-60, and adding -1 leaves
  // 2^-29. Fused, the 2^-60 survives.
  EXPECT_EQ(multiply_add(x, x, minus_one), std::ldexp(1.0, -29));
}
