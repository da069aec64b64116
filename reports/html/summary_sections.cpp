// The top of the analysis page: the header (what was analysed, the table of contents) and the
// Summary card: the step-time KPIs, the top three findings and how many checks ran.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/html/sections.h"
#include "reports/report_document.h"

namespace npu::html {

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
    out +=
        "<nav class=\"toc\"><div class=\"wrap\"><a href=\"#cluster\">Cluster</a><a href=\"#findings\">Findings</a>"
        "<a href=\"#checks\">Checks</a><a href=\"#run\">Run</a></div></nav>\n";
    return out;
  }
  out +=
      "<nav class=\"toc\"><div class=\"wrap\">"
      "<a href=\"#summary\">Summary</a>" +
      std::string(at(facts, "inference").is_object() ? "<a href=\"#serving\">Serving</a>" : "") +
      std::string(at(at(r, "views"), "timeline").is_object() ? "<a href=\"#timeline\">Timeline</a>" : "") +
      "<a href=\"#steps\">Steps</a><a href=\"#dispatch\">Dispatch</a><a href=\"#operators\">Operators</a>"
      "<a href=\"#modules\">Modules</a><a href=\"#findings\">Findings</a><a href=\"#checks\">Checks</a>"
      "<a href=\"#run\">Run</a></div></nav>\n";
  return out;
}

// Where each step goes (the report's `attribution`): one bar, computing / communication /
// bubble / idle by cause, each part as wide as its share of the step, with a legend in words.
std::string step_split_html(const json& a) {
  if (step_split_text(a).empty()) return "";
  const double step = num(a, "step_ns").value_or(0);
  std::string bar, legend;
  auto part = [&](double ns, const std::string& cls, const std::string& label) {
    if (step <= 0 || ns <= 0) return;
    const std::string c = "split-" + css_token(cls);
    bar += fmt::format("<span class=\"{}\" style=\"width:{:.2f}%\" title=\"{}: {}\"></span>", c, 100.0 * ns / step,
                       esc(label), esc(format_ms(ns)));
    legend += fmt::format("<span class=\"split-key\"><i class=\"{}\"></i>{} {} ({})</span> ", c, esc(label),
                          esc(format_ms(ns)), esc(format_percent(ns / step)));
  };
  const json& parts = at(a, "parts");
  part(num(parts, "computing_ns").value_or(0), "computing", "computing");
  part(num(parts, "communication_ns").value_or(0), "communication", "communication");
  part(num(parts, "bubble_ns").value_or(0), "bubble", "pipeline bubble");
  part(num(parts, "copies_ns").value_or(0), "copies", "copies (memcpy/memset)");
  part(num(parts, "turn_ns").value_or(0), "turn", "turn between iterations");
  double causes = 0;
  for (const auto& c : list(a, "idle_causes")) {
    std::string name = str(c, "cause");
    for (char& ch : name)
      if (ch == '_') ch = ' ';
    part(num(c, "ns").value_or(0), "idle-" + str(c, "cause"), "idle: " + name);
    causes += num(c, "ns").value_or(0);
  }
  part(num(parts, "idle_ns").value_or(0) - causes, "idle", "idle");
  // After: the step replayed with the fixes the trace supports (docs/whatif.md), to scale.
  std::string after;
  const json& replay = at(a, "replay");
  if (const double replayed = num(replay, "step_ns").value_or(-1); step > 0 && replayed >= 0 && !replay_text(a).empty())
    after = fmt::format("<div class=\"split-bar replayed\" title=\"{}\"><span class=\"split-replayed\" "
                        "style=\"width:{:.2f}%\"></span></div>\n",
                        esc(replay_text(a)), std::min(100.0, 100.0 * replayed / step));
  return fmt::format("<h3>{}</h3>\n<div class=\"split-bar\">{}</div>\n{}<p class=\"split-text\">{}<br>{}.{}</p>\n",
                     esc(step_split_title(a)), bar, after, legend, esc(explained_text(a)),
                     replay_text(a).empty() ? "" : " " + esc(replay_text(a)) + " (the dashed bar).");
}

