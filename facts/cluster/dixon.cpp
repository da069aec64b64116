#include "facts/cluster/dixon.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace npu::cluster {
namespace {

// One-sided Dixon critical values at 99.5% for n = 3..100: the table msprof-analyze's
// slow_rank recipe uses (mstt cluster_analyse/recipes/slow_rank/dixon_table.py). n = 3..7 are
// r10 values, 8..10 r11, 11..13 r21, 14.. r22.
constexpr double kDixon995[] = {
    0.994, 0.920, 0.823, 0.744, 0.680, 0.723, 0.676, 0.638, 0.707, 0.675, 0.649, 0.672, 0.649, 0.629,
    0.611, 0.595, 0.580, 0.568, 0.556, 0.545, 0.536, 0.526, 0.519, 0.510, 0.503, 0.496, 0.489, 0.484,
    0.478, 0.473, 0.468, 0.463, 0.458, 0.454, 0.450, 0.446, 0.442, 0.439, 0.435, 0.432, 0.429, 0.425,
    0.423, 0.420, 0.417, 0.414, 0.412, 0.409, 0.407, 0.405, 0.402, 0.400, 0.398, 0.396, 0.394, 0.392,
    0.391, 0.388, 0.387, 0.385, 0.383, 0.382, 0.380, 0.379, 0.377, 0.376, 0.374, 0.372, 0.371, 0.370,
    0.368, 0.368, 0.366, 0.365, 0.364, 0.363, 0.361, 0.360, 0.359, 0.358, 0.356, 0.356, 0.355, 0.353,
    0.352, 0.352, 0.351, 0.350, 0.349, 0.348, 0.347, 0.346, 0.345, 0.344, 0.344, 0.343, 0.341, 0.341};
constexpr size_t kMaxDixon = 100;

}  // namespace

double dixon_critical_995(size_t n) { return n >= 3 && n <= kMaxDixon ? kDixon995[n - 3] : 0.0; }

OutlierResult low_outliers(const std::vector<double>& values) {
  OutlierResult r;
  const size_t n = values.size();
  if (n < 3) return r;
  std::vector<double> s(values);
  std::sort(s.begin(), s.end());
  const size_t arg_min = static_cast<size_t>(std::min_element(values.begin(), values.end()) - values.begin());
  if (n <= kMaxDixon) {
    // Like the recipe: with 3 or fewer distinct values a gap ratio means nothing.
    if (std::set<double>(s.begin(), s.end()).size() <= 3) return r;
    double num, den;
    if (n <= 7) {
      num = s[1] - s[0], den = s[n - 1] - s[0], r.method = "dixon r10 (99.5%)";
    } else if (n <= 10) {
      num = s[1] - s[0], den = s[n - 2] - s[0], r.method = "dixon r11 (99.5%)";
    } else if (n <= 13) {
      num = s[2] - s[0], den = s[n - 2] - s[0], r.method = "dixon r21 (99.5%)";
    } else {
      num = s[2] - s[0], den = s[n - 3] - s[0], r.method = "dixon r22 (99.5%)";
    }
    r.tested = true;
    r.statistic = den > 0 ? num / den : 0.0;
    r.critical = dixon_critical_995(n);
    if (r.statistic > r.critical) r.low.push_back(arg_min);
    return r;
  }
  double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double v : values) var += (v - mean) * (v - mean);
  double sd = std::sqrt(var / static_cast<double>(n));
  r.tested = true;
  r.method = "3 sigma";
  r.statistic = mean - 3 * sd;
  r.critical = mean + 3 * sd;
  for (size_t i = 0; i < n; ++i)
    if (values[i] < r.statistic) r.low.push_back(i);
  if (s.back() > r.critical && std::find(r.low.begin(), r.low.end(), arg_min) == r.low.end()) r.low.push_back(arg_min);
  return r;
}

}  // namespace npu::cluster
