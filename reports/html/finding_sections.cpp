// The findings of the analysis page (each a fold: what was observed, why it matters, what to do,
// the estimated saving, commands to copy and the evidence with where it was found) and the checks
// that did not run or the facts that were unavailable.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/html/sections.h"
#include "reports/report_document.h"

namespace npu::html {

namespace {

// An evidence value: floats to 6 significant digits, the rest as written.
std::string value_text(const json& v) {
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  return text(v);
}

std::string evidence_where(const json& e) {
  std::string where = str(e, "file");
  if (auto l = num(e, "line")) where += fmt::format(":{}", static_cast<int64_t>(*l));
  if (auto b = num(e, "byte")) where += fmt::format(" @ byte {}", static_cast<int64_t>(*b));
  if (auto r = num(e, "rowid")) where += fmt::format(" @ {} rowid {}", str(e, "table"), static_cast<int64_t>(*r));
  return where;
}

std::string finding_html(const json& f, size_t index, const std::string& base) {
  std::string rank = str(f, "rank");
  if (rank.empty()) rank = std::to_string(index + 1);
  std::string sev = str(f, "severity");
  std::string out = fmt::format("<details class=\"finding sev-{}\" id=\"finding-{}\"{}>\n", css_token(sev), esc(rank),
                                index < 3 ? " open" : "");
  out += fmt::format(
      "<summary><span class=\"rank\">{}</span><span class=\"title\">{}</span>"
      "<span class=\"saving\">{}</span><span class=\"badge sev-{}\">{}</span>"
      "<span class=\"badge cat\">{}</span></summary>\n",
      esc(rank), esc(str(f, "title")), esc(saving_text(f, true)), css_token(sev), esc(sev), esc(str(f, "category")));
  out += "<div class=\"finding-body\">\n<dl>\n";
  out += "<dt>Observed</dt><dd>" + esc(str(f, "observed")) + "</dd>\n";
  if (!str(f, "why").empty()) out += "<dt>Why it matters</dt><dd>" + esc(str(f, "why")) + "</dd>\n";
  if (!str(f, "action").empty()) out += "<dt>What to do</dt><dd>" + esc(str(f, "action")) + "</dd>\n";
  std::string est = saving_text(f, false);
  std::string formula = str(f, "saving_formula");
  if (num(f, "saving_ns").value_or(0) <= 0) est = formula.empty() ? "not estimated" : formula;
  else if (!formula.empty()) est += "; estimate: " + formula;
  if (auto c = num(f, "confidence")) est += fmt::format("; confidence {:.0f}%", *c * 100);
  out += "<dt>Estimated saving</dt><dd>" + esc(est) + "</dd>\n</dl>\n";
  const json& cmds = list(f, "commands");
  if (!cmds.empty()) {
    std::string text_block;
    for (const auto& c : cmds) text_block += text(c) + "\n";
    if (!text_block.empty()) text_block.pop_back();
    out += fmt::format(
        "<div class=\"cmd\"><div class=\"cmd-head\">Commands <button type=\"button\" class=\"copy\" "
        "data-target=\"cmd-{0}\">Copy</button></div><pre id=\"cmd-{0}\"><code>{1}</code></pre></div>\n",
        index, esc(text_block));
  }
  const json& ev = list(f, "evidence");
  if (!ev.empty()) {
    struct Row {
      std::string what, value, where;
    };
    std::vector<Row> rows;
    bool any_value = false, any_where = false;
    for (const auto& e : ev) {
      Row row;
      if (e.is_object()) {
        row.what = str(e, "what");
        if (!str(e, "fact").empty()) row.what = str(e, "fact") + (row.what.empty() ? "" : ": " + row.what);
        row.value = value_text(at(e, "value"));
        row.where = evidence_where(e);
        if (row.what.empty() && row.value.empty() && row.where.empty()) row.value = text(e);
      } else {
        row.what = text(e);
      }
      any_value |= !row.value.empty();
      any_where |= !row.where.empty();
      rows.push_back(std::move(row));
    }
    std::vector<std::pair<std::string, bool>> cols = {{"#", true}, {"what", false}};
    if (any_value) cols.push_back({"value", false});
    if (any_where) cols.push_back({"where", false});
    Table t("evidence", cols);
    size_t i = 0;
    for (const auto& row : rows) {
      std::vector<Cell> cells = {count_cell(static_cast<double>(++i)), tcell(row.what)};
      if (any_value) cells.push_back(tcell(row.value, "mono"));
      if (any_where) cells.push_back(path_cell(row.where, base));
      t.row(std::move(cells));
    }
    out += "<div class=\"evidence-head\">Evidence</div>\n" + t.html();
  }
  out += "<p class=\"rule-ref\">rule <code>" + esc(str(f, "rule")) + "</code>";
  if (!str(f, "rule_file").empty()) out += " &middot; " + esc(str(f, "rule_file"));
  out += "</p>\n</div>\n</details>\n";
  return out;
}

}  // namespace

std::string saving_text(const json& f, bool short_form) {
  auto s = num(f, "saving_ns");
  if (!s || *s <= 0) return "saving not estimated";
  std::string out = short_form ? "~" : "";
  out += format_ms(*s) + (short_form ? "/step" : " per step");
  if (auto r = num(f, "saving_ratio")) out += " (" + format_percent(*r) + (short_form ? ")" : " of a step)");
  return out;
}

std::string section_findings(const json& r) {
  const json& findings = list(r, "findings");
  std::string out = fmt::format(
      "<section id=\"findings\" class=\"card\">\n<h2>Findings <span class=\"count\">({})</span>"
      "<span class=\"tools\"><button type=\"button\" class=\"expand-all\">Expand all</button>"
      "<button type=\"button\" class=\"collapse-all\">Collapse all</button></span></h2>\n",
      findings.size());
  const std::string explained = explained_text(at(r, "attribution"));
  out += "<p class=\"hint\">Ranked by estimated saving per step &times; confidence; percentages are of the step" +
         (explained.empty() ? std::string(".") : ". " + esc(explained) + ".") + "</p>\n";
  if (findings.empty()) out += "<p class=\"none\">No findings.</p>\n";
  size_t i = 0;
  std::string base = str(at(r, "input"), "path");
  for (const auto& f : findings) out += finding_html(f, i++, base);
  return out + "</section>\n";
}

std::string section_checks(const json& r) {
  std::string out = "<section id=\"checks\" class=\"card\">\n<h2>Checks not run and facts unavailable</h2>\n";
  Table t("checks", {{"check or fact", false}, {"status", false}, {"reason", false}});
  for (const auto& rs : list(r, "rules")) {
    std::string st = str(rs, "status");
    if (st == "fired" || st == "quiet") continue;
    t.row({hcell("<code>" + esc(str(rs, "rule")) + "</code> " + esc(str(rs, "title"))),
           hcell("<span class=\"badge st-" + css_token(st) + "\">" + esc(st) + "</span>"), tcell(str(rs, "reason"))});
  }
  for (const auto& u : list(r, "unavailable"))
    t.row({hcell("fact <code>" + esc(str(u, "fact")) + "</code>"),
           hcell("<span class=\"badge st-unavailable\">unavailable</span>"), tcell(str(u, "why"))});
  if (t.empty()) out += "<p class=\"none\">All checks ran and every fact was available.</p>\n";
  else out += t.html();

  const json& rules = list(r, "rules");
  std::map<std::string, size_t> by_status;
  for (const auto& rs : rules) by_status[str(rs, "status")]++;
  std::string counts;
  for (const auto& [st, n] : by_status) counts += (counts.empty() ? "" : ", ") + fmt::format("{} {}", n, st);
  Table all("rules", {{"rule", false}, {"title", false}, {"category", false}, {"status", false}, {"findings", true}});
  for (const auto& rs : rules) {
    std::string st = str(rs, "status");
    all.row({hcell("<code>" + esc(str(rs, "rule")) + "</code>"), tcell(str(rs, "title")), tcell(str(rs, "category")),
             hcell("<span class=\"badge st-" + css_token(st) + "\">" + esc(st) + "</span>"),
             count_cell(num(rs, "findings"))});
  }
  out += fmt::format("<details><summary>All checks ({}{}{})</summary>\n", rules.size(), counts.empty() ? "" : ": ",
                     esc(counts));
  out += all.html() + "</details>\n</section>\n";
  return out;
}

}  // namespace npu::html
