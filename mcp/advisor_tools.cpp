// The MCP tools' work: the pipeline's functions, as `analyze`, `compare`, `whatif` and `rules`
// call them, with JSON out. Paths come resolved (mcp/path_guard.h).
#include <cstdio>

#include <fmt/format.h>

#include "base/load_error.h"
#include "base/text.h"
#include "mcp/advisor_handler.h"
#include "pipeline/analysis.h"
#include "pipeline/compare_side.h"
#include "pipeline/whatif_run.h"
#include "reports/report_document.h"

namespace npu::mcp::tools {

using json = nlohmann::json;

namespace {

// Lists in what a tool returns are kept to this many entries; the rest is counted.
constexpr size_t kMaxListed = 50;

// `a` (an array) with at most kMaxListed entries; `*dropped` counts the others.
json capped(const json& a, size_t* dropped = nullptr) {
  if (!a.is_array() || a.size() <= kMaxListed) return a;
  if (dropped) *dropped += a.size() - kMaxListed;
  return json(std::vector<json>(a.begin(), a.begin() + kMaxListed));
}

// The first paragraph of a rule's documentation, at most about 400 bytes.
std::string first_paragraph(const std::string& doc) {
  std::string p = doc.substr(0, doc.find("\n\n"));
  if (p.size() > 400) p = p.substr(0, text::utf8_prefix(p, 400)) + " ...";
  return p;
}

}  // namespace

json analyze_report(const std::string& real_path) {
  pipeline::AnalysisOptions opt;  // no progress display: stdout is the protocol's
  // No views: they are the HTML report's drawing data, which no tool serves, and the reports are
  // cached (several at once): they would cost time and memory for nothing.
  opt.views = pipeline::Keep::Never;
  opt.clusters = true;
  pipeline::Analysis a = pipeline::analyze(real_path, opt);
  if (a.is_run_list()) {
    std::string runs;
    for (const auto& r : a.runs) runs += "\n  " + r.input.path;
    throw ToolInputError(real_path + " holds " + std::to_string(a.runs.size()) + " separate runs, not a cluster (" +
                         a.cluster.not_cluster_why + "): analyze each one:" + runs);
  }
  if (!a.rules_error.empty()) throw ToolInputError(a.rules_error);
  if (!a.cluster.warnings.empty()) a.report["cluster_warnings"] = a.cluster.warnings;
  return std::move(a.report);
}

json analyze_summary(const json& report) {
  size_t dropped = 0;
  json findings = json::array();
  for (const auto& f : report.value("findings", json::array())) {
    json t;
    for (const char* k : {"rank", "rule", "title", "severity", "category", "confidence", "saving_ns", "saving_ratio",
                          "observed", "action", "commands"})
      if (f.contains(k)) t[k] = f[k];
    t["evidence_items"] = f.value("evidence", json::array()).size();
    findings.push_back(std::move(t));
  }
  json summary = report.value("summary", json::object());
  for (const char* k : {"steps", "profiler_step_breakdown", "files", "members"})
    if (summary.contains(k)) summary[k] = capped(summary[k], &dropped);
  json rules = {{"fired", 0}, {"quiet", 0}, {"not_applicable", 0}, {"skipped_or_failed", json::array()}};
  for (const auto& r : report.value("rules", json::array())) {
    const std::string status = r.value("status", "");
    if (status == "fired" || status == "quiet") rules[status] = rules[status].get<int>() + 1;
    else if (status == "not applicable") rules["not_applicable"] = rules["not_applicable"].get<int>() + 1;
    else
      rules["skipped_or_failed"].push_back(
          {{"rule", r.value("rule", "")}, {"status", status}, {"reason", r.value("reason", "")}});
  }
  json out = {{"input", report.value("input", json())},
              {"step_split", step_split_title(report.value("attribution", json::object())) + ": " +
                                 step_split_text(report.value("attribution", json::object()))},
              {"explained", explained_text(report.value("attribution", json::object()))},
              {"findings", capped(findings, &dropped)},
              {"rules", std::move(rules)},
              {"unavailable", capped(report.value("unavailable", json::array()), &dropped)},
              {"warnings", capped(report.value("warnings", json::array()), &dropped)},
              {"summary", std::move(summary)},
              {"next",
               "explain_finding (path, finding = rule id or rank) for a finding's evidence and how its saving "
               "was computed; facts (path, facts_path) for any number with its unit and meaning"}};
  if (report.contains("cluster_warnings")) out["cluster_warnings"] = capped(report["cluster_warnings"], &dropped);
  if (dropped) out["entries_not_listed"] = dropped;
  return out;
}

json explain_finding(const json& report, const json& finding) {
  const json& findings = report.value("findings", json::array());
  const bool by_rank =
      finding.is_number_integer() || (finding.is_string() && !finding.get<std::string>().empty() &&
                                      finding.get<std::string>().find_first_not_of("0123456789") == std::string::npos);
  const std::string want = finding.is_string() ? finding.get<std::string>() : finding.dump();
  json matches = json::array();
  for (const auto& f : findings)
    if (by_rank ? f.contains("rank") && f["rank"].dump() == want : f.value("rule", "") == want) matches.push_back(f);
  if (matches.empty()) {
    std::string list;
    for (const auto& f : findings) list += fmt::format("\n  {} {}", f.value("rank", 0), f.value("rule", ""));
    throw ToolInputError("no finding " + want +
                         (findings.empty() ? ": the run has no findings" : "; the findings:" + list));
  }
  const json attribution = report.value("attribution", json::object());
  const double step_ns = attribution.value("step_ns", 0.0);
  for (auto& f : matches) {
    const std::string pool = f.value("pool", "");
    json how = {{"saving_ns", f.value("saving_ns", 0.0)},
                {"formula", f.value("saving_formula", "")},
                {"pool", pool},
                {"step_ns", step_ns}};
    if (const json pools = attribution.value("pools", json::object()); pools.contains(pool))
      how["pool_use"] = pools[pool];
    how["in_words"] = fmt::format(
        "saves {} per step{} ({}), {}; drawn from the step's {} time{}", text::ms(f.value("saving_ns", 0.0)),
        step_ns > 0
            ? fmt::format(" = {:.1f}% of the {} step", 100 * f.value("saving_ns", 0.0) / step_ns, text::ms(step_ns))
            : "",
        f.value("saving_formula", "formula not given"),
        f.contains("saving_method") ? "by " + f.value("saving_method", "") +
                                          " (the rule's own estimate: " + text::ms(f.value("saving_rule_ns", 0.0)) + ")"
                                    : "the rule's own estimate",
        pool, pool.empty() ? "" : ", which the savings of all findings together never exceed");
    f["how_the_saving_was_computed"] = std::move(how);
  }
  return {{"input", report.value("input", json())}, {"findings", std::move(matches)}};
}

json compare_runs(const std::string& base, const std::string& next, bool keep_warmup) {
  pipeline::LoadSettings settings;
  compare::CompareSide b = pipeline::load_compare_side(base, settings, {});
  compare::CompareSide n = pipeline::load_compare_side(next, settings, {});
  compare::CompareOptions opt;
  opt.skip_warmup = !keep_warmup;
  json doc = compare::build_compare(b, n, opt);
  json warnings = json::array();
  for (const auto& w : b.warnings) warnings.push_back("baseline: " + w);
  for (const auto& w : n.warnings) warnings.push_back("new: " + w);
  if (!warnings.empty()) doc["load_warnings"] = capped(warnings);
  return doc;
}

json whatif(const std::string& real_path, const std::vector<std::string>& apply) {
  pipeline::AnalysisOptions opt;
  opt.stop = pipeline::StopAfter::Load;
  opt.summary = pipeline::Keep::Never;
  opt.keep_model = true;
  opt.if_cluster = "give one rank's folder or trace";
  json r = pipeline::whatif_run(*pipeline::analyze(real_path, opt).model, apply);
  r["input"] = real_path;
  return r;
}

json list_rules(const std::string& id) {
  RuleEngine engine;
  pipeline::add_rule_sources(engine, {});
  json rules = json::array();
  for (const auto& m : engine.rules()) {
    if (!id.empty() && m.id != id) continue;
    json r = {{"id", m.id},
              {"title", m.title},
              {"category", m.category},
              {"severity", m.severity},
              {"platforms", m.platforms},
              {"frameworks", m.frameworks},
              {"needs", m.needs},
              {"options", m.params}};
    if (!m.pool.empty()) r["pool"] = m.pool;
    if (!m.whatif.empty()) r["whatif"] = m.whatif;
    r["description"] = id.empty() ? first_paragraph(m.doc) : m.doc;
    rules.push_back(std::move(r));
  }
  if (!id.empty() && rules.empty())
    throw ToolInputError("no rule with id " + id + " (list_rules without id lists them)");
  return {{"rules", std::move(rules)},
          {"options_note", "an option is overridden on the command line with --set RULE_ID.NAME=VALUE"}};
}

}  // namespace npu::mcp::tools
