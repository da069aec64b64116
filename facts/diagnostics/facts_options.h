// The thresholds the facts measure with. Each has one home, a declared parameter of a rule or a
// verdict (rules/lua/**: its default, range and meaning, docs/rules.md); the pipeline resolves
// it (defaults, --config, --set) and hands it here (pipeline/facts_options.h), so one --set moves
// the facts, the verdicts, the views and the rule text together. The defaults below are the
// declared defaults, for callers that compute facts without rule options (tests, whatif); a test
// (tests/pipeline/facts_options_test.cpp) fails when they differ from the declarations.
#pragma once
#include <string>

#include "base/types.h"

namespace npu {

struct FactsOptions {
  // dispatch.step_class.vertical_lag_ns: a launch whose device task starts at most this long
  // after the host launch is "vertical" (dispatch.thresholds.vertical_lag_ns).
  Ns vertical_lag_ns = 50'000;
  // schedule.dataloader.slow_ns: a dataloader event this long or longer is slow
  // (operator_health.dataloader.reference_slow_ns).
  Ns dataloader_slow_ns = 10'000'000;
  // schedule.gc.min_ns: a GC event counts when it lasts at least this long
  // (operator_health.gc.reference_min_ns).
  Ns gc_min_ns = 1'000'000;
  // compute.no_bound.bound_ratio: an operator type is bound by its busiest pipe when that
  // pipe's ratio reaches this; below it on every pipe it is "none" (operator_health.pmu).
  double pmu_bound_ratio = 0.8;
  // compute.roofline_gemm.target_fraction: the efficiency an operator group is measured against
  // (roofline.groups[].gap_ns: its time beyond the roof's time at this fraction).
  double roofline_target_fraction = 0.7;
  // --peaks FILE: the device peaks table that replaces the built-in one (facts/roofline/peaks.json).
  std::string peaks_path;
};

}  // namespace npu
