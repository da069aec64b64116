// The HTML report: one self-contained page (docs/reports.md). The content is rendered here
// as static HTML (so it reads without JavaScript and prints); charts are drawn in the page by
// Chart.js from the report document embedded as <script type="application/json">. The page
// frame, CSS and JS come from reports/templates/ and Chart.js from Debian's libjs-chart.js,
// all compiled into the binary (cmake/embed_files.cmake): the page makes no network request.
//
// Every string from the document (operator names, paths, env values, rule text) is untrusted:
// it goes through esc() (HTML-escaped, invalid UTF-8 replaced) or, inside <script>, through
// script_json() (JSON with <, > and & as \u escapes, so no `</script>` or `<!--` can appear).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "reports/html_timeline.h"
#include "reports/report_document.h"
#include "reports/run_summary.h"

namespace npu {

// generated/report_assets.cpp: the files of reports/templates/ and chart.min.js by base name;
// empty when absent (Chart.js is optional at build time).
std::string_view report_asset(std::string_view name);

namespace {

using json = nlohmann::json;

// ---- robust access to a document whose sections may be absent or still evolving ----

const json& null_json() {
  static const json n;
  return n;
}
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

// HTML-escapes `s` for text and attribute values. Invalid UTF-8 and C0 control characters
// (other than tab and newlines) become U+FFFD.
std::string esc(std::string_view s) {
  static const char kReplacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default:
          if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) out += kReplacement;
          else out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && len == 3) {
      unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);  // overlong, surrogates
    }
    if (ok && len == 4) {
      unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (!ok) {
      out += kReplacement;
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

// JSON for a <script> element: `<`, `>` and `&` only occur inside JSON strings, where their
// \u escapes mean the same thing, so the text can never close the element.
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

// A CSS class fragment from a label: lowercase letters, digits and '-' only.
std::string css_token(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') out += static_cast<char>(c - 'A' + 'a');
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out += c;
    else if (c == ' ' || c == '-' || c == '_') out += '-';
  }
  return out.empty() ? "other" : out;
}

// ---- the template mechanism: {{name}} placeholders, replaced in one pass ----

std::string fill_template(std::string_view tpl, const std::map<std::string, std::string, std::less<>>& values) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = tpl.find("{{", pos);
    if (open == std::string_view::npos) break;
    size_t close = tpl.find("}}", open + 2);
    if (close == std::string_view::npos) throw std::logic_error("report template: unterminated {{");
    std::string_view key = tpl.substr(open + 2, close - open - 2);
    auto it = values.find(key);
    if (it == values.end()) throw std::logic_error("report template: unknown placeholder {{" + std::string(key) + "}}");
    out.append(tpl.substr(pos, open - pos));
    out.append(it->second);  // substituted text is never scanned again
    pos = close + 2;
  }
  out.append(tpl.substr(pos));
  return out;
}

std::string asset(std::string_view name) {
  std::string_view a = report_asset(name);
  return std::string(a);
}

// ---- number formatting ----

