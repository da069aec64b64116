// Outlier tests for the slow-rank analysis. In a collective every rank leaves together, so the
// rank that arrived last (the slow one) spends the LEAST time in the operator: the slow rank
// is a low outlier of the per-rank communication times.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "base/stats.h"

namespace npu::cluster {

struct OutlierResult {
  bool tested = false;      // false: too few ranks or too few distinct values
  std::vector<size_t> low;  // indices of the low outliers (the fastest = slow ranks)
  double statistic = 0;     // Dixon's r, or the 3-sigma low threshold
  double critical = 0;      // the table value it was compared with
  std::string method;       // "dixon r10|r11|r21|r22 (99.5%)", "3 sigma"
};

// What msprof-analyze's slow_rank recipe does: Dixon's Q test at 99.5% for
// n <= 100 (r10 for n <= 7, r11 for n <= 10, r21 for n <= 13, r22 above), the 3-sigma rule
// above 100 (values below mean - 3 sigma, plus the minimum when the maximum is above mean + 3 sigma).
OutlierResult low_outliers(const std::vector<double>& values);

// Dixon's one-sided critical value at 99.5% for n = 3..100 (0 outside).
double dixon_critical_995(size_t n);

// The cluster's robust statistics use the midpoint median and its MAD (unscaled), base/stats.h.
inline double median(std::vector<double> v) { return stats::median_midpoint(std::move(v)); }
inline double mad(const std::vector<double>& v, double med) { return stats::mad_midpoint(v, med); }

}  // namespace npu::cluster
