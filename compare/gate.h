// The regression gate: budgets on a compare document, a verdict, and its renderings (text,
// JUnit XML, Markdown job summary). docs/compare-gate.md.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare.h"

namespace npu::compare {

// One budget: how much a metric may grow from the baseline.
//   step_time, comm_not_overlapped: "5%" (of the baseline median) or a time "2ms", "500us", "0.1s", "1000ns"
//   free_ratio: "5%" (of the baseline ratio), "0.03" (an absolute ratio change) or "3pp" (points)
//   op_type:<TYPE>: "10%" of the baseline time per step, or a time per step
//   memory_peak: "5%" or "100MB" / "1.5GB" / "512KB" (MiB multiples, as the profiler writes them)
//   ai_cpu_calls: AI CPU calls per step, "0" (no more calls than the baseline) or "10%"
//   any metric: "off" disables it
struct Budget {
  std::string metric;  // "step_time", "op_type:MatMulV3", ...
  enum class Kind { Relative, Absolute, Off } kind = Kind::Relative;
  double value = 0;    // Relative: a fraction (0.05); Absolute: in the metric's unit (ns, ratio, MB)
  std::string text;    // as written
  std::string source;  // "default", the config file, or "--max-regression"
};

// Parses "METRIC=VALUE"; throws std::invalid_argument with a message naming what is wrong.
Budget parse_budget(const std::string& spec, const std::string& source);
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

// Reads a gate configuration file into cfg (its budgets override the defaults). YAML for
// .yaml/.yml (yaml-cpp); anything else is read as "key = value" lines, which also reads the
// simple TOML layout ([max_regression] table, quoted keys and values). Throws LoadError.
void read_gate_config(const std::string& path, GateConfig& cfg);
// Applies one "key = value" setting (a budget metric or a gate option); throws std::invalid_argument.
void apply_gate_setting(const std::string& key, const std::string& value, const std::string& source, GateConfig& cfg);
// "10%" or "0.1" -> 0.1; throws std::invalid_argument.
double parse_fraction(const std::string& text);

// Evaluates every budget (and the findings rule) on a compare document.
nlohmann::json evaluate_gate(const nlohmann::json& compare_doc, const GateConfig& cfg);
bool gate_failed(const nlohmann::json& gate);

std::string render_gate_text(const nlohmann::json& gate, const nlohmann::json& compare_doc);
std::string render_gate_junit(const nlohmann::json& gate);
std::string render_gate_markdown(const nlohmann::json& gate, const nlohmann::json& compare_doc);

}  // namespace npu::compare
