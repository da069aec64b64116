#include "reports/report_document.h"

#include "base/text.h"
#include "reports/run_summary.h"
#include "rules/attribution.h"
#include "rules/verdicts.h"

namespace npu {

nlohmann::json build_report(const nlohmann::json& run_summary, Facts&& facts, const std::vector<RuleOutcome>& outcomes,
                            nlohmann::json views) {
  nlohmann::json r;
  r["schema"] = "npu-advisor.report";
  r["schema_version"] = kReportSchemaVersion;
  r["input"] = run_summary.value("input", nlohmann::json::object());
  r["summary"] = run_summary;
  // What the loaders skipped or doubted, in every format (it was in `inspect` only).
  r["warnings"] = run_summary.value("warnings", nlohmann::json::array());
  for (const auto& w : facts.warnings) r["warnings"].push_back(w);  // what the facts left out (Facts::warn)
  r["findings"] = ranked_findings(outcomes);
  r["attribution"] = attribute_savings(r["findings"], facts.doc);
  r["rules"] = rule_status_list(outcomes);
  // What the verdicts decided for this run: the reports show these (docs/rules.md, Verdicts).
  r["verdicts"] = verdict_document(outcomes);
  nlohmann::json skipped = nlohmann::json::array();
  if (const auto it = facts.doc.find("unavailable"); it != facts.doc.end())
    for (const auto& u : *it) skipped.push_back(u);
  if (views.is_object())
    for (const auto& u : views.value("unavailable", nlohmann::json::array())) skipped.push_back(u);
  r["unavailable"] = skipped;
  if (views.is_object()) r["views"] = std::move(views);
  // The rules have read the whole module tree: the report carries its heaviest part.
  if (const auto it = facts.doc.find("modules"); it != facts.doc.end()) trim_module_view(*it);
  r["facts"] = std::move(facts.doc);  // a long capture's facts are tens of MB: no second copy
  return r;
}

nlohmann::json build_report(const nlohmann::json& run_summary, const Facts& facts,
                            const std::vector<RuleOutcome>& outcomes, nlohmann::json views) {
  Facts copy = facts;
  return build_report(run_summary, std::move(copy), outcomes, std::move(views));
}

const nlohmann::json& step_class_verdict(const nlohmann::json& report) {
  static const nlohmann::json kNone;
  const nlohmann::json* at = &report;
  for (const char* key : {"verdicts", "dispatch", "step_class"}) {
    if (!at->is_object() || !at->contains(key)) return kNone;
    at = &(*at)[key];
  }
  return *at;
}

std::string step_class_line(const nlohmann::json& report) {
  const nlohmann::json& v = step_class_verdict(report);
  if (!v.is_object() || !v.contains("overall")) return "";
  const nlohmann::json& o = v["overall"];
  if (!o.is_object() || !o.contains("class") || !o["class"].is_string()) return "";
  std::string line = "Dispatch: " + o["class"].get<std::string>();
  if (o.contains("why") && o["why"].is_string() && !o["why"].get<std::string>().empty())
    line += " (" + o["why"].get<std::string>() + ")";
  return line;
}

std::string format_ms(double ns) { return text::ms(ns); }

std::string format_percent(double ratio) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%%", ratio * 100.0);
  return buf;
}

}  // namespace npu
