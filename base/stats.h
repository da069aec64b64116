// The one statistics module. Two medians on purpose, each under its own name, so no caller picks
// one by accident and no copy can drift:
//  - nearest rank (quantile(v, 0.5)): always one of the observed values (the upper middle one
//    for an even count). Step times, launch lags, compare: a reported median is a real step.
//  - midpoint (median_midpoint): the mean of the two middle values for an even count; the robust
//    statistics of the cluster's outlier tests (median and MAD) and the rules' util.median use it.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu::stats {

// Index of the p-quantile (0 <= p <= 1) in a sorted sample of n > 0 values: round(p * (n - 1)).
size_t nearest_rank_index(size_t n, double p);

// The p-quantile of an already sorted, non-empty sample, as one of its values.
template <class T>
T nearest_rank(const std::vector<T>& sorted, double p) {
  return sorted[nearest_rank_index(sorted.size(), p)];
}

// The p-quantile of an unsorted sample as one of its values, by partial selection (no full
// sort); `empty` for an empty one.
template <class T>
T nearest_rank_of(std::vector<T> v, double p, T empty) {
  if (v.empty()) return empty;
  const auto i = static_cast<std::ptrdiff_t>(nearest_rank_index(v.size(), p));
  std::nth_element(v.begin(), v.begin() + i, v.end());
  return v[static_cast<size_t>(i)];
}

// The p-quantile of an unsorted sample (sorts a copy); 0 for an empty one.
double quantile(std::vector<double> v, double p);
// The nearest-rank median; 0 for an empty sample.
inline double median(const std::vector<double>& v) { return quantile(v, 0.5); }
// Median absolute deviation around the nearest-rank median, itself a nearest-rank median.
double mad(const std::vector<double>& v);

// The midpoint median (mean of the two middle values for an even count); 0 for an empty sample.
double median_midpoint(std::vector<double> v);
// Median absolute deviation from `center`, as a midpoint median.
double mad_midpoint(const std::vector<double>& v, double center);

double mean(const std::vector<double>& v);  // 0 for an empty sample

// part / whole, 0 when whole is not positive (a share of an empty step is no share).
inline double ratio(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace npu::stats
