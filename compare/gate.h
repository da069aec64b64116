// The regression gate: budgets on a compare document and the verdict (docs/compare-gate.md).
// Reading budgets from a config file or flags is pipeline/gate_config.h; the renderings of a
// verdict are reports/gate_render.h.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/compare.h"

namespace npu::compare {

// One budget: how much a metric may grow from the baseline.
//   step_time, comm_not_overlapped: "5%" (of the baseline median) or a time "2ms", "500us", "0.1s", "1000ns"
//   free_ratio: "5%" (of the baseline ratio), "0.03" (an absolute ratio change) or "3pp" (points)
//   op_type:<TYPE>: "10%" of the baseline time per step, or a time per step
//   memory_peak: "5%" or "100MB" / "1.5GB" / "512KB" (MiB multiples, as the profiler writes them)
//   ai_cpu_calls: AI CPU calls per step, "0" (no more calls than the baseline) or "10%"
//   decode_token, prefill_1k_tokens: inference runs' decode time per token and prefill time per
//     1k prompt tokens (the compare document's inference section): "5%" or a time
//   any metric: "off" disables it
struct Budget {
  std::string metric;  // "step_time", "op_type:MatMulV3", ...
  enum class Kind { Relative, Absolute, Off } kind = Kind::Relative;
  double value = 0;    // Relative: a fraction (0.05); Absolute: in the metric's unit (ns, ratio, MB)
  std::string text;    // as written
  std::string source;  // "default", the config file, or "--max-regression"
};

// The metric's unit: "ns", "ratio", "MB" or "calls"; throws std::invalid_argument for an unknown metric.
std::string metric_unit(const std::string& metric);

struct GateConfig {
  std::map<std::string, Budget> budgets;         // by metric; starts with step_time=5%
  std::optional<double> fail_on_finding_saving;  // fraction of a step
  bool new_findings_only = false;                // only findings absent from (or grown since) the baseline
  CompareOptions compare;
  GateConfig();
  void set(const Budget& b) { budgets[b.metric] = b; }
};

// Evaluates every budget (and the findings rule) on a compare document.
nlohmann::json evaluate_gate(const nlohmann::json& compare_doc, const GateConfig& cfg);
bool gate_failed(const nlohmann::json& gate);
// A budget the runs cannot have (decode_token where a run has no decode phase): the line that
// says which and why (the gate's exit 2), or nothing.
std::optional<std::string> gate_input_error(const nlohmann::json& gate, const nlohmann::json& compare_doc);

// The load warnings of a side: the loaders' for a run loaded now, else those its facts recorded
// when they were written (`run.warnings`), so a facts file made from partial data says so too.
std::vector<std::string> load_warnings(const CompareSide& side);
// Those of them that say records were dropped (rows, events, tasks): `rejected` of a run loaded
// now, `run.rejected` of a facts file (all its warnings for a facts file older than that key).
std::vector<std::string> load_rejections(const CompareSide& side);

// A verdict is only as whole as its data: when the loaders rejected records of a side (its
// load rejections), a pass would be a pass on what they kept. Returns one line naming the side,
// the file and what was rejected (the first warning; how many more), or nothing when neither
// side has a load warning.
std::optional<std::string> partial_input(const CompareSide& base, const CompareSide& next);

// Runs profiled on different platforms (an Ascend run against a GPU trace): their steps are
// measured by different rules, so a verdict would compare methods, not the job. The line that
// says so, or nothing.
std::optional<std::string> platform_mismatch(const CompareSide& base, const CompareSide& next);

}  // namespace npu::compare
