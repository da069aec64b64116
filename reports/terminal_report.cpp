// The short terminal summary: the step breakdown in a line or two, the ranked findings with
// their savings, what was skipped, and where the full report is. About 25 lines at most.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "reports/inference_text.h"
#include "reports/roofline_text.h"
#include "reports/report_document.h"

namespace npu {
namespace {

struct Paint {
  bool on;
  std::string operator()(const char* code, const std::string& s) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
};

}  // namespace

// Without a device timeline (CPU-only captures) the host still tells something: the steps the
// profiler marked (ProfilerStep#N wall time) and where host time went (inclusive, so the
// operators' times overlap and are not summed).
static std::string host_only_lines(const nlohmann::json& summary, const nlohmann::json& facts) {
  std::string out;
  const auto& steps = summary.value("steps", nlohmann::json::array());
  if (!steps.empty()) {
    std::vector<double> d;
    for (const auto& s : steps) d.push_back(s.value("dur_ns", 0.0));
    std::sort(d.begin(), d.end());
    // The summary lists the first steps of a long run (kMaxStepDetail): counts.steps has them all.
    const uint64_t all = summary.contains("counts") ? summary["counts"].value("steps", uint64_t{0}) : 0;
    out += fmt::format("{} host steps (ProfilerStep#{}..{}), wall time median {}, max {}{}\n",
                       std::max<uint64_t>(all, steps.size()), steps.front().value("id", 0), steps.back().value("id", 0),
                       format_ms(d[d.size() / 2]), format_ms(d.back()),
                       all > steps.size() ? fmt::format(" (of the first {})", steps.size()) : "");
  }
  if (facts.contains("operators") && facts["operators"].contains("host")) {
    std::string top;
    int n = 0;
    for (const auto& o : facts["operators"]["host"].value("by_name", nlohmann::json::array())) {
      if (n++ == 3) break;
      top += fmt::format("{}{} {} ({}x)", top.empty() ? "" : ", ", o.value("name", std::string()),
                         format_ms(o.value("total_ns", 0.0)), o.value("count", 0));
    }
    if (!top.empty()) out += "top host operators (inclusive): " + top + "\n";
  }
  return out;
}

// Where in the model the device time goes (facts.modules): the heaviest modules near the top of
// the tree, the coverage and the repeated layers, in three lines at most.
static std::string module_lines(const nlohmann::json& facts) {
  const auto it = facts.find("modules");
  if (it == facts.end() || !it->is_object()) return "";
  const nlohmann::json& m = *it;
  std::string top;
  for (size_t i : top_modules(m, 5, 3)) {
    const nlohmann::json& n = m["tree"][i];
    top += (top.empty() ? "" : ", ") + module_label_text(m, i) + " " + module_share_text(m, n);
  }
  std::string out = top.empty() ? module_coverage_text(m) + "\n"
                                : "modules by device time per step: " + top + "\n  " + module_coverage_text(m) + "\n";
  if (const std::string rep = repeated_layers_line(m, 2); !rep.empty()) out += "  repeated layers: " + rep + "\n";
  return out;
}

// The first line (what was read, by what framework, on which rank and device) and what the
// loaders skipped: the numbers below are from what remained.
static std::string header_lines(const nlohmann::json& r, const nlohmann::json& facts, const Paint& paint) {
  std::string out;
  const auto& run = facts.value("run", nlohmann::json::object());
  std::string who = run.value("framework", "");
  std::string extra;
  if (run.value("rank", -1) >= 0) extra += fmt::format(", rank {}", run.value("rank", -1));
  if (run.value("platform", "") == "gpu" || run.value("platform", "") == "cpu")
    extra += ", " + run.value("platform", std::string()) +
             (run.contains("gpu_runtime") ? " (" + run.value("gpu_runtime", std::string()) + ")" : "");
  if (run.value("device", -1) >= 0) extra += fmt::format(", device {}", run.value("device", -1));
  if (!run.value("profiler_level", std::string()).empty()) extra += ", " + run.value("profiler_level", std::string());
  out += paint("1", "npu-advisor") + ": " + r["input"].value("description", "") + " (" + (who.empty() ? "?" : who) +
         extra + ")\n";
  // What the loaders skipped: the numbers below are from what remained.
  const auto& warnings = r.contains("warnings") ? r["warnings"] : nlohmann::json::array();
  for (size_t i = 0; i < warnings.size() && i < 5; ++i)
    if (warnings[i].is_string()) out += paint("33", "warning") + ": " + warnings[i].get<std::string>() + "\n";
  if (warnings.size() > 5)
    out += fmt::format("({} more warnings: see the JSON report or `inspect`)\n", warnings.size() - 5);
  return out;
}

// Checks of the step numbers: the self-check of GPU steps, the profiler's own overhead and the
// agreement with the profiler's breakdown.
static std::string check_lines(const nlohmann::json& facts, const nlohmann::json& o, const Paint& paint) {
  std::string out;
  if (o.contains("self_check") && o["self_check"].is_object()) {
    // GPU traces carry no profiler breakdown to agree with: what cannot be true of a step is checked.
    const auto& c = o["self_check"];
    if (c.value("ok", false)) {
      out += fmt::format("  {}: every step's parts add up; {} of {} device ops were launched inside a step\n",
                         paint("32", "self-check passed"), c.value("launched_in_steps", 0), c.value("device_ops", 0));
    } else {
      for (const auto& p : c.value("problems", nlohmann::json::array()))
        if (p.is_string()) out += "  " + paint("31", "SELF-CHECK FAILED") + ": " + p.get<std::string>() + "\n";
      out += "  the step numbers above and the savings below may be wrong (facts overall.self_check)\n";
    }
  }
  // torch.profiler's own host cost, where it lengthens a host-bound step (an estimate).
  if (const auto p = facts.find("profiler_overhead"); p != facts.end() && p->value("share_of_step", 0.0) >= 0.1)
    out += fmt::format(
        "  the profiler's own recording may be ~{} of each step ({}): unprofiled the step may take ~{} "
        "(estimate: facts profiler_overhead)\n",
        format_ms(p->value("estimate_ns", 0.0)), format_percent(p->value("share_of_step", 0.0)),
        format_ms(p->value("step_without_profiler_ns", 0.0)));
  if (o.contains("worst_agreement")) {
    const auto& a = o["worst_agreement"];
    bool ok = a.value("ok", false);
    out += fmt::format("  {} with the profiler's own breakdown (largest difference {} ns, {})\n",
                       ok ? paint("32", "agrees") : paint("31", "DIFFERS"), a.value("max_abs_diff_ns", int64_t{0}),
                       a.value("worst", std::string()).empty() ? "none" : a.value("worst", std::string()));
    if (!ok)
      out +=
          "  the numbers above and the findings use the profiler's own where they differ; ours are in "
          "facts steps[].recomputed\n";
  } else if (o.contains("source_file")) {
    out += fmt::format("  (the profiler's own breakdown, from {}: no device tasks to recompute from)\n",
                       o.value("source_file", std::string("step_trace_time.csv")));
  }
  return out;
}

// The step breakdown of one device: per step, the host side, what a step is and how far to trust it.
static std::string overall_lines(const nlohmann::json& facts, const Paint& paint) {
  std::string out;
  const auto& o = facts["overall"];
  double steps = o.value("steps", 0);
  double per = steps > 0 ? 1.0 / steps : 0;
  std::string median = o.contains("step_time") && o["step_time"].contains("median_ns")
                           ? format_ms(o["step_time"]["median_ns"].get<double>())
                           : "?";
  const std::string copies =
      o.contains("copies_ns") ? ", copies " + format_ms(o.value("copies_ns", 0.0) * per) : std::string();
  out += fmt::format(
      "{} step{}, device step median {}: computing {}, comm not overlapped {}{}, free {} per step ({} free)\n",
      o.value("steps", 0), o.value("steps", 0) == 1 ? "" : "s", median, format_ms(o.value("computing_ns", 0.0) * per),
      format_ms(o.value("comm_not_overlapped_ns", 0.0) * per), copies, format_ms(o.value("free_ns", 0.0) * per),
      paint("1", format_percent(o.value("free_ratio", 0.0))));
  // The host side of the step: its span, and the time before its first device task.
  std::string host;
  if (o.contains("host_step_time") && o["host_step_time"].contains("median_ns"))
    host = "host step median " + format_ms(o["host_step_time"]["median_ns"].get<double>());
  if (o.contains("preparing_ns") && o["preparing_ns"].is_number() && o["preparing_ns"].get<double>() > 0)
    host += (host.empty() ? "" : ", ") + std::string("preparing ") + format_ms(o["preparing_ns"].get<double>() * per) +
            " per step (before the first device task)";
  if (o.value("bubble_ns", 0.0) > 0)
    host += (host.empty() ? "" : ", ") + std::string("pipeline bubble ") +
            format_ms(o["bubble_ns"].get<double>() * per) + " per step";
  if (!host.empty()) out += "  " + host + "\n";
  // Steps the trace did not mark with ProfilerStep: say what they are.
  const std::string source = facts.contains("run") ? facts["run"].value("step_source", "") : "";
  if (!source.empty() && source.rfind("ProfilerStep", 0) != 0)
    out += "  steps: no ProfilerStep in the trace; each " + source + " is a step\n";
  if (o.contains("devices") && o["devices"].is_array())
    out += fmt::format(
        "  the profiler's table holds {} devices: shown is device {}; every device is in facts "
        "overall.devices\n",
        o["devices"].size(), o.value("device", 0));
  out += check_lines(facts, o, paint);
  return out;
}

// The step breakdown: one device's, a cluster's, or why there is none (and what the host shows).
static std::string breakdown_lines(const nlohmann::json& r, const nlohmann::json& facts, const Paint& paint) {
  std::string out;
  if (facts.contains("overall")) {
    out += overall_lines(facts, paint);
  } else if (facts.contains("cluster")) {
    out += render_cluster_terminal(facts["cluster"]);
  } else {
    // The facts say why (a CPU-only Kineto trace, a trace without device tasks, ...).
    std::string why = "no device tasks and no step_trace_time.csv";
    for (const auto& u : facts.value("unavailable", nlohmann::json::array()))
      if (u.value("fact", "") == "overall") why = u.value("why", why);
    out += "no step breakdown: " + why + "\n";
    out += host_only_lines(r["summary"], facts);
  }
  return out;
}

// The ranked findings, at most opt.max_findings of them, each in two or three lines.
static std::string findings_lines(const nlohmann::json& r, const nlohmann::json& split, const TerminalOptions& opt,
                                  const Paint& paint) {
  std::string out;
  const auto& findings = r["findings"];
  if (findings.empty()) {
    out += paint("32", "No findings.") + "\n";
  } else {
    out += fmt::format(
        "{} finding{}, ranked by saving per step x confidence{}:\n", findings.size(), findings.size() == 1 ? "" : "s",
        split.value("available", false) ? " (% of the " + format_ms(split.value("step_ns", 0.0)) + " step)"
                                        : std::string());
    int shown = 0;
    for (const auto& f : findings) {
      if (shown++ >= opt.max_findings) break;
      std::string saving =
          f.contains("saving_estimate_ns") ? "no saving beyond the findings above (same time)" : "saving unknown";
      if (f.value("saving_ns", int64_t{0}) > 0) {
        saving = "~" + format_ms(f["saving_ns"].get<double>()) + "/step";
        if (f["saving_ratio"].is_number()) saving += " (" + format_percent(f["saving_ratio"].get<double>()) + ")";
      }
      out +=
          fmt::format(" {}. {} {} [{}, confidence {:.0f}%]\n", f.value("rank", shown), paint("1", f.value("title", "")),
                      paint("33", saving), f.value("rule", ""), 100 * f.value("confidence", 0.0));
      std::string obs = f.value("observed", "");
      if (obs.size() > 150) {
        obs.resize(147);
        obs += "...";
      }
      out += "    " + obs + "\n";
      const auto& cmds = f.value("commands", nlohmann::json::array());
      if (!cmds.empty()) out += "    -> " + paint("36", cmds[0].get<std::string>()) + "\n";
    }
    if (static_cast<int>(findings.size()) > opt.max_findings)
      out += fmt::format("    ... {} more in the full report\n", findings.size() - opt.max_findings);
  }
  return out;
}

// Rules that failed, one line each, and those skipped for missing data, counted in one line.
static std::string rule_status_lines(const nlohmann::json& r, const Paint& paint) {
  std::string out;
  int skipped = 0, failed = 0;
  std::string first_skip;
  for (const auto& rs : r["rules"]) {
    std::string st = rs.value("status", "");
    if (st == "skipped") {
      if (skipped++ == 0) first_skip = rs.value("rule", "") + ": " + rs.value("reason", "");
    }
    if (st == "failed") {
      ++failed;
      out += paint("31", "rule failed: ") + rs.value("rule", "") + ": " + rs.value("reason", "") + "\n";
    }
  }
  if (skipped > 0) {
    if (first_skip.size() > 110) {
      first_skip.resize(107);
      first_skip += "...";
    }
    out += fmt::format("{} check{} skipped for missing data (e.g. {})\n", skipped, skipped == 1 ? "" : "s", first_skip);
  }
  return out;
}

std::string render_terminal(const nlohmann::json& r, const TerminalOptions& opt) {
  Paint paint{opt.color};
  std::string out;
  const auto& facts = r["facts"];
  out += header_lines(r, facts, paint);
  out += inference_terminal_lines(facts);
  out += breakdown_lines(r, facts, paint);

  // Where the step goes, by cause: the first thing to read, before any finding.
  const nlohmann::json& split = r.value("attribution", nlohmann::json::object());
  if (const std::string text = step_split_text(split); !text.empty())
    out += step_split_title(split) + ": " + text + "\n";
  if (const std::string line = step_class_line(r); !line.empty()) out += line + "\n";  // as the HTML badge
  out += findings_lines(r, split, opt, paint);
  // How much of the step the findings' savings explain (they never add up past it).
  if (const std::string text = explained_text(split); !text.empty()) out += "  " + text + "\n";
  if (const std::string text = replay_text(split); !text.empty()) out += "  " + text + "\n";
  out += module_lines(facts);
  out += roofline_lines(facts);

  out += rule_status_lines(r, paint);
  if (!opt.report_path.empty()) out += "Full report: " + opt.report_path + "\n";
  return out;
}

}  // namespace npu
