// noise_test(): is the difference of two per-step series beyond step-to-step noise? Shared by
// the compare document and the gate's verdict.
#include <fmt/format.h>

#include "compare/compare.h"
#include "compare/stats.h"

namespace npu::compare {

using nlohmann::json;

json noise_test(const std::vector<double>& base, const std::vector<double>& next, const CompareOptions& opt,
                bool paired) {
  if (base.size() < opt.min_steps_for_test || next.size() < opt.min_steps_for_test)
    return {{"possible", false},
            {"why", fmt::format("too few steps for a noise test ({} base, {} new; needs {} on each side): "
                                "only the plain difference is known",
                                base.size(), next.size(), opt.min_steps_for_test)}};
  json j = {{"possible", true}, {"confidence", opt.confidence}, {"resamples", opt.resamples}, {"seed", opt.seed}};
  BootstrapResult b;
  if (paired && base.size() == next.size()) {
    std::vector<double> d(base.size());
    for (size_t i = 0; i < d.size(); ++i) d[i] = next[i] - base[i];
    b = bootstrap_median(d, opt.confidence, opt.resamples, opt.seed);
    WilcoxonResult w = wilcoxon_signed_rank(d);
    j["pairing"] = "paired by step id";
    j["method"] = "bootstrap percentile interval of the median of the per-step differences (new - base)";
    j["median_paired_difference"] = median(d);
    j["test"] = {{"name", "Wilcoxon signed-rank"},
                 {"statistic", w.w_plus},
                 {"p_value", w.p_value},
                 {"method", w.exact ? "exact" : "normal approximation"}};
  } else {
    b = bootstrap_median_diff(base, next, opt.confidence, opt.resamples, opt.seed);
    MannWhitneyResult mw = mann_whitney(base, next);
    j["pairing"] = "unpaired";
    j["method"] = "bootstrap percentile interval of median(new) - median(base)";
    j["test"] = {{"name", "Mann-Whitney U"},
                 {"statistic", mw.u},
                 {"p_value", mw.p_value},
                 {"method", mw.exact ? "exact" : "normal approximation"}};
  }
  bool sig = b.low > 0 || b.high < 0;
  j["ci_low"] = b.low;
  j["ci_high"] = b.high;
  j["significant"] = sig;
  j["direction"] = !sig ? "none" : b.low > 0 ? "increase" : "decrease";
  return j;
}

}  // namespace npu::compare
