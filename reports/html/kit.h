// The HTML report's kit: lenient access to a report document whose sections may be absent or
// still evolving, escaping, number formatting, sortable tables, the shared small pieces (KPI
// boxes, "not available" lines, heat-map colours) and the per-step sampling of the chart data.
//
// Every string from the document (operator names, paths, env values, rule text) is untrusted:
// it goes through esc() (HTML-escaped, invalid UTF-8 replaced) or, inside <script>, through
// script_json() (JSON with <, > and & as \u escapes, so no `</script>` or `<!--` can appear).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "reports/markup.h"

namespace npu::html {

using json = nlohmann::json;

// ---- lenient access: a missing key or a wrong type reads as null / empty / nullopt ----

const json& at(const json& j, const char* key);
const json& list(const json& j, const char* key);  // an empty array unless j[key] is an array
std::optional<double> num(const json& j, const char* key);
std::string text(const json& v);  // strings as they are, other values as compact JSON, null as ""
std::string str(const json& j, const char* key);

// ---- escaping ----

// HTML-escapes `s` for text and attribute values (reports/markup.h: invalid UTF-8 and C0 control
// characters other than tab and newlines become U+FFFD).
inline std::string esc(std::string_view s) { return markup_escape(s); }
// JSON for a <script> element: `<`, `>` and `&` only occur inside JSON strings, where their
// \u escapes mean the same thing, so the text can never close the element.
std::string script_json(const json& j);
// A CSS class fragment from a label: lowercase letters, digits and '-' only.
std::string css_token(std::string_view s);

// ---- number formatting ----

std::string ms3(double ns);  // "4.567" (milliseconds, no unit: the column head says ms)
std::string dur(double ns);  // 850 ns, 12.3 µs, 4.567 ms, 1.234 s
using text::human_bytes;  // base/text.h
std::string count_str(double v);  // integers without a decimal point, others to 3 significant digits
std::string plural(size_t n, const char* one, const char* many);

// ---- tables ----

struct Cell {
  std::string html;                // already escaped
  std::optional<double> sort_key;  // numeric sort key (data-v)
  std::string cls;
};
Cell tcell(std::string_view s, std::string cls = "");  // text, escaped here
Cell hcell(std::string html, std::string cls = "");    // markup the caller escaped
Cell ncell(std::optional<double> v, const std::function<std::string(double)>& format);
Cell ms_cell(std::optional<double> ns);
Cell dur_cell(std::optional<double> ns);
Cell pct_cell(std::optional<double> ratio);
Cell count_cell(std::optional<double> v);
// A file path shown relative to the input folder `base` (shorter); the full path is the title.
Cell path_cell(const std::string& path, std::string base);

// A table that report.js makes sortable; columns are (head, numeric).
class Table {
 public:
  Table(std::string cls, std::vector<std::pair<std::string, bool>> cols)
      : cls_(std::move(cls)), cols_(std::move(cols)) {}
  // row_cls: the <tr>'s class (a phase-coloured row); "" for none.
  void row(std::vector<Cell> cells, std::string row_cls = "") {
    rows_.push_back(std::move(cells));
    row_cls_.push_back(std::move(row_cls));
  }
  bool empty() const { return rows_.empty(); }
  std::string html() const;

 private:
  std::string cls_;
  std::vector<std::pair<std::string, bool>> cols_;
  std::vector<std::vector<Cell>> rows_;
  std::vector<std::string> row_cls_;
};

// A two-column name/value table of an object's members; `empty_as_unset` shows "" as (unset).
std::string kv_table(const json& obj, const char* cls, bool empty_as_unset);

// ---- pieces shared by the sections ----

// Why a fact (or a section of it) is unavailable, from the document's unavailable lists.
std::string why_unavailable(const json& report, std::string_view fact);
std::string not_available(std::string_view why);
// A step's id, or "whole run" for the pseudo-step.
std::string step_label(const json& step);
// One headline number: label above, value, a smaller line below; `cls` "good" / "bad" colours it.
std::string kpi(std::string_view label, std::string_view value, std::string_view sub, std::string_view cls = "");
// A heat-map cell's style attribute: white at the metric's minimum, full red at its maximum, but
// never less span than 20% of the maximum, so ranks 0.3% apart do not look like white and red.
// (Chart.js in Debian has no matrix chart, so a heat map is a table with background colours.)
std::string heat_style(double v, double lo, double hi);

// ---- the data behind the charts ----

// A long capture has tens of thousands of steps: its per-step tables and charts would make the
// page hundreds of MB and unreadable. The page then shows an evenly spaced sample of at most
// this many steps (first and last included); totals, findings and the JSON report use them all.
constexpr size_t kHtmlMaxSteps = 2000;
// The report as the page uses it (tables, and the charts drawn from the embedded copy): per-step
// arrays sampled when there are too many steps, with `html_steps_sampled` saying so; nullopt
// when the report is small enough to show as it is.
std::optional<json> sampled_for_page(const json& report);
// The line saying that steps were sampled, or "".
std::string sampled_note(const json& report);

}  // namespace npu::html