namespace {

// The step KPIs of facts.overall: step times, Free, computing, communication, copies.
std::string summary_step_kpis(const json& o) {
  std::string kpis;
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
    const bool gpu = str(o, "step_time_rule") == "launched_work";
    kpis += kpi("Median step time", format_ms(*med),
                sub + (gpu ? " (until the GPU work the step launched ends)" : " (device step, as the profiler's Stage)"));
  }
  if (auto host = num(at(o, "host_step_time"), "median_ns")) {
    std::string sub = "ProfilerStep span";
    if (auto prep = num(o, "preparing_ns")) sub += ", preparing " + format_ms(*prep * per) + " per step";
    kpis += kpi("Median host step", format_ms(*host), sub);
  }
  if (auto fr = num(o, "free_ratio"))
    kpis += kpi("Free (device idle)", format_percent(*fr),
                format_ms(num(o, "free_ns").value_or(0) * per) + " per step", *fr >= 0.10 ? "bad" : "good");
  if (num(o, "computing_ns"))
    kpis += kpi("Computing", format_ms(num(o, "computing_ns").value_or(0) * per), "per step, " + share("computing_ns"));
  if (num(o, "comm_not_overlapped_ns"))
    kpis += kpi("Comm not overlapped", format_ms(num(o, "comm_not_overlapped_ns").value_or(0) * per),
                "per step, " + share("comm_not_overlapped_ns"));
  if (auto copies = num(o, "copies_ns"); copies && *copies > 0)
    kpis += kpi("Copies", format_ms(*copies * per), "per step (memcpy/memset), " + share("copies_ns"));
  return kpis;
}

// Where the step breakdown comes from and whether it holds: the agreement with the profiler's
// own breakdown, the GPU self-check, the profiler's own cost.
std::string summary_source_line(const json& facts, const json& o) {
  std::string source = str(o, "source");
  std::string agree;
  const json& a = at(o, "worst_agreement");
  if (a.is_object()) {
    bool ok = at(a, "ok").is_boolean() && at(a, "ok").get<bool>();
    agree = fmt::format(" <span class=\"badge {}\">{}</span> with the profiler's own breakdown (largest difference {}{})",
                        ok ? "ok" : "bad", ok ? "agrees" : "differs", esc(dur(num(a, "max_abs_diff_ns").value_or(0))),
                        str(a, "worst").empty() ? "" : ", " + esc(str(a, "worst")));
  }
  // GPU runs: no profiler breakdown to agree with; what cannot be true of a step is checked.
  const json& check = at(o, "self_check");
  if (check.is_object()) {
    const bool ok = at(check, "ok").is_boolean() && at(check, "ok").get<bool>();
    std::string problems;
    for (const auto& p : list(check, "problems"))
      if (p.is_string()) problems += (problems.empty() ? "" : "; ") + p.get<std::string>();
    agree += ok ? " <span class=\"badge ok\">self-check passed</span> every step's parts add up"
                : " <span class=\"badge bad\">self-check failed</span> " + esc(problems) +
                      ": the step numbers and savings of this report may be wrong";
  }
  // torch.profiler's own host cost, where it lengthens a host-bound step (an estimate).
  const json& overhead = at(facts, "profiler_overhead");
  if (num(overhead, "share_of_step").value_or(0) >= 0.1)
    agree += fmt::format(". The profiler's own recording may be ~{} of each step ({}): unprofiled the step may "
                         "take ~{} (an estimate, facts <code>profiler_overhead</code>)",
                         esc(format_ms(num(overhead, "estimate_ns").value_or(0))),
                         esc(format_percent(num(overhead, "share_of_step").value_or(0))),
                         esc(format_ms(num(overhead, "step_without_profiler_ns").value_or(0))));
  return "<p class=\"source\">Step breakdown" + (source.empty() ? std::string() : ": " + esc(source)) + "." + agree +
         "</p>\n";
}