std::string ms3(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

// 850 ns, 12.3 us, 4.567 ms, 1.234 s
std::string dur(double ns) {
  double a = std::fabs(ns);
  if (a < 1e3) return fmt::format("{:.0f} ns", ns);
  if (a < 1e6) return fmt::format("{:.1f} \xC2\xB5s", ns / 1e3);
  if (a < 1e9) return fmt::format("{:.3f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

std::string human_bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

std::string count_str(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:.3g}", v);
}

std::string plural(size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// ---- tables ----

struct Cell {
  std::string html;                 // already escaped
  std::optional<double> sort_key;   // numeric sort key (data-v)
  std::string cls;
};
Cell tcell(std::string_view s, std::string cls = "") { return {esc(s), std::nullopt, std::move(cls)}; }
Cell hcell(std::string html, std::string cls = "") { return {std::move(html), std::nullopt, std::move(cls)}; }
Cell ncell(std::optional<double> v, const std::function<std::string(double)>& f) {
  if (!v) return {"&ndash;", std::nullopt, "num"};
  return {esc(f(*v)), *v, "num"};
}
Cell ms_cell(std::optional<double> ns) { return ncell(ns, ms3); }
Cell dur_cell(std::optional<double> ns) { return ncell(ns, dur); }
Cell pct_cell(std::optional<double> r) { return ncell(r, format_percent); }
Cell count_cell(std::optional<double> v) { return ncell(v, count_str); }

class Table {
 public:
  Table(std::string cls, std::vector<std::pair<std::string, bool>> cols) : cls_(std::move(cls)), cols_(std::move(cols)) {}
  void row(std::vector<Cell> cells) { rows_.push_back(std::move(cells)); }
  bool empty() const { return rows_.empty(); }
  std::string html() const {
    std::string out = "<div class=\"table-wrap\"><table class=\"sortable " + cls_ + "\"><thead><tr>";
    for (const auto& [head, numeric] : cols_)
      out += fmt::format("<th scope=\"col\"{}>{}</th>", numeric ? " class=\"num\"" : "", esc(head));
    out += "</tr></thead><tbody>\n";
    for (const auto& r : rows_) {
      out += "<tr>";
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

 private:
  std::string cls_;
  std::vector<std::pair<std::string, bool>> cols_;
  std::vector<std::vector<Cell>> rows_;
};

// ---- pieces shared by the sections ----

// A file path shown relative to the input folder `base` (shorter); the full path is the title.
Cell path_cell(const std::string& path, std::string base) {
  if (!base.empty() && base.back() != '/') base += '/';
  std::string shown = !base.empty() && path.size() > base.size() && path.compare(0, base.size(), base) == 0
                          ? path.substr(base.size())
                          : path;
  if (shown == path) return tcell(path, "path");
  return hcell("<span title=\"" + esc(path) + "\">" + esc(shown) + "</span>", "path");
}

// Why a fact (or a section of it) is unavailable, from the document's unavailable lists.
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

std::string not_available(std::string_view why) {
  return "<p class=\"na\">not available: " + esc(why) + "</p>\n";
}

std::string step_label(const json& s) {
  const json& id = at(s, "id");
  return id.is_null() ? "whole run" : text(id);
}

std::string saving_text(const json& f, bool short_form) {
  auto s = num(f, "saving_ns");
  if (!s || *s <= 0) return "saving not estimated";
  std::string out = (short_form ? "~" : "") + format_ms(*s) + (short_form ? "/step" : " per step");
  if (auto r = num(f, "saving_ratio")) out += " (" + format_percent(*r) + (short_form ? ")" : " of a step)");
  return out;
}

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

// ---- sections ----

std::string section_header(const json& r) {
  const json& facts = at(r, "facts");
  const json& run = at(facts, "run").is_object() ? at(facts, "run") : at(at(r, "summary"), "run");
  std::vector<std::string> bits;
  if (!str(run, "framework").empty()) bits.push_back(str(run, "framework"));
  if (auto rank = num(run, "rank"); rank && *rank >= 0) bits.push_back("rank " + count_str(*rank));
  if (auto dev = num(run, "device"); dev && *dev >= 0) bits.push_back("device " + count_str(*dev));
  if (!str(run, "profiler_level").empty()) bits.push_back(str(run, "profiler_level"));
  if (!str(run, "worker_name").empty()) bits.push_back(str(run, "worker_name"));
  std::string meta;
  for (const auto& b : bits) meta += (meta.empty() ? "" : " &middot; ") + esc(b);
  std::string out = "<header class=\"top\">\n<div class=\"wrap\">\n<h1>npu-advisor report</h1>\n";
  out += "<p class=\"input\">" + esc(str(at(r, "input"), "description")) + "</p>\n";
  if (!meta.empty()) out += "<p class=\"meta\">" + meta + "</p>\n";
  out += "</div>\n</header>\n";
  if (at(facts, "cluster").is_object()) {
    out += "<nav class=\"toc\"><div class=\"wrap\"><a href=\"#cluster\">Cluster</a><a href=\"#findings\">Findings</a>"
           "<a href=\"#checks\">Checks</a><a href=\"#run\">Run</a></div></nav>\n";
    return out;
  }
  out += "<nav class=\"toc\"><div class=\"wrap\">"
         "<a href=\"#summary\">Summary</a>" + std::string(at(facts, "timeline").is_object() ? "<a href=\"#timeline\">Timeline</a>" : "") +
         "<a href=\"#steps\">Steps</a><a href=\"#dispatch\">Dispatch</a>"
         "<a href=\"#operators\">Operators</a><a href=\"#findings\">Findings</a><a href=\"#checks\">Checks</a>"
         "<a href=\"#run\">Run</a></div></nav>\n";
  return out;
}

std::string kpi(std::string_view label, std::string_view value, std::string_view sub, std::string_view cls = "") {
  return fmt::format("<div class=\"kpi {}\"><div class=\"kpi-label\">{}</div><div class=\"kpi-value\">{}</div>"
                     "<div class=\"kpi-sub\">{}</div></div>\n",
                     cls, esc(label), esc(value), esc(sub));
}

std::string section_summary(const json& r) {
  const json& facts = at(r, "facts");
  const json& o = at(facts, "overall");
  std::string out = "<section id=\"summary\" class=\"card summary\">\n<h2>Summary</h2>\n";
  std::string kpis, source_line;
  if (o.is_object()) {
    double steps = num(o, "steps").value_or(0);
    double per = steps > 0 ? 1.0 / steps : 0;
    double device = num(o, "device_time_ns").value_or(0);
    auto share = [&](const char* key) {
      return device > 0 ? format_percent(num(o, key).value_or(0) / device) + " of device time" : std::string("-");
    };
    const json& st = at(o, "step_time");
    if (auto med = num(st, "median_ns")) {
      std::string sub = plural(static_cast<size_t>(steps), "step", "steps");
      if (auto p90 = num(st, "p90_ns")) sub += ", p90 " + format_ms(*p90);
      if (auto mx = num(st, "max_ns")) sub += ", max " + format_ms(*mx);
      kpis += kpi("Median step time", format_ms(*med), sub + " (device step, as the profiler's Stage)");
    }
    if (auto host = num(at(o, "host_step_time"), "median_ns")) {
      std::string sub = "ProfilerStep span";
      if (auto prep = num(o, "preparing_ns")) sub += ", preparing " + format_ms(*prep * per) + " per step";
      kpis += kpi("Median host step", format_ms(*host), sub);
    }
    if (auto fr = num(o, "free_ratio"))
      kpis += kpi("Free (device idle)", format_percent(*fr), format_ms(num(o, "free_ns").value_or(0) * per) + " per step",
                  *fr >= 0.10 ? "bad" : "good");
    if (num(o, "computing_ns"))
      kpis += kpi("Computing", format_ms(num(o, "computing_ns").value_or(0) * per), "per step, " + share("computing_ns"));
    if (num(o, "comm_not_overlapped_ns"))
      kpis += kpi("Comm not overlapped", format_ms(num(o, "comm_not_overlapped_ns").value_or(0) * per),
                  "per step, " + share("comm_not_overlapped_ns"));
    std::string source = str(o, "source");
    std::string agree;
    const json& a = at(o, "worst_agreement");
    if (a.is_object()) {
      bool ok = at(a, "ok").is_boolean() && at(a, "ok").get<bool>();
      agree = fmt::format(" <span class=\"badge {}\">{}</span> with the profiler's own breakdown (largest difference {}{})",
                          ok ? "ok" : "bad", ok ? "agrees" : "differs",
                          esc(dur(num(a, "max_abs_diff_ns").value_or(0))),
                          str(a, "worst").empty() ? "" : ", " + esc(str(a, "worst")));
    }
    source_line = "<p class=\"source\">Step breakdown" + (source.empty() ? std::string() : ": " + esc(source)) + "." +
                  agree + "</p>\n";
  } else {
    std::string why = why_unavailable(r, "overall");
    out += not_available("step breakdown: " +
                         (why.empty() ? std::string("no device tasks and no step_trace_time.csv") : why));
  }
  const json& mem = at(facts, "memory");
  if (auto peak = num(mem, "peak_reserved_mb")) {
    std::string sub;
    if (auto alloc = num(mem, "peak_allocated_mb")) sub = fmt::format("peak allocated {:.0f} MB", *alloc);
    kpis += kpi("Peak memory reserved", fmt::format("{:.0f} MB", *peak), sub);
  }
  const json& disp = at(at(facts, "dispatch"), "overall");
  if (!str(disp, "classification").empty())
    kpis += kpi("Dispatch", str(disp, "classification"),
                num(disp, "lag_p50_ns") ? "median launch lag " + dur(*num(disp, "lag_p50_ns")) : "",
                str(disp, "classification") == "host-bound" ? "bad" : "");
  if (!kpis.empty()) out += "<div class=\"kpis\">\n" + kpis + "</div>\n";
  out += source_line;

  const json& findings = list(r, "findings");
  out += fmt::format("<h3>Top findings <span class=\"count\">({} in all)</span></h3>\n", findings.size());
  if (findings.empty()) {
    out += "<p class=\"none\">No findings: the checks that ran were quiet.</p>\n";
  } else {
    out += "<table class=\"top-findings\"><tbody>\n";
    size_t n = 0;
    for (const auto& f : findings) {
      if (n++ >= 3) break;
      std::string rank = str(f, "rank");
      out += fmt::format("<tr><td class=\"rank\">{0}.</td><td><a href=\"#finding-{0}\">{1}</a></td>"
                         "<td class=\"num saving\">{2}</td><td><span class=\"badge sev-{3}\">{4}</span></td>"
                         "<td><span class=\"badge cat\">{5}</span></td></tr>\n",
                         esc(rank), esc(str(f, "title")), esc(saving_text(f, true)), css_token(str(f, "severity")),
                         esc(str(f, "severity")), esc(str(f, "category")));
    }
    out += "</tbody></table>\n";
  }
  size_t ran = 0, not_run = 0;
  for (const auto& rs : list(r, "rules")) {
    std::string st = str(rs, "status");
    if (st == "fired" || st == "quiet") ++ran;
    else ++not_run;
  }
  size_t unavailable = list(r, "unavailable").size();
  out += fmt::format("<p class=\"checks-line\">{} ran, <a href=\"#checks\">{} not run</a>, {} unavailable.</p>\n",
                     plural(ran, "check", "checks"), not_run, plural(unavailable, "fact", "facts"));
  out += "</section>\n";
  return out;
}

// A long capture has tens of thousands of steps: its per-step tables and charts would make the
// page hundreds of MB and unreadable. The page then shows an evenly spaced sample of at most
// this many steps (first and last included); totals, findings and the JSON report use them all.
constexpr size_t kHtmlMaxSteps = 2000;

json evenly_spaced(const json& steps, size_t keep) {
  json out = json::array();
  const size_t n = steps.size();
  for (size_t k = 0; k < keep; ++k) out.push_back(steps[keep > 1 ? k * (n - 1) / (keep - 1) : 0]);
  return out;
}

// The report as the page uses it: per-step arrays sampled when there are too many steps
// (copying only what is kept), with `html_steps_sampled` saying so.
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

std::string section_steps(const json& r) {
  const json& facts = at(r, "facts");
  const json& steps = list(facts, "steps");
  std::string out = "<section id=\"steps\" class=\"card\">\n<h2>Step breakdown</h2>\n";
  if (steps.empty()) {
    std::string why = why_unavailable(r, "steps");
    out += not_available(why.empty() ? "no steps: no device tasks and no step_trace_time.csv" : why);
    return out + "</section>\n";
  }
  out += "<p class=\"hint\">Device time per step: computing, communication not hidden behind computing, and free "
         "(device idle). Free is what the host or the schedule wastes.</p>\n";
  out += sampled_note(r);
  out += "<div class=\"chart-box\"><canvas id=\"chart-steps\" data-chart=\"steps\" role=\"img\" "
         "aria-label=\"Stacked bars per step: computing, communication not overlapped, free\"></canvas></div>\n";
  Table t("steps", {{"step", false},
                    {"computing (ms)", true},
                    {"comm (ms)", true},
                    {"comm not overlapped (ms)", true},
                    {"free (ms)", true},
                    {"free %", true},
                    {"device time (ms)", true},
                    {"host step (ms)", true},
                    {"vs profiler", false}});
  for (const auto& s : steps) {
    Cell agree = tcell("-");
    const json& a = at(s, "agreement");
    if (a.is_object()) {
      bool ok = at(a, "ok").is_boolean() && at(a, "ok").get<bool>();
      agree = hcell(fmt::format("<span class=\"badge {}\" title=\"largest difference from the profiler's breakdown\">{}"
                                "</span> {}",
                                ok ? "ok" : "bad", ok ? "yes" : "no", esc(dur(num(a, "max_abs_diff_ns").value_or(0)))),
                    "nowrap");
    }
    Cell id = tcell(step_label(s), "nowrap");
    if (auto v = num(s, "id")) id.sort_key = *v;
    t.row({id, ms_cell(num(s, "computing_ns")), ms_cell(num(s, "communication_ns")),
           ms_cell(num(s, "comm_not_overlapped_ns")), ms_cell(num(s, "free_ns")), pct_cell(num(s, "free_ratio")),
           ms_cell(num(s, "device_time_ns")), ms_cell(num(s, "host_dur_ns")), agree});
  }
  out += fmt::format("<details{}><summary>Step table ({})</summary>\n", steps.size() <= 20 ? " open" : "",
                     plural(steps.size(), "step", "steps"));
  out += t.html() + "</details>\n</section>\n";
  return out;
}

std::string section_dispatch(const json& r) {
  const json& facts = at(r, "facts");
  const json& d = at(facts, "dispatch");
  const json& steps = list(d, "steps");
  std::string out = "<section id=\"dispatch\" class=\"card\">\n<h2>Host dispatch: H2D launch lag</h2>\n";
  if (!d.is_object() || steps.empty()) {
    std::string why = why_unavailable(r, "dispatch");
    if (why.empty() && d.is_object()) why = str(d, "why");
    out += not_available(why.empty() ? "no host-to-device launch facts in this report" : why);
    return out + "</section>\n";
  }
  const json& o = at(d, "overall");
  out += "<p class=\"hint\">Launch lag: time from the host's launch of a task to its start on the device. A lag that "
         "grows within a step (positive slope) means the host runs ahead and the device is the bottleneck; lags near "
         "zero with free time mean the device waits for the host.</p>\n";
  if (o.is_object()) {
    std::string line = "<p class=\"verdict\">";
    if (!str(o, "classification").empty())
      line += "<span class=\"badge cls-" + css_token(str(o, "classification")) + "\">" + esc(str(o, "classification")) +
              "</span> ";
    line += esc(str(o, "why"));
    std::vector<std::string> facts_line;
    if (auto v = num(o, "count")) facts_line.push_back(count_str(*v) + " launches");
    if (auto v = num(o, "lag_p50_ns")) facts_line.push_back("median lag " + dur(*v));
    if (auto v = num(o, "slope_ns_per_ms")) {
      std::string s = "fitted slope " + dur(*v) + " of lag per ms";
      if (auto r2 = num(o, "r2")) s += fmt::format(" (r\xC2\xB2 {:.2f})", *r2);
      facts_line.push_back(s);
    }
    if (auto v = num(o, "launches_per_ms")) facts_line.push_back(fmt::format("{:.2f} launches/ms", *v));
    std::string fl;
    for (const auto& x : facts_line) fl += (fl.empty() ? "" : " &middot; ") + esc(x);
    if (!fl.empty()) line += "<br><span class=\"facts-line\">" + fl + "</span>";
    out += line + "</p>\n";
  }
  out += sampled_note(r);
  out += "<div class=\"chart-box\"><canvas id=\"chart-dispatch\" data-chart=\"dispatch\" role=\"img\" "
         "aria-label=\"Launch lag p10, p50, p90 per step and the fitted slope\"></canvas></div>\n";
  Table t("dispatch", {{"step", false},
                       {"class", false},
                       {"launches", true},
                       {"lag p10", true},
                       {"lag p50", true},
                       {"lag p90", true},
                       {"slope (lag per ms)", true},
                       {"r\xC2\xB2", true},
                       {"host-bound free", true},
                       {"sync calls", true}});
  for (const auto& s : steps) {
    Cell id = tcell(step_label(s), "nowrap");
    if (auto v = num(s, "id")) id.sort_key = *v;
    t.row({id, tcell(str(s, "classification"), "nowrap"), count_cell(num(s, "count")), dur_cell(num(s, "lag_p10_ns")),
           dur_cell(num(s, "lag_p50_ns")), dur_cell(num(s, "lag_p90_ns")), dur_cell(num(s, "slope_ns_per_ms")),
           ncell(num(s, "r2"), [](double v) { return fmt::format("{:.2f}", v); }),
           pct_cell(num(s, "host_bound_free_ratio")), count_cell(num(s, "sync_calls"))});
  }
  out += fmt::format("<details{}><summary>Per-step dispatch table</summary>\n", steps.size() <= 20 ? " open" : "");
  out += t.html() + "</details>\n";
  const json& tq = at(d, "task_queue");
  if (tq.is_object()) {
    std::vector<std::string> bits;
    if (at(tq, "two_stage_active").is_boolean())
      bits.push_back(at(tq, "two_stage_active").get<bool>() ? "two-stage task queue active" : "task queue not active");
    if (!at(tq, "task_queue_enable_env").is_null()) bits.push_back("TASK_QUEUE_ENABLE=" + str(tq, "task_queue_enable_env"));
    if (auto v = num(tq, "latency_p50_ns")) bits.push_back("enqueue to dequeue p50 " + dur(*v));
    if (auto v = num(tq, "latency_p90_ns")) bits.push_back("p90 " + dur(*v));
    std::string line;
    for (const auto& b : bits) line += (line.empty() ? "" : " &middot; ") + esc(b);
    if (!line.empty()) out += "<p class=\"facts-line\">Task queue: " + line + "</p>\n";
  }
  return out + "</section>\n";
}

std::string operator_table(const json& items, const char* key_field, const char* key_head, bool device) {
  std::vector<std::pair<std::string, bool>> cols = {{"#", true}, {key_head, false}};
  if (device) cols.push_back({"core", false});
  cols.insert(cols.end(), {{"count", true}, {"total (ms)", true}, {"mean", true}, {"max", true}});
  if (device) cols.insert(cols.end(), {{"% of compute", true}, {"% of step", true}});
  Table t("operators", cols);
  size_t i = 0;
  for (const auto& it : items) {
    ++i;
    std::vector<Cell> row = {count_cell(static_cast<double>(i)), tcell(str(it, key_field), "name")};
    if (device) row.push_back(tcell(str(it, "accelerator_core")));
    row.insert(row.end(), {count_cell(num(it, "count")), ms_cell(num(it, "total_ns")), dur_cell(num(it, "mean_ns")),
                           dur_cell(num(it, "max_ns"))});
    if (device) row.insert(row.end(), {pct_cell(num(it, "share_of_compute")), pct_cell(num(it, "share_of_step"))});
    t.row(std::move(row));
  }
  return t.html();
}

std::string section_operators(const json& r) {
  const json& facts = at(r, "facts");
  const json& ops = at(facts, "operators");
  std::string out = "<section id=\"operators\" class=\"card\">\n<h2>Top operators</h2>\n";
  if (!ops.is_object()) {
    std::string why = why_unavailable(r, "operators");
    out += not_available(why.empty() ? "no operator facts in this report" : why);
    return out + "</section>\n";
  }
  const json& totals = at(ops, "totals");
  std::vector<std::string> bits;
  if (!str(ops, "source").empty()) bits.push_back("from " + str(ops, "source"));
  if (auto v = num(totals, "compute_kernels")) bits.push_back(count_str(*v) + " compute kernels");
  if (auto v = num(totals, "compute_ns")) bits.push_back(format_ms(*v) + " computing");
  if (auto v = num(totals, "communication_kernels")) bits.push_back(count_str(*v) + " communication kernels");
  if (auto v = num(totals, "communication_ns")) bits.push_back(format_ms(*v) + " communicating");
  if (!bits.empty()) {
    std::string line;
    for (const auto& b : bits) line += (line.empty() ? "" : " &middot; ") + esc(b);
    out += "<p class=\"facts-line\">" + line + " (whole run; shares are of compute time and of device time).</p>\n";
  }
  const json& by_type = list(ops, "by_type");
  const json& by_name = list(ops, "by_name");
  if (!by_type.empty() || !by_name.empty())
    out += fmt::format("<div class=\"chart-box short\"><canvas id=\"chart-operators\" data-chart=\"operators\" role=\"img\" "
                       "aria-label=\"Top operator {} by device time\"></canvas></div>\n",
                       by_type.empty() ? "names" : "types");
  auto block = [&](const char* title, const json& items, const char* key_field, const char* key_head, bool device,
                   bool open, const char* unavailable_fact) {
    std::string b = fmt::format("<details{}><summary>{} ({})</summary>\n", open ? " open" : "", title, items.size());
    if (items.empty()) {
      std::string why = why_unavailable(r, unavailable_fact);
      b += not_available(why.empty() ? "none in this run" : why);
    } else {
      b += operator_table(items, key_field, key_head, device);
    }
    return b + "</details>\n";
  };
  out += block("By operator type", by_type, "type", "type", true, true, "operators.by_type");
  out += block("By kernel name", by_name, "name", "name", true, by_type.empty(), "operators.by_name");
  out += block("Communication", list(ops, "communication"), "name", "name", true, false, "operators.communication");
  const json& host = at(ops, "host");
  if (host.is_object())
    out += block("Host operators (inclusive time)", list(host, "by_name"), "name", "name", false, false,
                 "operators.host");
  return out + "</section>\n";
}

std::string finding_html(const json& f, size_t index, const std::string& base) {
  std::string rank = str(f, "rank");
  if (rank.empty()) rank = std::to_string(index + 1);
  std::string sev = str(f, "severity");
  std::string out = fmt::format("<details class=\"finding sev-{}\" id=\"finding-{}\"{}>\n", css_token(sev), esc(rank),
                                index < 3 ? " open" : "");
  out += fmt::format("<summary><span class=\"rank\">{}</span><span class=\"title\">{}</span>"
                     "<span class=\"saving\">{}</span><span class=\"badge sev-{}\">{}</span>"
                     "<span class=\"badge cat\">{}</span></summary>\n",
                     esc(rank), esc(str(f, "title")), esc(saving_text(f, true)), css_token(sev), esc(sev),
                     esc(str(f, "category")));
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
    out += fmt::format("<div class=\"cmd\"><div class=\"cmd-head\">Commands <button type=\"button\" class=\"copy\" "
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

std::string section_findings(const json& r) {
  const json& findings = list(r, "findings");
  std::string out = fmt::format("<section id=\"findings\" class=\"card\">\n<h2>Findings <span class=\"count\">({})</span>"
                                "<span class=\"tools\"><button type=\"button\" class=\"expand-all\">Expand all</button>"
                                "<button type=\"button\" class=\"collapse-all\">Collapse all</button></span></h2>\n",
                                findings.size());
  out += "<p class=\"hint\">Ranked by estimated saving per step &times; confidence.</p>\n";
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
    t.row({hcell("fact <code>" + esc(str(u, "fact")) + "</code>"), hcell("<span class=\"badge st-unavailable\">unavailable</span>"),
           tcell(str(u, "why"))});
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

std::string kv_table(const json& obj, const char* cls, bool empty_as_unset) {
  Table t(cls, {{"name", false}, {"value", false}});
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::string v = text(it.value());
    t.row({tcell(it.key(), "mono"), v.empty() && empty_as_unset ? hcell("<span class=\"unset\">(unset)</span>")
                                                                 : tcell(v, "mono")});
  }
  return t.html();
}

std::string section_run(const json& r) {
  const json& facts = at(r, "facts");
  const json& summary = at(r, "summary");
  const json& run = at(facts, "run").is_object() ? at(facts, "run") : at(summary, "run");
  const json& input = at(r, "input");
  std::string out = "<section id=\"run\" class=\"card\">\n<h2>Run</h2>\n<dl class=\"meta-grid\">\n";
  auto item = [&](const char* label, const std::string& value) {
    if (!value.empty() && value != "-1") out += "<dt>" + esc(label) + "</dt><dd>" + esc(value) + "</dd>\n";
  };
  item("Input", str(input, "path"));
  item("Kind", str(input, "kind"));
  item("Framework", str(run, "framework"));
  item("Source format", str(run, "source_format"));
  item("Worker", str(run, "worker_name"));
  item("Rank", str(run, "rank"));
  item("Device", str(run, "device"));
  item("Profiler level", str(run, "profiler_level"));
  item("AI Core metrics", str(run, "aic_metrics"));
  if (auto v = num(run, "trace_events")) item("Trace events", count_str(*v));
  const json& versions = at(run, "versions");
  if (versions.is_object())
    for (auto it = versions.begin(); it != versions.end(); ++it) item(("Version: " + it.key()).c_str(), text(it.value()));
  const json& load = at(summary, "load");
  if (auto mbps = num(load, "trace_mb_per_s"); mbps && *mbps > 0)
    item("Trace load", fmt::format("{:.1f} MB in {:.3f} s", num(load, "trace_bytes").value_or(0) / 1e6,
                                   num(load, "trace_seconds").value_or(0)));
  out += "</dl>\n";

  const json& env = at(run, "env");
  out += "<h3>Environment variables</h3>\n";
  if (env.is_object() && !env.empty()) out += kv_table(env, "env", true);
  else {
    std::string why = why_unavailable(r, "run.env");
    out += not_available(why.empty() ? "no environment variables recorded" : why);
  }

  const json& inputs = at(run, "inputs").is_array() ? at(run, "inputs") : at(summary, "files");
  out += "<h3>Inputs</h3>\n";
  if (inputs.is_array() && !inputs.empty()) {
    // Paths relative to the input folder; the full path is in the cell's title.
    std::string base = str(input, "path");
    Table t("inputs", {{"file", false}, {"status", false}, {"records", true}, {"size", true}, {"note", false}, {"path", false}});
    for (const auto& f : inputs) {
      std::string st = str(f, "status");
      bool loaded = st == "loaded";
      t.row({tcell(str(f, "role"), "mono nowrap"),
             hcell("<span class=\"badge in-" + css_token(st) + "\">" + esc(st) + "</span>"),
             loaded ? count_cell(num(f, "records")) : count_cell(std::nullopt),
             loaded ? ncell(num(f, "bytes"), human_bytes) : count_cell(std::nullopt), tcell(str(f, "note")),
             path_cell(str(f, "path"), base)});
    }
    out += t.html();
  } else {
    out += not_available("no input list in this report");
  }
  const json& config = at(run, "config");
  if (config.is_object() && !config.empty())
    out += "<details><summary>Profiler configuration</summary>\n" + kv_table(config, "config", false) + "</details>\n";
  const json& dist = at(run, "distributed");
  if (dist.is_object() && !dist.empty())
    out += "<details><summary>Distributed setup</summary>\n" + kv_table(dist, "distributed", false) + "</details>\n";
  const json& warnings = list(run, "warnings").empty() ? list(summary, "warnings") : list(run, "warnings");
  if (!warnings.empty()) {
    out += "<h3>Loader warnings</h3>\n<ul class=\"warnings\">\n";
    for (const auto& w : warnings) out += "<li>" + esc(text(w)) + "</li>\n";
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

// ---- cluster (facts.cluster, docs/facts-cluster.md) ----

// A heat-map cell colour: white at the metric's minimum, full red at its maximum, but never
// less span than 20% of the maximum, so ranks 0.3% apart do not look like white and red. Chart.js
// in Debian has no matrix chart, so the heat map is a table with background colours.
std::string heat_style(double v, double lo, double hi) {
  double span = std::max(hi - lo, 0.2 * std::abs(hi));
  double t = span > 0 ? std::min(1.0, (v - lo) / span) : 0.0;
  int g = static_cast<int>(255 - 150 * t), b = static_cast<int>(255 - 170 * t);
  return fmt::format(" style=\"background:rgb(255,{},{})\"", g, b);
}

std::string heat_map(const json& c, const char* metric, const char* title) {
  const json& rows = list(c, "rank_steps");
  std::vector<std::string> steps;
  std::map<std::string, size_t> step_col;
  std::map<int, std::map<size_t, double>> grid;
  double lo = 0, hi = 0;
  bool first = true;
  for (const auto& r : rows) {
    std::string st = at(r, "step").is_null() ? "-" : text(at(r, "step"));
    if (!step_col.count(st)) step_col[st] = steps.size(), steps.push_back(st);
    double v = num(r, metric).value_or(0);
    grid[static_cast<int>(num(r, "rank").value_or(-1))][step_col[st]] = v;
    if (first || v < lo) lo = v;
    if (first || v > hi) hi = v;
    first = false;
  }
  if (steps.size() > 200) steps.resize(200);
  std::string out = fmt::format("<h3>{} (ms) per rank &times; step</h3>\n<p class=\"hint\">White: the lowest "
                                "value; red: the highest, when it is 20% of it or more above the lowest.</p>\n"
                                "<div class=\"table-wrap\"><table class=\"heatmap\" "
                                "data-metric=\"{}\"><thead><tr><th scope=\"col\">rank</th>", esc(title), esc(metric));
  for (const auto& st : steps) out += "<th scope=\"col\" class=\"num\">step " + esc(st) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& [rank, cols] : grid) {
    out += fmt::format("<tr><th scope=\"row\">{}</th>", rank);
    for (size_t i = 0; i < steps.size(); ++i) {
      auto it = cols.find(i);
      if (it == cols.end()) out += "<td class=\"num\">&ndash;</td>";
      else out += "<td class=\"num\"" + heat_style(it->second, lo, hi) + ">" + esc(ms3(it->second)) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string section_cluster(const json& r) {
  const json& c = at(at(r, "facts"), "cluster");
  if (!c.is_object()) return "";
  std::string out = "<section id=\"cluster\" class=\"card\">\n<h2>Cluster</h2>\n";
  out += "<p class=\"verdict\"><strong>" + esc(cluster_verdict_line(c)) + "</strong></p>\n";
  for (const auto& w : list(c, "warnings")) out += "<p class=\"warning\">warning: " + esc(text(w)) + "</p>\n";
  out += "<p class=\"hint\">" + esc(fmt::format("{} ranks; rank x step breakdown from {}.", count_str(num(c, "rank_count").value_or(0)),
                                                str(c, "rank_steps_source"))) + "</p>\n";
  // Ranks read from rank folders have a path; ranks from cluster_step_trace_time.csv do not.
  bool paths = false;
  for (const auto& rk : list(c, "ranks")) paths = paths || !str(rk, "path").empty();
  std::vector<std::pair<std::string, bool>> cols = {{"rank", true}, {"steps", true}, {"computing / step (ms)", true},
                                                    {"comm not overlapped / step (ms)", true}, {"free / step (ms)", true},
                                                    {"device / step (ms)", true}};
  if (paths) cols.push_back({"source", false});
  Table ranks("cluster-ranks", cols);
  for (const auto& rk : list(c, "ranks")) {
    std::vector<Cell> row = {count_cell(num(rk, "rank")), count_cell(num(rk, "steps")), ms_cell(num(rk, "computing_per_step_ns")),
                             ms_cell(num(rk, "comm_not_overlapped_per_step_ns")), ms_cell(num(rk, "free_per_step_ns")),
                             ms_cell(num(rk, "device_time_per_step_ns"))};
    if (paths) row.push_back(tcell(str(rk, "path")));
    ranks.row(std::move(row));
  }
  out += ranks.html();
  if (const json& sampled = at(c, "rank_steps_sampled"); sampled.is_object())
    out += "<p class=\"hint\">" + esc(fmt::format("{} of {} steps shown (evenly spaced); totals and verdicts use every step.",
                                                     count_str(num(sampled, "steps_shown").value_or(0)),
                                                     count_str(num(sampled, "steps_total").value_or(0)))) + "</p>\n";
  out += heat_map(c, "computing_ns", "Computing");
  out += "<details><summary>Free and communication-not-overlapped heat maps</summary>\n";
  out += heat_map(c, "free_ns", "Free");
  out += heat_map(c, "comm_not_overlapped_ns", "Communication not overlapped");
  out += "</details>\n";
  if (const json& comm = at(c, "communication"); comm.is_object()) {
    out += "<h3>Communication groups</h3>\n";
    Table g("cluster-groups", {{"group", false}, {"ranks", false}, {"ops", true}, {"wait (ms)", true}, {"transit (ms)", true},
                               {"sync (ms)", true}, {"wait ratio", true}, {"most waiting rank", true}, {"least waiting rank", true}});
    for (const auto& x : list(comm, "groups"))
      g.row({tcell(str(x, "group")), tcell(text(at(x, "ranks"))), count_cell(num(x, "ops")), ms_cell(num(x, "wait_ns")),
             ms_cell(num(x, "transit_ns")), ms_cell(num(x, "sync_ns")), pct_cell(num(x, "wait_ratio")),
             count_cell(num(x, "max_wait_rank")), count_cell(num(x, "min_wait_rank"))});
    out += g.html();
    out += "<details><summary>Longest collectives (per-rank elapse, Dixon test)</summary>\n";
    Table o("cluster-ops", {{"step", false}, {"operator", false}, {"ranks", true}, {"elapse max (ms)", true}, {"elapse min (ms)", true},
                            {"transit max (ms)", true}, {"wait ratio", true}, {"fastest rank", true}, {"slow rank (Dixon)", false}});
    for (const auto& x : list(comm, "top_ops"))
      o.row({tcell(text(at(x, "step"))), tcell(str(x, "name")), count_cell(num(x, "ranks")), ms_cell(num(x, "elapse_max_ns")),
             ms_cell(num(x, "elapse_min_ns")), ms_cell(num(x, "transit_max_ns")), pct_cell(num(x, "wait_ratio")),
             count_cell(num(x, "fastest_rank")), tcell(text(at(x, "slow_ranks")))});
    out += o.html() + "</details>\n";
  }
  if (const json& bw = at(c, "bandwidth"); bw.is_array() && !bw.empty()) {
    out += "<h3>Bandwidth per transport</h3>\n";
    Table b("cluster-bandwidth", {{"transport", false}, {"ops", true}, {"size (MB)", true}, {"time (ms)", true}, {"GB/s", true},
                                  {"standard GB/s", true}, {"utilisation", true}, {"large packets", true}});
    auto f3 = [](double v) { return fmt::format("{:.3f}", v); };
    for (const auto& x : bw)
      b.row({tcell(str(x, "transport")), count_cell(num(x, "ops")), ncell(num(x, "size_mb"), f3), ms_cell(num(x, "time_ns")),
             ncell(num(x, "gbps"), f3), ncell(num(x, "standard_gbps"), f3), pct_cell(num(x, "utilization")),
             pct_cell(num(x, "large_packet_ratio"))});
    out += b.html();
  }
  if (const json& links = at(c, "links"); links.is_object()) {
    out += "<h3>Slowest links</h3>\n";
    Table l("cluster-links", {{"src", true}, {"dst", true}, {"transport", false}, {"size (MB)", true}, {"time (ms)", true},
                              {"GB/s", true}, {"vs transport median", true}});
    auto f3 = [](double v) { return fmt::format("{:.3f}", v); };
    size_t n = 0;
    for (const auto& x : list(links, "list")) {
      if (++n > 20) break;
      l.row({count_cell(num(x, "src")), count_cell(num(x, "dst")), tcell(str(x, "transport")), ncell(num(x, "size_mb"), f3),
             ms_cell(num(x, "time_ns")), ncell(num(x, "gbps"), f3), ncell(num(x, "ratio_to_median"), f3)});
    }
    out += l.html();
  }
  return out + "</section>\n";
}

std::string footer(bool have_chartjs) {
  std::string out = "<footer><div class=\"wrap\">Generated by npu-advisor. This page is self-contained and makes no network "
                    "requests; the report document is embedded as JSON (<code>#report-data</code>).";
  if (have_chartjs) out += " Charts drawn with Chart.js (MIT license).";
  return out + "</div></footer>\n";
}

std::string page(const std::string& title, const std::string& body, const json& report) {
  std::string chartjs = asset("chart.min.js");
  std::string tpl = asset("report.html");
  if (tpl.empty()) throw std::logic_error("report template report.html is not compiled in");
  std::map<std::string, std::string, std::less<>> values = {
      {"title", esc(title)},
      {"css", asset("report.css")},
      {"body", body + footer(!chartjs.empty())},
      {"report_json", script_json(report)},
      {"chartjs", chartjs.empty() ? "/* Chart.js was not available at build time (libjs-chart.js) */" : chartjs},
      {"app_js", asset("report.js")},
      {"timeline_css", asset("timeline.css")},
      {"timeline_js", asset("timeline.js")},
  };
  return fill_template(tpl, values);
}

// A cluster input: no analysis yet, only the per-rank summaries (as the text view shows them).
std::string cluster_page(const json& s) {
  std::string body = "<header class=\"top\"><div class=\"wrap\"><h1>npu-advisor report</h1><p class=\"input\">" +
                     esc(str(at(s, "input"), "description")) + "</p></div></header>\n<main class=\"wrap\">\n";
  body += "<section class=\"card\"><h2>Cluster members</h2>\n<p class=\"hint\">Cross-rank analysis is not part of this "
          "report yet; the summary of each member follows.</p>\n<pre class=\"summary-text\">" +
          esc(render_summary_text(s, TextStyle{false})) + "</pre></section>\n</main>\n";
  return page("npu-advisor: " + str(at(s, "input"), "description"), body, s);
}

}  // namespace

std::string html_page(const std::string& title, const std::string& body, const json& data) {
  return page(title, body, data);
}
std::string html_escape(std::string_view s) { return esc(s); }

std::string render_html(const json& report) {
  if (str(report, "schema") == "npu-advisor.run-summary") return cluster_page(report);
  std::optional<json> sampled = sampled_for_page(report);
  const json& r = sampled ? *sampled : report;
  std::string body = section_header(r);
  body += "<main class=\"wrap\">\n";
  if (at(at(r, "facts"), "cluster").is_object()) {
    body += section_cluster(r);
  } else {
    body += section_summary(r);
    body += html_timeline_section(r);
    body += section_steps(r);
    body += section_dispatch(r);
    body += section_operators(r);
  }
  body += section_findings(r);
  body += section_checks(r);
  body += section_run(r);
  body += "</main>\n";
  return page("npu-advisor: " + str(at(r, "input"), "description"), body, r);
}

std::string render_run_list_html(const json& list) {
  const json& runs = at(list, "runs");
  std::string body = "<header class=\"top\"><div class=\"wrap\"><h1>npu-advisor report</h1><p class=\"input\">" +
                     esc(str(at(list, "input"), "description")) + "</p></div></header>\n<main class=\"wrap\">\n";
  body += "<section class=\"card\"><h2>Not a cluster</h2>\n<p>" + esc(str(list, "why")) + "</p>\n";
  for (const auto& w : at(list, "warnings").is_array() ? at(list, "warnings") : json::array())
    body += "<p class=\"hint\">" + esc(w.is_string() ? w.get<std::string>() : w.dump()) + "</p>\n";
  if (!str(list, "compare").empty()) body += "<p>Compare two of them: <code>" + esc(str(list, "compare")) + "</code></p>\n";
  body += "</section>\n</main>\n";
  size_t i = 0;
  for (const auto& r : runs.is_array() ? runs : json::array()) {
    ++i;
    body += "<main class=\"wrap\"><section class=\"card\"><h2>Run " + std::to_string(i) + " of " + std::to_string(runs.size()) +
            ": " + esc(str(at(r, "input"), "path")) + "</h2></section>\n";
    body += section_summary(r) + section_steps(r) + section_dispatch(r) + section_operators(r) + section_findings(r);
    body += "</main>\n";
  }
  return page("npu-advisor: " + str(at(list, "input"), "description"), body, list);
}

}  // namespace npu
