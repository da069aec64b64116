#include "facts/diagnostics/dispatch_lags.h"

#include <algorithm>

#include "base/stats.h"
#include "facts/diagnostics/line_fit.h"

namespace npu {
namespace {

using nlohmann::json;

// Mean rounded down (as Python's //, which tools/gen_sample.py uses for expected.json).
Ns floor_div(Ns a, Ns b) {
  Ns q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

void add_lag_stats(JsonObject& j, const std::vector<Launch>& launches, const std::vector<uint32_t>& idx, Ns x0,
                   Ns vertical_lag_ns) {
  static const char* const kStatKeys[] = {"lag_min_ns",   "lag_p10_ns",  "lag_p50_ns",     "lag_p90_ns",
                                          "lag_max_ns",   "lag_mean_ns", "vertical_share", "slope_ns_per_ms",
                                          "intercept_ns", "r2"};
  j.add("count", idx.size());
  if (idx.empty()) {
    for (const char* k : kStatKeys) j.add(k, nullptr);
    j.add("negative_lags", 0);
    return;
  }
  std::vector<Ns> lags;
  std::vector<double> x, y;
  lags.reserve(idx.size());
  x.reserve(idx.size());
  y.reserve(idx.size());
  Ns sum = 0;
  size_t vertical = 0, negative = 0;
  for (uint32_t i : idx) {
    const Launch& l = launches[i];
    lags.push_back(l.lag);
    x.push_back(static_cast<double>(l.launch - x0) / 1e6);
    y.push_back(static_cast<double>(l.lag));
    sum += l.lag;
    vertical += l.lag <= vertical_lag_ns;
    negative += l.lag < 0;
  }
  std::sort(lags.begin(), lags.end());
  const double vertical_share = stats::ratio(static_cast<Ns>(vertical), static_cast<Ns>(lags.size()));
  j.add("lag_min_ns", lags.front())
      .add("lag_p10_ns", stats::nearest_rank(lags, 0.1))
      .add("lag_p50_ns", stats::nearest_rank(lags, 0.5))
      .add("lag_p90_ns", stats::nearest_rank(lags, 0.9))
      .add("lag_max_ns", lags.back())
      .add("lag_mean_ns", floor_div(sum, static_cast<Ns>(lags.size())))
      .add("vertical_share", vertical_share)
      .add("negative_lags", negative);
  auto fit = fit_line(x, y);
  j.add("slope_ns_per_ms", fit ? json(fit->slope) : json(nullptr))
      .add("intercept_ns", fit ? json(fit->intercept) : json(nullptr))
      .add("r2", fit && fit->r2 ? json(*fit->r2) : json(nullptr));
}

}  // namespace npu
