// The regression gate (docs/compare-gate.md): each budget evaluated on the compare document,
// noise-aware where a per-step series allows it, then the findings rule.
#include "compare/gate.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "compare/delta_text.h"
#include "compare/stats.h"
#include "rules/rule_engine.h"

namespace npu::compare {

using nlohmann::json;

namespace {

std::vector<double> to_vec(const json& arr) {
  std::vector<double> v;
  if (arr.is_array())
    for (const auto& x : arr)
      if (x.is_number()) v.push_back(x.get<double>());
  return v;
}

struct MetricValues {
  bool ok = false;
  bool error = false;         // !ok is the budget's error, not a skip: the runs cannot have it
  std::string why;            // when !ok
  std::vector<double> b, n;   // per-step series (may be empty)
  bool paired = false;        // the series are the same steps
  double base = 0, next = 0;  // the compared values
  json evidence = json::object();
};

MetricValues series_values(const json& doc, const char* key, const char* label) {
  MetricValues m;
  if (!doc.value("step_time", json::object()).value("available", false)) {
    m.why = std::string("no per-step breakdown on at least one side, so no ") + label;
    return m;
  }
  m.b = to_vec(doc["series"]["base"][key]);
  m.n = to_vec(doc["series"]["new"][key]);
  if (m.b.empty() || m.n.empty()) {
    m.why = "no steps";
    return m;
  }
  m.base = median(m.b);
  m.next = median(m.n);
  m.paired = doc["series"].value("paired", false);
  m.ok = true;
  return m;
}

MetricValues ai_cpu_values(const json& doc) {
  MetricValues m;
  const json& ops = doc.value("operators", json::object());
  if (!ops.contains("ai_cpu")) {
    m.why = "no AI CPU facts (operator_health.ai_cpu) on at least one side";
    return m;
  }
  m.base = ops["ai_cpu"]["base_calls_per_step"].get<double>();
  m.next = ops["ai_cpu"]["new_calls_per_step"].get<double>();
  m.evidence = {{"new_types", ops["ai_cpu"]["new_types"]}};
  m.ok = true;
  return m;
}

MetricValues memory_values(const json& doc) {
  MetricValues m;
  const json& mem = doc.value("memory", json::object());
  if (!mem.value("available", false)) {
    m.why = mem.value("note", std::string("no memory facts"));
    return m;
  }
  for (const auto& r : mem["metrics"])
    if (r["key"] == "peak_allocated_mb" && r["base"].is_number() && r["new"].is_number()) {
      m.base = r["base"].get<double>();
      m.next = r["new"].get<double>();
      m.ok = true;
      m.evidence = mem.value("evidence", json::object());
    }
  if (!m.ok) m.why = "no peak allocated memory on at least one side";
  return m;
}

MetricValues op_type_values(const json& doc, const std::string& type) {
  MetricValues m;
  const json& ops = doc.value("operators", json::object());
  if (!ops.value("available", false)) {
    m.why = ops.value("note", std::string("no operator facts"));
    return m;
  }
  if (ops.value("matched_by", "") != "type") {
    m.why = "the runs have no operator types (kernel_details.csv) to match " + type;
    return m;
  }
  for (const auto& r : ops["by_type"]) {
    if (r.value("type", "") != type) continue;
    if (r.value("status", "") == "unlisted") {
      m.why = type + " is below the top-list cut of one run: " + r.value("why", "");
      return m;
    }
    m.base = r["base"].is_null() ? 0 : r["base"]["per_step_ns"].get<double>();
    m.next = r["new"].is_null() ? 0 : r["new"]["per_step_ns"].get<double>();
    m.evidence = {{"base", r["base"].is_null() ? json(nullptr) : r["base"]["evidence"]},
                  {"new", r["new"].is_null() ? json(nullptr) : r["new"]["evidence"]},
                  {"status", r["status"]}};
    m.ok = true;
    return m;
  }
  m.why = "operator type " + type + " is not among the listed operator types of either run";
  return m;
}

// decode_token, prefill_1k_tokens: the inference section's figure (compare_inference.cpp). A
// budget on it where a run has no such phase is an error (exit 2), never a quiet skip.
MetricValues inference_values(const json& doc, const char* key) {
  MetricValues m;
  const json& x = doc.value("inference", json::object()).value(key, json::object());
  if (!x.value("available", false)) {
    m.error = true;
    m.why = x.value("why", std::string("the compare document has no inference section"));
    return m;
  }
  m.base = x["base_ns"].get<double>();
  m.next = x["new_ns"].get<double>();
  // per-iteration values (decode_token), unpaired: the noise test decides as for the step time
  if (const json* sr = x.contains("series") ? &x["series"] : nullptr) {
    m.b = to_vec(sr->value("base", json::array()));
    m.n = to_vec(sr->value("new", json::array()));
  }
  m.evidence = {{"basis", x.value("basis", "")}};
  if (x.contains("batch_sizes")) m.evidence["batch_sizes"] = x["batch_sizes"];
  m.ok = true;
  return m;
}

MetricValues values_for(const json& doc, const std::string& metric) {
  if (metric == "decode_token" || metric == "prefill_1k_tokens") return inference_values(doc, metric.c_str());
  if (metric == "step_time") return series_values(doc, "step_time_ns", "step time");
  if (metric == "comm_not_overlapped") return series_values(doc, "comm_not_overlapped_ns", "communication breakdown");
  if (metric == "free_ratio") return series_values(doc, "free_ratio", "free ratio");
  if (metric == "ai_cpu_calls") return ai_cpu_values(doc);
  if (metric == "memory_peak") return memory_values(doc);
  if (metric.rfind("op_type:", 0) == 0) return op_type_values(doc, metric.substr(8));
  return {};
}

// The check's verdict and message: noise-aware when both sides have a per-step series.
bool decide(json& c, const MetricValues& v, const Budget& b, const std::string& unit, const CompareOptions& opt) {
  double delta = v.next - v.base;
  double threshold = c["threshold"].get<double>();
  bool fail = delta > threshold;
  std::string base_msg =
      fmt::format("{} -> {} ({}{}), budget {} ({})", metric_value_text(v.base, unit), metric_value_text(v.next, unit),
                  metric_delta_text(delta, unit), v.base != 0 ? ", " + fmt_signed_pct(delta / v.base) : "", b.text,
                  metric_delta_text(threshold, unit));
  if (v.b.empty() || v.n.empty()) {
    c["method"] = "plain threshold: one value per run, no per-step series";
    c["message"] = std::string(fail ? "regression: " : "within budget: ") + base_msg;
    return fail;
  }
  json nz = noise_test(v.b, v.n, opt, v.paired);
  c["noise"] = nz;
  if (!nz.value("possible", false)) {
    c["method"] = "plain threshold: " + nz.value("why", std::string());
    c["message"] = std::string(fail ? "regression: " : "within budget: ") + base_msg +
                   " (plain threshold: too few steps for a noise test)";
    return fail;
  }
  c["method"] =
      "noise-aware: fails only when over budget and the bootstrap interval of the median "
      "difference lies above 0";
  bool beyond = nz["ci_low"].get<double>() > 0;
  fail = fail && beyond;
  std::string ci = fmt::format("{:.0f}% CI [{}, {}]", nz["confidence"].get<double>() * 100,
                               metric_delta_text(nz["ci_low"].get<double>(), unit),
                               metric_delta_text(nz["ci_high"].get<double>(), unit));
  std::string how = fmt::format("({}; {} p = {:.3g})", nz.value("pairing", ""), nz["test"].value("name", ""),
                                nz["test"]["p_value"].get<double>());
  if (fail) c["message"] = "regression: " + base_msg + "; beyond step-to-step noise: " + ci + " " + how;
  else if (delta > threshold)
    c["message"] = "within noise: " + base_msg + " is over budget, but the " + ci + " includes 0 " + how;
  else c["message"] = "within budget: " + base_msg + "; " + ci + " " + how;
  return fail;
}

json budget_check(const json& doc, const std::string& metric, const Budget& b, const CompareOptions& opt) {
  std::string unit = metric_unit(metric);
  json c = {{"name", metric}, {"budget", b.text}, {"budget_source", b.source}, {"unit", unit}};
  MetricValues v = values_for(doc, metric);
  if (!v.ok && v.error) {
    c["status"] = "fail";
    c["error"] = true;
    c["message"] = "error: " + v.why;
    return c;
  }
  if (!v.ok) {
    c["status"] = "skipped";
    c["message"] = "not evaluated: " + v.why;
    return c;
  }
  double delta = v.next - v.base;
  double threshold = b.kind == Budget::Kind::Relative ? b.value * std::fabs(v.base) : b.value;
  c["base"] = v.base;
  c["new"] = v.next;
  c["delta"] = delta;
  c["delta_ratio"] = v.base != 0 ? json(delta / v.base) : json(nullptr);
  c["threshold"] = threshold;
  c["over_budget"] = delta > threshold;
  if (!v.evidence.empty()) c["evidence"] = v.evidence;
  bool fail = decide(c, v, b, unit, opt);
  if (metric.rfind("op_type:", 0) == 0 && c.contains("evidence") && c["evidence"].value("status", "") == "new")
    c["message"] = c["message"].get<std::string>() + " [new operator type]";
  c["status"] = fail ? "fail" : "pass";
  return c;
}

// --fail-on-finding-saving: a finding of the new run (or only a new or grown one) saving more
// than `limit` of a step fails the gate.
json findings_check(const json& doc, double limit, bool new_findings_only) {
  const json& f = doc.value("findings", json::object());
  json offenders = json::array();
  auto over = [&](const json& x) { return x["saving_ratio"].is_number() && x["saving_ratio"].get<double>() > limit; };
  if (new_findings_only) {
    for (const auto& x : f.value("appeared", json::array()))
      if (over(x)) offenders.push_back(x);
    for (const auto& x : f.value("persisting", json::array()))
      if (over(x) && x["base_saving_ratio"].is_number() &&
          x["saving_ratio"].get<double>() - x["base_saving_ratio"].get<double>() > 0.02)
        offenders.push_back(x);
  } else {
    for (const auto& x : f.value("new_run", json::array()))
      if (over(x)) offenders.push_back(x);
  }
  json c = {{"name", "findings"},
            {"budget", fmt::format("saving <= {:.1f}% of a step{}", limit * 100,
                                   new_findings_only ? " (new or grown findings only)" : "")},
            {"budget_source", "--fail-on-finding-saving"},
            {"unit", "ratio"},
            {"threshold", limit},
            {"offenders", offenders}};
  bool fail = !offenders.empty();
  std::string list;
  for (const auto& x : offenders)
    list += fmt::format("{}{} ({}, saves {:.1f}% of a step)", list.empty() ? "" : "; ", x.value("title", ""),
                        x.value("rule", ""), x["saving_ratio"].get<double>() * 100);
  c["status"] = fail ? "fail" : "pass";
  c["message"] = fail ? "finding over the limit: " + list
                      : fmt::format("no {}finding saves more than {:.1f}% of a step",
                                    new_findings_only ? "new or grown " : "", limit * 100);
  return c;
}

}  // namespace

std::string metric_unit(const std::string& metric) {
  if (metric == "step_time" || metric == "comm_not_overlapped" || metric == "decode_token" ||
      metric == "prefill_1k_tokens")
    return "ns";
  if (metric == "free_ratio") return "ratio";
  if (metric == "memory_peak") return "MB";
  if (metric == "ai_cpu_calls") return "calls";
  if (metric.rfind("op_type:", 0) == 0 && metric.size() > 8) return "ns";
  throw std::invalid_argument("unknown metric \"" + metric +
                              "\" (known: step_time, free_ratio, comm_not_overlapped, op_type:<TYPE>, memory_peak, "
                              "ai_cpu_calls, decode_token, prefill_1k_tokens)");
}

GateConfig::GateConfig() { set(Budget{"step_time", Budget::Kind::Relative, 0.05, "5%", "default"}); }

json evaluate_gate(const json& doc, const GateConfig& cfg) {
  json checks = json::array();
  json notes = json::array();
  int failed = 0, skipped = 0, passed = 0;
  auto count = [&](const json& c) {
    const std::string st = c["status"];
    (st == "fail" ? failed : st == "pass" ? passed : skipped)++;
    checks.push_back(c);
  };
  for (const auto& [metric, b] : cfg.budgets)
    if (b.kind != Budget::Kind::Off) count(budget_check(doc, metric, b, cfg.compare));
  if (cfg.fail_on_finding_saving) count(findings_check(doc, *cfg.fail_on_finding_saving, cfg.new_findings_only));
  // A gate that evaluated nothing (every budget off, or every check skipped: a side without
  // steps) has no verdict to pass: it fails, and says why.
  if (passed + failed == 0)
    count({{"name", "evaluated"},
           {"budget", "at least one check evaluated"},
           {"budget_source", "gate"},
           {"unit", ""},
           {"status", "fail"},
           {"message", checks.empty() ? "nothing was evaluated: every budget is off"
                                      : "nothing was evaluated: every check was skipped, so there is no verdict to "
                                        "pass"}});
  for (const auto& n : doc.value("notes", json::array())) notes.push_back(n);
  return {{"schema", "npu-advisor.gate"},
          {"schema_version", 1},
          {"verdict", failed > 0 ? "fail" : "pass"},
          {"failed", failed},
          {"passed", passed},
          {"skipped", skipped},
          {"checks", checks},
          {"notes", notes}};
}

bool gate_failed(const json& gate) { return gate.value("verdict", "") == "fail"; }

std::optional<std::string> gate_input_error(const json& gate, const json& compare_doc) {
  for (const auto& c : gate.value("checks", json::array()))
    if (c.value("error", false)) {
      std::string why = c.value("message", std::string());
      if (why.rfind("error: ", 0) == 0) why = why.substr(7);
      return fmt::format("gate {}: {} (baseline {}, new run {}); {} needs the phase in both runs", c.value("name", ""),
                         why, compare_doc["base"].value("path", ""), compare_doc["new"].value("path", ""),
                         c.value("name", ""));
    }
  return std::nullopt;
}

std::vector<std::string> load_warnings(const CompareSide& side) {
  if (!side.warnings.empty()) return side.warnings;
  std::vector<std::string> recorded;
  const json& run = side.facts.doc.value("run", json::object());
  for (const auto& w : run.value("warnings", json::array()))
    if (w.is_string()) recorded.push_back(w.get<std::string>());
  return recorded;
}

std::vector<std::string> load_rejections(const CompareSide& side) {
  if (side.kind != "facts file") return side.rejected;
  // A facts file keeps them in run.rejected; one written before that key existed has only
  // run.warnings, which are then all taken as possible rejections (the safe side).
  std::vector<std::string> recorded;
  const json& run = side.facts.doc.value("run", json::object());
  for (const auto& w : run.value(run.contains("rejected") ? "rejected" : "warnings", json::array()))
    if (w.is_string()) recorded.push_back(w.get<std::string>());
  return recorded;
}

std::optional<std::string> partial_input(const CompareSide& base, const CompareSide& next) {
  for (const CompareSide* side : {&base, &next}) {
    const std::vector<std::string> warnings = load_rejections(*side);
    if (warnings.empty()) continue;
    size_t more = warnings.size() - 1;
    return fmt::format("the {} ({}) is partial: the loaders rejected data: {}{}",
                       side == &base ? "baseline" : "new run", side->path, warnings.front(),
                       more == 0 ? "" : fmt::format(" (and {} more load warning{})", more, more == 1 ? "" : "s"));
  }
  return std::nullopt;
}

std::optional<std::string> platform_mismatch(const CompareSide& base, const CompareSide& next) {
  const std::string a = facts_platform(base.facts), b = facts_platform(next.facts);
  if (a == b) return std::nullopt;
  return fmt::format(
      "the baseline ({}) was profiled on {} and the new run ({}) on {}: their steps are measured by "
      "different rules, so a verdict would compare the methods, not the job",
      base.path, a, next.path, b);
}

}  // namespace npu::compare
