#include "base/stats.h"

#include <algorithm>
#include <cmath>

namespace npu::stats {

size_t nearest_rank_index(size_t n, double p) {
  auto i = static_cast<size_t>(std::floor(p * static_cast<double>(n - 1) + 0.5));
  return std::min(i, n - 1);
}

double quantile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return nearest_rank(v, p);
}

double mad(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double m = median(v);
  std::vector<double> d;
  d.reserve(v.size());
  for (double x : v) d.push_back(std::fabs(x - m));
  return median(d);
}

double median_midpoint(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double mad_midpoint(const std::vector<double>& v, double center) {
  std::vector<double> d;
  d.reserve(v.size());
  for (double x : v) d.push_back(std::fabs(x - center));
  return median_midpoint(std::move(d));
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

}  // namespace npu::stats
