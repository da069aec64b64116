// The sections of the compare document, one builder each; build_compare() (compare.cpp) calls
// them in document order. Internal to compare/: the document's keys are in docs/compare-gate.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/compare.h"

namespace npu::compare::sections {

using nlohmann::json;

// ---- lenient reads of a facts document: what a side lacks reads as absent, never as an error
std::optional<double> num(const json& j, const char* key);
const json& section(const Facts& f, const char* name);
// The `why` of the facts' `unavailable` entry for `fact`, "" when there is none.
std::string unavailable_reason(const Facts& f, const std::string& fact);
// Profiled steps of a side (overall.steps, else the step list, else 1): operator totals are per step.
double steps_of(const Facts& f);
std::optional<double> per_step(std::optional<double> total, double steps);

int64_t ns(double v);  // a time rounded to whole ns
json ratio_or_null(double delta, double base);
// {key, label, unit, base, new, delta, delta_ratio}; null where a side has no value.
json metric_row(const char* key, const char* label, const char* unit, std::optional<double> b, std::optional<double> n);

// ---- the per-step series of both sides (compare_steps.cpp)
struct Series {
  std::vector<json> ids;
  std::vector<double> computing, cno, copies, free, device, free_ratio, host, step_time;
  std::vector<json> evidence;
  bool host_complete = true;  // every used step has host_dur_ns > 0
  bool has_copies = false;    // GPU runs: copies_ns is a part of the device step
  // overall.step_time_rule is "launched_work" (GPU): the step is the device step, never the
  // host span (the host runs ahead of a GPU-bound step).
  bool launched_work = false;
  // overall.step_time_rule is "iteration_window" (a serving engine's iterations on Ascend): the
  // step is the iteration's own window, never the host span.
  bool iteration_window = false;
  size_t total_steps = 0;
  bool dropped_warmup = false;
  json dropped_id = nullptr;
  std::string source;
  size_t size() const { return device.size(); }
};

struct StepSeries {
  Series base, next;
  // Step time is the host step span: every step of both sides has one and neither side is a
  // GPU run (whose step is the device step, until the work it launched ends).
  bool use_host = false;
  bool paired = false;    // the same step ids in the same order on both sides
  bool skip_warmup = true;
  bool have_steps() const { return base.size() > 0 && next.size() > 0; }
  // Median device time per step, new - base (unrounded: the why list's shares divide by it).
  double device_delta() const;
};

// Reads both sides' steps (dropping the warm-up step as `opt` says) and notes what was dropped.
StepSeries read_step_series(const Facts& base, const Facts& next, const CompareOptions& opt, json& notes);
json series_section(const StepSeries& s);
json step_time_section(const StepSeries& s, const CompareSide& base, const CompareSide& next, const CompareOptions& opt,
                       json& notes);
json device_time_section(const StepSeries& s, const CompareOptions& opt);

// ---- operators and AI CPU calls (compare_operators.cpp)
json operators_section(const Facts& base, const Facts& next, json& notes);

// ---- the module trees matched by path (compare_modules.cpp)
json modules_section(const Facts& base, const Facts& next, json& notes);

// ---- one-value metrics (compare_metrics.cpp)
// The class of the run (verdicts.dispatch.step_class of each side's rule run) beside the numbers.
json dispatch_section(const Facts& base, const Facts& next, const json& base_verdicts, const json& next_verdicts);
json host_activity_section(const Facts& base, const Facts& next);
json memory_section(const Facts& base, const Facts& next);
json idle_causes_section(const Facts& base, const Facts& next);

// ---- inference runs: iterations matched by phase and batch size, decode time per token, prefill
// per 1k tokens (compare_inference.cpp); `available` false unless both runs are inference runs
json inference_section(const Facts& base, const Facts& next, json& notes);

// ---- the rule engine's findings: appeared, disappeared, persisting (compare_findings.cpp)
json findings_section(const json& base_findings, const json& next_findings);

// ---- why: contributors to the device-time delta, ranked (compare_why.cpp). Reads the sections
// already in `doc`; sets doc["why"] and doc["why_basis"].
void add_why(json& doc, const StepSeries& s, const CompareOptions& opt);

}  // namespace npu::compare::sections
