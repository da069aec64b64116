#include "facts/diagnostics/line_fit.h"

#include <cmath>
#include <limits>
#include <utility>

namespace npu {

std::array<double, 2> solve_spd_2x2(double a, double b, double d, std::array<double, 2> r) {
  // Pivot on the larger diagonal entry (the first on a tie): the system is solved as
  // [p b; b q] z = s with z, s the unknowns and right-hand side in pivot order.
  const bool swap = std::abs(d) > std::abs(a);
  const double p = swap ? d : a, q = swap ? a : d;
  if (swap) std::swap(r[0], r[1]);
  // A = L D L^T with L = [1 0; l 1], D = diag(p, q - l * (p * l)).
  const double l = b / p;
  const double d1 = q - l * (p * l);
  // Forward substitution with L, scaling by D^-1 (a pivot too small to divide by gives 0, as
  // a pseudo-inverse would), back substitution with L^T.
  const double tiny = std::numeric_limits<double>::min();
  double z0 = r[0], z1 = r[1] - l * z0;
  z0 = std::abs(p) > tiny ? z0 / p : 0.0;
  z1 = std::abs(d1) > tiny ? z1 / d1 : 0.0;
  z0 = z0 - l * z1;
  return swap ? std::array<double, 2>{z1, z0} : std::array<double, 2>{z0, z1};
}

std::optional<LineFit> fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  // The 2x2 normal equations on centred x: well conditioned, and no n x 2 design matrix for
  // steps with millions of launches.
  const size_t n = x.size();
  if (n < 2) return std::nullopt;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0, sx = 0, sxy = 0, sy = 0;  // sum dx^2, sum dx (~0), sum dx*y, sum y
  for (size_t i = 0; i < n; ++i) {
    double dx = x[i] - mx;
    sxx += dx * dx;
    sx += dx;
    sxy += dx * y[i];
    sy += y[i];
  }
  if (!(sxx > 0)) return std::nullopt;
  const auto c = solve_spd_2x2(sxx, sx, static_cast<double>(n), {sxy, sy});  // y = c0 * (x - mx) + c1
  LineFit f{c[0], c[1] - c[0] * mx, std::nullopt};
  double ss_res = 0, ss_tot = 0;
  for (size_t i = 0; i < n; ++i) {
    double res = y[i] - (c[1] + c[0] * (x[i] - mx));
    ss_res += res * res;
    ss_tot += (y[i] - my) * (y[i] - my);
  }
  if (ss_tot > 0) f.r2 = 1.0 - ss_res / ss_tot;
  return f;
}

}  // namespace npu
