#include "compare/stats.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace npu::compare {

namespace {

// SplitMix64: tiny, well mixed, and identical everywhere (std::uniform_int_distribution is not).
struct SplitMix64 {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }  // bias < n / 2^64
};

double resampled_median(const std::vector<double>& v, SplitMix64& rng, std::vector<double>& buf) {
  buf.resize(v.size());
  for (auto& x : buf) x = v[rng.below(v.size())];
  size_t i = stats::nearest_rank_index(buf.size(), 0.5);  // the median by the rule of base/stats.h, without a full sort
  std::nth_element(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(i), buf.end());
  return buf[i];
}

}  // namespace

BootstrapResult bootstrap_median_diff(const std::vector<double>& a, const std::vector<double>& b, double confidence,
                                      int resamples, uint64_t seed) {
  BootstrapResult r;
  r.resamples = resamples;
  r.seed = seed;
  r.confidence = confidence;
  if (a.empty() || b.empty() || resamples <= 0) return r;
  SplitMix64 rng{seed};
  std::vector<double> diffs, buf;
  diffs.reserve(static_cast<size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    double ma = resampled_median(a, rng, buf);
    double mb = resampled_median(b, rng, buf);
    diffs.push_back(mb - ma);
  }
  std::sort(diffs.begin(), diffs.end());
  double tail = (1.0 - confidence) / 2.0;
  auto at = [&](double p) { return stats::nearest_rank(diffs, p); };
  r.low = at(tail);
  r.high = at(1.0 - tail);
  return r;
}

BootstrapResult bootstrap_median(const std::vector<double>& d, double confidence, int resamples, uint64_t seed) {
  BootstrapResult r;
  r.resamples = resamples;
  r.seed = seed;
  r.confidence = confidence;
  if (d.empty() || resamples <= 0) return r;
  SplitMix64 rng{seed};
  std::vector<double> meds, buf;
  meds.reserve(static_cast<size_t>(resamples));
  for (int i = 0; i < resamples; ++i) meds.push_back(resampled_median(d, rng, buf));
  std::sort(meds.begin(), meds.end());
  double tail = (1.0 - confidence) / 2.0;
  auto at = [&](double p) { return stats::nearest_rank(meds, p); };
  r.low = at(tail);
  r.high = at(1.0 - tail);
  return r;
}

WilcoxonResult wilcoxon_signed_rank(const std::vector<double>& d) {
  WilcoxonResult r;
  std::vector<std::pair<double, bool>> nz;  // |d|, positive
  for (double x : d)
    if (x != 0) nz.push_back({std::fabs(x), x > 0});
  r.n = nz.size();
  if (nz.empty()) return r;
  std::sort(nz.begin(), nz.end());
  // Average ranks over ties of |d|.
  std::vector<double> rank(nz.size());
  bool ties = false;
  double tie_term = 0;
  for (size_t i = 0; i < nz.size();) {
    size_t j = i;
    while (j + 1 < nz.size() && nz[j + 1].first == nz[i].first) ++j;
    double t = static_cast<double>(j - i + 1);
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    for (size_t k = i; k <= j; ++k) rank[k] = (static_cast<double>(i + j) + 2.0) / 2.0;
    i = j + 1;
  }
  for (size_t i = 0; i < nz.size(); ++i)
    if (nz[i].second) r.w_plus += rank[i];
  const size_t n = nz.size();
  if (!ties && n <= 30) {
    // count[s]: subsets of {1..n} with rank sum s.
    size_t max_s = n * (n + 1) / 2;
    std::vector<double> count(max_s + 1, 0.0);
    count[0] = 1;
    for (size_t k = 1; k <= n; ++k)
      for (size_t s2 = max_s; s2 >= k; --s2) count[s2] += count[s2 - k];
    double total = std::pow(2.0, static_cast<double>(n)), le = 0, ge = 0;
    auto w = static_cast<size_t>(r.w_plus);
    for (size_t s2 = 0; s2 <= max_s; ++s2) {
      if (s2 <= w) le += count[s2];
      if (s2 >= w) ge += count[s2];
    }
    r.p_value = std::min(1.0, 2.0 * std::min(le, ge) / total);
    r.exact = true;
    return r;
  }
  double nn = static_cast<double>(n);
  double mu = nn * (nn + 1) / 4.0;
  double var = nn * (nn + 1) * (2 * nn + 1) / 24.0 - tie_term / 48.0;
  if (var <= 0) return r;
  double z = std::max(0.0, (std::fabs(r.w_plus - mu) - 0.5) / std::sqrt(var));
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

MannWhitneyResult mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitneyResult r;
  size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return r;
  bool ties = false;
  for (double x : a)
    for (double y : b) {
      if (y > x) r.u += 1;
      else if (y == x) {
        r.u += 0.5;
        ties = true;
      }
    }
  std::map<double, int> counts;
  for (double x : a) counts[x]++;
  for (double x : b) counts[x]++;
  for (const auto& [v, c] : counts) ties |= c > 1;
  const double mu = static_cast<double>(n1 * n2) / 2.0;

  if (!ties && n1 + n2 <= 40) {
    // f[i][j][k]: arrangements of i a's and j b's with U = k (U counts b above a).
    size_t max_u = n1 * n2;
    std::vector<std::vector<std::vector<double>>> f(n1 + 1, std::vector<std::vector<double>>(n2 + 1));
    for (size_t i = 0; i <= n1; ++i)
      for (size_t j = 0; j <= n2; ++j) {
        f[i][j].assign(i * j + 1, 0.0);
        if (i == 0 || j == 0) {
          f[i][j][0] = 1;
          continue;
        }
        // The largest value is a b (it is above all i a's: adds i) or an a (adds nothing).
        for (size_t k = 0; k <= i * j; ++k) {
          double v = 0;
          if (k >= i && k - i <= i * (j - 1)) v += f[i][j - 1][k - i];
          if (k <= (i - 1) * j) v += f[i - 1][j][k];
          f[i][j][k] = v;
        }
      }
    const auto& dist = f[n1][n2];
    double total = 0, le = 0, ge = 0;
    auto u = static_cast<size_t>(r.u);
    for (size_t k = 0; k <= max_u; ++k) {
      total += dist[k];
      if (k <= u) le += dist[k];
      if (k >= u) ge += dist[k];
    }
    r.p_value = std::min(1.0, 2.0 * std::min(le, ge) / total);
    r.exact = true;
    return r;
  }
  // Normal approximation with tie correction and continuity correction.
  double n = static_cast<double>(n1 + n2);
  double tie_sum = 0;
  for (const auto& [v, c] : counts) tie_sum += static_cast<double>(c) * c * c - c;
  double var = static_cast<double>(n1 * n2) / 12.0 * ((n + 1) - tie_sum / (n * (n - 1)));
  if (var <= 0) {
    r.p_value = 1;
    return r;
  }
  double z = (std::fabs(r.u - mu) - 0.5) / std::sqrt(var);
  if (z < 0) z = 0;
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

}  // namespace npu::compare
