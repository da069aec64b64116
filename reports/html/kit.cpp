#include "reports/html/kit.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reports/report_document.h"

namespace npu::html {

namespace {
const json& null_json() {
  static const json n;
  return n;
}
}  // namespace

const json& at(const json& j, const char* key) {
  if (j.is_object())
    if (auto it = j.find(key); it != j.end()) return *it;
  return null_json();
}
const json& list(const json& j, const char* key) {
  static const json empty = json::array();
  const json& v = at(j, key);
  return v.is_array() ? v : empty;
}
std::optional<double> num(const json& j, const char* key) {
  const json& v = at(j, key);
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}
std::string text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}
std::string str(const json& j, const char* key) { return text(at(j, key)); }

// ---- escaping ----

std::string script_json(const json& j) {
  std::string raw = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(raw.size() + 64);
  for (char c : raw) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string css_token(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') out += static_cast<char>(c - 'A' + 'a');
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out += c;
    else if (c == ' ' || c == '-' || c == '_') out += '-';
  }
  return out.empty() ? "other" : out;
}

// ---- number formatting ----

std::string ms3(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

std::string dur(double ns) {
  double a = std::fabs(ns);
  if (a < 1e3) return fmt::format("{:.0f} ns", ns);
  if (a < 1e6) return fmt::format("{:.1f} \xC2\xB5s", ns / 1e3);
  if (a < 1e9) return fmt::format("{:.3f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

std::string count_str(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:.3g}", v);
}

std::string plural(size_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

// ---- tables ----

Cell tcell(std::string_view s, std::string cls) { return {esc(s), std::nullopt, std::move(cls)}; }
Cell hcell(std::string html, std::string cls) { return {std::move(html), std::nullopt, std::move(cls)}; }
Cell ncell(std::optional<double> v, const std::function<std::string(double)>& format) {
  if (!v) return {"&ndash;", std::nullopt, "num"};
  return {esc(format(*v)), *v, "num"};
}
Cell ms_cell(std::optional<double> ns) { return ncell(ns, ms3); }
Cell dur_cell(std::optional<double> ns) { return ncell(ns, dur); }
Cell pct_cell(std::optional<double> r) { return ncell(r, format_percent); }
Cell count_cell(std::optional<double> v) { return ncell(v, count_str); }

std::string Table::html() const {
  std::string out = "<div class=\"table-wrap\"><table class=\"sortable " + cls_ + "\"><thead><tr>";
  for (const auto& [head, numeric] : cols_)
    out += fmt::format("<th scope=\"col\"{}>{}</th>", numeric ? " class=\"num\"" : "", esc(head));
  out += "</tr></thead><tbody>\n";
  for (size_t i = 0; i < rows_.size(); ++i) {
    const auto& r = rows_[i];
    out += row_cls_[i].empty() ? "<tr>" : "<tr class=\"" + row_cls_[i] + "\">";
    for (const auto& c : r) {
      out += "<td";
      if (!c.cls.empty()) out += " class=\"" + c.cls + "\"";
      if (c.sort_key) out += fmt::format(" data-v=\"{}\"", *c.sort_key);
      out += ">" + c.html + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  return out;
}

Cell path_cell(const std::string& path, std::string base) {
  if (!base.empty() && base.back() != '/') base += '/';
  std::string shown = !base.empty() && path.size() > base.size() && path.compare(0, base.size(), base) == 0
                          ? path.substr(base.size())
                          : path;
  if (shown == path) return tcell(path, "path");
  return hcell("<span title=\"" + esc(path) + "\">" + esc(shown) + "</span>", "path");
}

std::string kv_table(const json& obj, const char* cls, bool empty_as_unset) {
  Table t(cls, {{"name", false}, {"value", false}});
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::string v = text(it.value());
    t.row({tcell(it.key(), "mono"),
           v.empty() && empty_as_unset ? hcell("<span class=\"unset\">(unset)</span>") : tcell(v, "mono")});
  }
  return t.html();
}

// ---- pieces shared by the sections ----

std::string why_unavailable(const json& r, std::string_view fact) {
  for (const json* l : {&list(r, "unavailable"), &list(at(r, "facts"), "unavailable")}) {
    for (const auto& u : *l) {
      std::string f = str(u, "fact");
      if (f == fact || (f.size() > fact.size() && f.compare(0, fact.size(), fact) == 0 && f[fact.size()] == '.'))
        return str(u, "why");
    }
  }
  return "";
}

std::string not_available(std::string_view why) { return "<p class=\"na\">not available: " + esc(why) + "</p>\n"; }

std::string step_label(const json& s) {
  const json& id = at(s, "id");
  return id.is_null() ? "whole run" : text(id);
}

std::string kpi(std::string_view label, std::string_view value, std::string_view sub, std::string_view cls) {
  return fmt::format(
      "<div class=\"kpi {}\"><div class=\"kpi-label\">{}</div><div class=\"kpi-value\">{}</div>"
      "<div class=\"kpi-sub\">{}</div></div>\n",
      cls, esc(label), esc(value), esc(sub));
}

std::string heat_style(double v, double lo, double hi) {
  double span = std::max(hi - lo, 0.2 * std::abs(hi));
  double t = span > 0 ? std::min(1.0, (v - lo) / span) : 0.0;
  int g = static_cast<int>(255 - 150 * t), b = static_cast<int>(255 - 170 * t);
  return fmt::format(" style=\"background:rgb(255,{},{})\"", g, b);
}

// ---- the data behind the charts ----

namespace {

json evenly_spaced(const json& steps, size_t keep) {
  json out = json::array();
  const size_t n = steps.size();
  for (size_t k = 0; k < keep; ++k) out.push_back(steps[keep > 1 ? k * (n - 1) / (keep - 1) : 0]);
  return out;
}

}  // namespace

std::optional<json> sampled_for_page(const json& r) {
  const json& facts = at(r, "facts");
  const json& steps = list(facts, "steps");
  const json& dsteps = list(at(facts, "dispatch"), "steps");
  const size_t most = std::max(steps.size(), dsteps.size());
  if (most <= kHtmlMaxSteps) return std::nullopt;
  json page = json::object();
  for (const auto& [k, v] : r.items())
    if (k != "facts") page[k] = v;
  json f = json::object();
  for (const auto& [k, v] : facts.items()) {
    if (k == "steps") {
      f[k] = v.size() > kHtmlMaxSteps ? evenly_spaced(v, kHtmlMaxSteps) : v;
    } else if (k == "dispatch" && v.is_object()) {
      json d = json::object();
      for (const auto& [dk, dv] : v.items())
        d[dk] = dk == "steps" && dv.size() > kHtmlMaxSteps ? evenly_spaced(dv, kHtmlMaxSteps) : dv;
      f[k] = std::move(d);
    } else {
      f[k] = v;
    }
  }
  page["facts"] = std::move(f);
  page["html_steps_sampled"] = {{"steps_total", most}, {"steps_shown", kHtmlMaxSteps}};
  return page;
}

std::string sampled_note(const json& r) {
  const json& s = at(r, "html_steps_sampled");
  if (!s.is_object()) return "";
  return "<p class=\"hint\">" +
         esc(fmt::format("{} of {} steps shown (evenly spaced, first and last included); totals and findings use every "
                         "step, and the JSON report (--format json) lists them all.",
                         s.value("steps_shown", 0), s.value("steps_total", 0))) +
         "</p>\n";
}

}  // namespace npu::html
