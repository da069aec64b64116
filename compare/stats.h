// Small, deterministic statistics for comparing two runs' per-step series
// (docs/compare-gate.md): nearest-rank quantiles, a bootstrap confidence interval of the
// difference of medians, and the Mann-Whitney U test.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/stats.h"

namespace npu::compare {

// Nearest-rank quantiles (element round(p * (n - 1)) of the sorted values, as the facts' step
// percentiles), so a median here is always one of the observed values: base/stats.h.
using stats::mad;
using stats::mean;
using stats::median;
using stats::quantile;

struct BootstrapResult {
  double low = 0, high = 0;  // percentile interval of median(b*) - median(a*)
  int resamples = 0;
  uint64_t seed = 0;
  double confidence = 0;
};
// Resamples each side with replacement `resamples` times (a fixed-seed SplitMix64 stream, so the
// answer is the same on every machine) and returns the central `confidence` interval of the
// difference median(b) - median(a). Both sides need at least one value.
BootstrapResult bootstrap_median_diff(const std::vector<double>& a, const std::vector<double>& b, double confidence,
                                      int resamples = 4000, uint64_t seed = 20261122);

// The same for paired values: the central interval of the median of d resampled with replacement
// (d[i] = b[i] - a[i] of two runs' steps matched by step id).
BootstrapResult bootstrap_median(const std::vector<double>& d, double confidence, int resamples = 4000,
                                 uint64_t seed = 20261122);

struct WilcoxonResult {
  double w_plus = 0;   // sum of the ranks of the positive differences (zeros dropped)
  size_t n = 0;        // non-zero differences
  double p_value = 1;  // two-sided
  bool exact = false;
};
WilcoxonResult wilcoxon_signed_rank(const std::vector<double>& d);

struct MannWhitneyResult {
  double u = 0;        // U of b over a: pairs (a_i, b_j) with b_j > a_i, ties counting one half
  double p_value = 1;  // two-sided
  bool exact = false;  // exact permutation distribution (no ties, small samples) vs normal approximation
};
MannWhitneyResult mann_whitney(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace npu::compare