// The KPIs beside the step's: peak memory and the dispatch verdict.
std::string summary_other_kpis(const json& r, const json& facts) {
  std::string kpis;
  const json& mem = at(facts, "memory");
  if (auto peak = num(mem, "peak_reserved_mb")) {
    std::string sub;
    if (auto alloc = num(mem, "peak_allocated_mb")) sub = fmt::format("peak allocated {:.0f} MB", *alloc);
    kpis += kpi("Peak memory reserved", fmt::format("{:.0f} MB", *peak), sub);
  }
  const json& disp = at(at(facts, "dispatch"), "overall");
  const std::string cls = str(at(step_class_verdict(r), "overall"), "class");
  if (!cls.empty())
    kpis += kpi("Dispatch", cls, num(disp, "lag_p50_ns") ? "median launch lag " + dur(*num(disp, "lag_p50_ns")) : "",
                cls == "host-bound" ? "bad" : "");
  return kpis;
}

// The three best findings, linked to their cards.
std::string summary_top_findings(const json& r) {
  const json& findings = list(r, "findings");
  std::string out = fmt::format("<h3>Top findings <span class=\"count\">({} in all)</span></h3>\n", findings.size());
  if (findings.empty()) return out + "<p class=\"none\">No findings: the checks that ran were quiet.</p>\n";
  out += "<table class=\"top-findings\"><tbody>\n";
  size_t n = 0;
  for (const auto& f : findings) {
    if (n++ >= 3) break;
    std::string rank = str(f, "rank");
    out += fmt::format(
        "<tr><td class=\"rank\">{0}.</td><td><a href=\"#finding-{0}\">{1}</a></td>"
        "<td class=\"num saving\">{2}</td><td><span class=\"badge sev-{3}\">{4}</span></td>"
        "<td><span class=\"badge cat\">{5}</span></td></tr>\n",
        esc(rank), esc(str(f, "title")), esc(saving_text(f, true)), css_token(str(f, "severity")),
        esc(str(f, "severity")), esc(str(f, "category")));
  }
  return out + "</tbody></table>\n";
}

// "N checks ran, M not run, K facts unavailable."
std::string summary_checks_line(const json& r) {
  size_t ran = 0, not_run = 0;
  for (const auto& rs : list(r, "rules")) {
    std::string st = str(rs, "status");
    if (st == "fired" || st == "quiet") ++ran;
    else ++not_run;
  }
  size_t unavailable = list(r, "unavailable").size();
  return fmt::format("<p class=\"checks-line\">{} ran, <a href=\"#checks\">{} not run</a>, {} unavailable.</p>\n",
                     plural(ran, "check", "checks"), not_run, plural(unavailable, "fact", "facts"));
}

}  // namespace

std::string section_summary(const json& r) {
  const json& facts = at(r, "facts");
  const json& o = at(facts, "overall");
  std::string out = "<section id=\"summary\" class=\"card summary\">\n<h2>Summary</h2>\n";
  std::string kpis, source_line;
  if (o.is_object()) {
    kpis = summary_step_kpis(o);
    source_line = summary_source_line(facts, o);
  } else {
    std::string why = why_unavailable(r, "overall");
    out += not_available("step breakdown: " +
                         (why.empty() ? std::string("no device tasks and no step_trace_time.csv") : why));
  }
  kpis += summary_other_kpis(r, facts);
  if (!kpis.empty()) out += "<div class=\"kpis\">\n" + kpis + "</div>\n";
  out += source_line;
  out += step_split_html(at(r, "attribution"));
  out += summary_top_findings(r);
  out += summary_checks_line(r);
  out += "</section>\n";
  return out;
}

}  // namespace npu::html
