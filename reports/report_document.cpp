#include "reports/report_document.h"

#include "reports/run_summary.h"

namespace npu {

nlohmann::json build_report(const nlohmann::json& run_summary, const Facts& facts,
                            const std::vector<RuleOutcome>& outcomes) {
  nlohmann::json r;
  r["schema"] = "npu-advisor.report";
  r["schema_version"] = kReportSchemaVersion;
  r["input"] = run_summary.value("input", nlohmann::json::object());
  r["summary"] = run_summary;
  r["facts"] = facts.doc;
  r["findings"] = ranked_findings(outcomes);
  r["rules"] = rule_status_list(outcomes);
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& u : facts.doc.value("unavailable", nlohmann::json::array())) skipped.push_back(u);
  r["unavailable"] = skipped;
  return r;
}

std::string format_ms(double ns) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  return buf;
}

std::string format_percent(double ratio) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%%", ratio * 100.0);
  return buf;
}

}  // namespace npu
