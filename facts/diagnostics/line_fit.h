// Least-squares line through (x, y) points: the lag regression of "dispatch" (lag against launch
// time; docs/facts-dispatch.md). A pure numeric function, unit-tested on its own.
#pragma once
#include <array>
#include <optional>
#include <vector>

namespace npu {

struct LineFit {
  double slope = 0, intercept = 0;
  std::optional<double> r2;  // undefined when every y is equal
};

// Least squares y = intercept + slope * x. Undefined with fewer than 2 points or when every x
// is equal.
std::optional<LineFit> fit_line(const std::vector<double>& x, const std::vector<double>& y);

// Solves the symmetric positive definite system [a b; b d] c = r in closed form. It performs the
// exact floating-point operations of a pivoted LDLT factorisation (the larger diagonal entry
// pivots first), so fits keep every digit they had when Eigen's LDLT solved them.
std::array<double, 2> solve_spd_2x2(double a, double b, double d, std::array<double, 2> r);

}  // namespace npu
