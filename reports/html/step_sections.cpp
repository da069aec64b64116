// The per-step sections of the analysis page: device time per step (computing, communication not
// overlapped, free) and the host dispatch (launch lag per step, the task queue). Each has a chart
// that report.js draws from the embedded facts, and a table.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/html/sections.h"
#include "reports/report_document.h"

namespace npu::html {

std::string section_steps(const json& r) {
  const json& facts = at(r, "facts");
  const json& steps = list(facts, "steps");
  std::string out = "<section id=\"steps\" class=\"card\">\n<h2>Step breakdown</h2>\n";
  if (steps.empty()) {
    std::string why = why_unavailable(r, "steps");
    out += not_available(why.empty() ? "no steps: no device tasks and no step_trace_time.csv" : why);
    return out + "</section>\n";
  }
  out +=
      "<p class=\"hint\">Device time per step: computing, communication not hidden behind computing, and free "
      "(device idle). Free is what the host or the schedule wastes.</p>\n";
  out += sampled_note(r);
  out +=
      "<div class=\"chart-box\"><canvas id=\"chart-steps\" data-chart=\"steps\" role=\"img\" "
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

namespace {

// The run's class as the rules decided it, why, and the overall launch facts.
std::string dispatch_verdict_line(const json& verdict, const json& o) {
  std::string line = "<p class=\"verdict\">";
  if (!str(verdict, "class").empty())
    line += "<span class=\"badge cls-" + css_token(str(verdict, "class")) + "\">" + esc(str(verdict, "class")) +
            "</span> ";
  line += esc(str(verdict, "why"));
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
  return line + "</p>\n";
}

// The torch_npu task queue: active or not, its setting and its latency ("" without one).
std::string dispatch_task_queue_line(const json& tq) {
  if (!tq.is_object()) return "";
  std::vector<std::string> bits;
  if (at(tq, "two_stage_active").is_boolean())
    bits.push_back(at(tq, "two_stage_active").get<bool>() ? "two-stage task queue active" : "task queue not active");
  if (!at(tq, "task_queue_enable_env").is_null())
    bits.push_back("TASK_QUEUE_ENABLE=" + str(tq, "task_queue_enable_env"));
  if (auto v = num(tq, "latency_p50_ns")) bits.push_back("enqueue to dequeue p50 " + dur(*v));
  if (auto v = num(tq, "latency_p90_ns")) bits.push_back("p90 " + dur(*v));
  std::string line;
  for (const auto& b : bits) line += (line.empty() ? "" : " &middot; ") + esc(b);
  return line.empty() ? "" : "<p class=\"facts-line\">Task queue: " + line + "</p>\n";
}

}  // namespace

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
  // The classes as the rules decided them (verdicts.dispatch.step_class, docs/rules.md).
  const json& decided = step_class_verdict(r);
  const json& verdict = at(decided, "overall");
  const json& classes = list(decided, "steps");
  out +=
      "<p class=\"hint\">Launch lag: time from the host's launch of a task to its start on the device. A lag that "
      "grows within a step (positive slope) means the host runs ahead and the device is the bottleneck; lags near "
      "zero with free time mean the device waits for the host.</p>\n";
  if (o.is_object()) out += dispatch_verdict_line(verdict, o);
  out += sampled_note(r);
  out +=
      "<div class=\"chart-box\"><canvas id=\"chart-dispatch\" data-chart=\"dispatch\" role=\"img\" "
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
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& s = steps[i];
    Cell id = tcell(step_label(s), "nowrap");
    if (auto v = num(s, "id")) id.sort_key = *v;
    const std::string cls = i < classes.size() ? str(classes[i], "class") : "";
    t.row({id, tcell(cls, "nowrap"), count_cell(num(s, "count")), dur_cell(num(s, "lag_p10_ns")),
           dur_cell(num(s, "lag_p50_ns")), dur_cell(num(s, "lag_p90_ns")), dur_cell(num(s, "slope_ns_per_ms")),
           ncell(num(s, "r2"), [](double v) { return fmt::format("{:.2f}", v); }),
           pct_cell(num(s, "host_bound_free_ratio")), count_cell(num(s, "sync_calls"))});
  }
  out += fmt::format("<details{}><summary>Per-step dispatch table</summary>\n", steps.size() <= 20 ? " open" : "");
  out += t.html() + "</details>\n";
  return out + dispatch_task_queue_line(at(d, "task_queue")) + "</section>\n";
}

}  // namespace npu::html
