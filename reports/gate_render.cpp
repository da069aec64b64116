// Renderings of a gate verdict: the terminal lines, JUnit XML for CI test reports, and a
// Markdown job summary. They read only the verdict and the compare document.
#include "reports/gate_render.h"

#include <fmt/format.h>

#include "base/text.h"
#include "compare/delta_text.h"
#include "compare/gate.h"
#include "reports/markup.h"

namespace npu::reports {

using compare::fmt_signed_ms;
using compare::fmt_signed_pct;
using compare::metric_delta_text;
using compare::metric_value_text;
using nlohmann::json;

std::string render_gate_text(const json& g, const json& doc) {
  std::string o = fmt::format("gate: {} ({} failed, {} passed, {} skipped)\n", g["verdict"] == "fail" ? "FAIL" : "PASS",
                              g["failed"].get<int>(), g["passed"].get<int>(), g["skipped"].get<int>());
  o += "  base: " + doc["base"].value("path", "") + "\n  new:  " + doc["new"].value("path", "") + "\n";
  for (const auto& c : g["checks"]) {
    std::string st = c["status"];
    o += fmt::format("  {:<4} {:<26} {}\n",
                     st == "fail"   ? "FAIL"
                     : st == "pass" ? "ok"
                                    : "SKIP",
                     c["name"].get<std::string>(), c.value("message", ""));
  }
  if (compare::gate_failed(g) && !doc["why"].empty()) {
    o += "  why (top contributors to the device-time delta):\n";
    int n = 0;
    for (const auto& w : doc["why"]) {
      if (n++ >= 3) break;
      o += "    " + std::to_string(w.value("rank", 0)) + ". " + w.value("summary", "") + "\n";
    }
  }
  return o;
}

namespace {

void evidence_lines(const json& e, const std::string& side, std::string& o) {
  if (!e.is_array()) return;
  for (const auto& x : e) {
    if (!x.is_object()) continue;
    std::string where = x.value("file", "");
    if (x.contains("line")) where += ":" + x["line"].dump();
    if (x.contains("byte")) where += " @ byte " + x["byte"].dump();
    if (x.contains("rowid")) where += " @ " + x.value("table", "") + " rowid " + x["rowid"].dump();
    o += "evidence (" + side + "): " + x.value("what", "") + " (" + where + ")\n";
  }
}

// The body of a JUnit <failure>: the numbers behind the verdict, one per line.
std::string junit_details(const json& c) {
  std::string unit = c.value("unit", "");
  std::string o = "check: " + c.value("name", "") + "\n";
  if (c.contains("base") && c["base"].is_number()) {
    o += "base: " + metric_value_text(c["base"].get<double>(), unit) + "\n";
    o += "new: " + metric_value_text(c["new"].get<double>(), unit) + "\n";
    o += "delta: " + metric_delta_text(c["delta"].get<double>(), unit) +
         (c["delta_ratio"].is_number() ? " (" + fmt_signed_pct(c["delta_ratio"].get<double>()) + ")" : "") + "\n";
    o += "budget: " + c.value("budget", "") + " (" + metric_delta_text(c["threshold"].get<double>(), unit) +
         "), from " + c.value("budget_source", "") + "\n";
  } else {
    o += "budget: " + c.value("budget", "") + "\n";
  }
  if (c.contains("method")) o += "method: " + c.value("method", "") + "\n";
  if (c.contains("noise") && c["noise"].value("possible", false)) {
    const json& nz = c["noise"];
    o += fmt::format("noise: {:.0f}% CI [{}, {}] ({}), {} p = {:.3g}\n", nz["confidence"].get<double>() * 100,
                     metric_delta_text(nz["ci_low"].get<double>(), unit),
                     metric_delta_text(nz["ci_high"].get<double>(), unit), nz.value("pairing", ""),
                     nz["test"].value("name", ""), nz["test"]["p_value"].get<double>());
  }
  if (c.contains("evidence") && c["evidence"].is_object()) {
    evidence_lines(c["evidence"].value("base", json()), "base", o);
    evidence_lines(c["evidence"].value("new", json()), "new", o);
  }
  for (const auto& x : c.value("offenders", json::array()))
    o += fmt::format("finding: {} ({}) saves {:.1f}% of a step: {}\n", x.value("title", ""), x.value("rule", ""),
                     x["saving_ratio"].get<double>() * 100, x.value("observed", ""));
  return o;
}

}  // namespace

std::string render_gate_junit(const json& g) {
  size_t tests = g["checks"].size();
  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += fmt::format("<testsuites name=\"npu-advisor gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                   tests, g["failed"].get<int>(), g["skipped"].get<int>());
  o += fmt::format("  <testsuite name=\"npu-advisor gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                   tests, g["failed"].get<int>(), g["skipped"].get<int>());
  for (const auto& c : g["checks"]) {
    std::string name = c["name"];
    std::string msg = c.value("message", "");
    o += fmt::format("    <testcase classname=\"npu-advisor.gate\" name=\"{}\">\n", markup_escape(name));
    std::string st = c["status"];
    if (st == "fail") {
      o += fmt::format("      <failure message=\"{}\" type=\"regression\">{}</failure>\n", markup_escape(msg),
                       markup_escape(junit_details(c)));
    } else if (st == "skipped") {
      o += fmt::format("      <skipped message=\"{}\"/>\n", markup_escape(msg));
    } else {
      o += fmt::format("      <system-out>{}</system-out>\n", markup_escape(msg));
    }
    o += "    </testcase>\n";
  }
  o += "  </testsuite>\n</testsuites>\n";
  return o;
}

std::string render_gate_markdown(const json& g, const json& doc) {
  bool fail = compare::gate_failed(g);
  std::string o = fmt::format("## npu-advisor gate: {}\n\n", fail ? "❌ FAIL" : "✅ PASS");
  o += fmt::format("Baseline `{}` vs new `{}`: {} failed, {} passed, {} skipped.\n\n",
                   text::md_safe_cell(doc["base"].value("path", "")), text::md_safe_cell(doc["new"].value("path", "")),
                   g["failed"].get<int>(), g["passed"].get<int>(), g["skipped"].get<int>());
  o += "| check | result | base | new | delta | budget | noise |\n|---|---|---:|---:|---:|---|---|\n";
  for (const auto& c : g["checks"]) {
    std::string st = c["status"];
    std::string unit = c.value("unit", "");
    std::string noise = "-";
    if (c.contains("noise")) {
      const json& nz = c["noise"];
      noise =
          nz.value("possible", false)
              ? fmt::format("{:.0f}% CI [{}, {}], p = {:.3g}", nz["confidence"].get<double>() * 100,
                            metric_delta_text(nz["ci_low"].get<double>(), unit),
                            metric_delta_text(nz["ci_high"].get<double>(), unit), nz["test"]["p_value"].get<double>())
              : "too few steps: plain threshold";
    }
    if (c["name"] == "findings" || (st != "skipped" && !c.contains("base"))) {  // a check without numbers
      o += fmt::format("| {} | {} | | | | {} | |\n", text::md_safe_cell(c["name"]), st == "fail" ? "❌ fail" : "✅ pass",
                       text::md_safe_cell(c.value("budget", "")));
      continue;
    }
    if (st == "skipped") {
      o += fmt::format("| `{}` | ⏭ skipped | | | | {} | {} |\n", text::md_safe_cell(c["name"]),
                       text::md_safe_cell(c.value("budget", "")), text::md_safe_cell(c.value("message", "")));
      continue;
    }
    o += fmt::format("| `{}` | {} | {} | {} | {}{} | {} | {} |\n", text::md_safe_cell(c["name"]),
                     st == "fail"                    ? "❌ fail"
                     : c.value("over_budget", false) ? "✅ pass (within noise)"
                                                     : "✅ pass",
                     metric_value_text(c["base"].get<double>(), unit), metric_value_text(c["new"].get<double>(), unit),
                     metric_delta_text(c["delta"].get<double>(), unit),
                     c["delta_ratio"].is_number() ? " (" + fmt_signed_pct(c["delta_ratio"].get<double>()) + ")" : "",
                     text::md_safe_cell(c.value("budget", "")), text::md_safe_cell(noise));
  }
  for (const auto& c : g["checks"])
    if (c["name"] == "findings" && c["status"] == "fail")
      o += "\n**Findings over the limit:** " + text::md_safe_cell(c.value("message", "")) + "\n";
    else if (c["name"] == "evaluated" && c["status"] == "fail")
      o += "\n**Nothing evaluated:** " + text::md_safe_cell(c.value("message", "")) + "\n";
  if (!doc["why"].empty()) {
    o += fmt::format("\n### Why ({} by {} per step)\n\n", doc["why_basis"].value("direction", ""),
                     fmt_signed_ms(doc["why_basis"].value("total_delta_ns", 0.0)));
    int n = 0;
    for (const auto& w : doc["why"]) {
      if (n++ >= 5) break;
      o += fmt::format("{}. {}\n", w.value("rank", 0), text::md_safe_cell(w.value("summary", "")));
    }
  }
  const json& f = doc["findings"];
  if (!f["appeared"].empty()) {
    o += "\n### New findings\n\n";
    for (const auto& x : f["appeared"])
      o += fmt::format("- {} (`{}`): {}\n", text::md_safe_cell(x.value("title", "")),
                       text::md_safe_cell(x.value("rule", "")), text::md_safe_cell(x.value("observed", "")));
  }
  if (!g["notes"].empty()) {
    o += "\n<details><summary>Notes</summary>\n\n";
    for (const auto& n : g["notes"]) o += "- " + text::md_safe_cell(n.get<std::string>()) + "\n";
    o += "\n</details>\n";
  }
  return o;
}

}  // namespace npu::reports
