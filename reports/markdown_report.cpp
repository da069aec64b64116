// The Markdown report: the same content as the HTML report without charts, fit for a PR
// comment or a wiki page.
#include <fmt/format.h>

#include "base/text.h"
#include "reports/inference_text.h"
#include "reports/report_document.h"

namespace npu {
namespace {

std::string opt_ms(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? fmt::format("{:.3f}", j[key].get<double>() / 1e6) : "-";
}

std::string evidence_text(const nlohmann::json& e) {
  if (e.is_string()) return e.get<std::string>();
  if (!e.is_object()) return e.dump();
  std::string where = e.value("file", "");
  if (e.contains("line")) where += fmt::format(":{}", e["line"].get<int64_t>());
  if (e.contains("byte")) where += fmt::format(" @ byte {}", e["byte"].get<int64_t>());
  if (e.contains("rowid")) where += fmt::format(" @ {} rowid {}", e.value("table", ""), e["rowid"].get<int64_t>());
  std::string what = e.value("what", "");
  if (e.contains("fact")) what = e["fact"].get<std::string>() + (e.contains("value") ? " = " + e["value"].dump() : "");
  return where.empty() ? what : what + " (" + where + ")";
}

// Where in the model the device time goes (facts.modules): the top modules, coverage, repeated layers.
std::string modules_markdown(const nlohmann::json& facts) {
  const auto it = facts.find("modules");
  if (it == facts.end() || !it->is_object()) return "";
  const nlohmann::json& m = *it;
  std::string out = "\n## Modules\n\n" + text::md_prose(module_coverage_text(m)) + ".\n\n";
  const auto top = top_modules(m, 5, 3);
  if (!top.empty()) {
    out += "| module | calls | device (ms/step) | share of step | self (ms/step) | host (ms/step) |\n";
    out += "|:--|---:|---:|---:|---:|---:|\n";
    const double step = m.value("step_device_ns", 0.0);
    for (size_t i : top) {
      const nlohmann::json& n = m["tree"][i];
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", text::md_safe_cell(module_label_text(m, i, "path")),
                         n.value("calls", int64_t{0}), opt_ms(n, "device_ns"),
                         step > 0 ? format_percent(n.value("device_ns", 0.0) / step) : "-", opt_ms(n, "self_ns"),
                         opt_ms(n, "host_ns"));
    }
    out += "\nThe heaviest modules down to depth 3, per step (a wrapper around one child is shown by the child).\n";
  }
  if (const std::string rep = repeated_layers_line(m, 5); !rep.empty())
    out += "\nRepeated layers: " + text::md_prose(rep) + ".\n";
  return out;
}

// The per-step class the rules decided (the same the HTML badge shows), or "".
std::string step_class_markdown(const nlohmann::json& r) {
  const std::string line = step_class_line(r);
  return line.empty() ? "" : "\n" + text::md_prose(line) + ".\n";
}

// The title and what was read: the input, its framework, rank, device and profiler level.
std::string header_markdown(const nlohmann::json& r, const nlohmann::json& facts) {
  std::string out;
  const auto& run = facts.value("run", nlohmann::json::object());
  out += "# npu-advisor report\n\n";
  out += fmt::format("**Input:** {}  \n**Framework:** {}  \n", text::md_safe_cell(r["input"].value("description", "")),
                     run.value("framework", "?"));
  if (run.value("rank", -1) >= 0) out += fmt::format("**Rank:** {}  \n", run.value("rank", -1));
  if (run.value("device", -1) >= 0) out += fmt::format("**Device:** {}  \n", run.value("device", -1));
  if (!run.value("profiler_level", std::string()).empty())
    out += fmt::format("**Profiler level:** {}  \n", run.value("profiler_level", std::string()));
  return out;
}

// What the loaders skipped: the numbers below are from what remained.
std::string warnings_markdown(const nlohmann::json& r) {
  std::string out;
  if (r.contains("warnings") && !r["warnings"].empty()) {
    out += "\n## Loader warnings\n\n";
    for (const auto& w : r["warnings"])
      if (w.is_string()) out += "- " + text::md_prose(w.get<std::string>()) + "\n";
  }
  return out;
}

// One device's step breakdown, a row per step with the profiler's agreement.
std::string steps_markdown(const nlohmann::json& facts) {
  std::string out;
  if (facts.contains("overall")) {
    const auto& o = facts["overall"];
    out += "\n## Step breakdown\n\n";
    out += fmt::format("Source: {}. Free is {} of device time.\n\n", o.value("source", ""),
                       format_percent(o.value("free_ratio", 0.0)));
    out +=
        "| step | computing (ms) | communication (ms) | comm not overlapped (ms) | free (ms) | free % | profiler "
        "agrees |\n";
    out += "|---:|---:|---:|---:|---:|---:|:--|\n";
    for (const auto& s : facts.value("steps", nlohmann::json::array())) {
      std::string agree = "-";
      if (s.contains("agreement"))
        agree = fmt::format("{} (max diff {} ns)", s["agreement"].value("ok", false) ? "yes" : "**no**",
                            s["agreement"].value("max_abs_diff_ns", int64_t{0}));
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", s["id"].is_null() ? "-" : s["id"].dump(),
                         opt_ms(s, "computing_ns"), opt_ms(s, "communication_ns"), opt_ms(s, "comm_not_overlapped_ns"),
                         opt_ms(s, "free_ns"), format_percent(s.value("free_ratio", 0.0)), agree);
    }
  }
  return out;
}

// One finding: what was observed, why it matters, what to do, the estimate and its evidence.
std::string finding_markdown(const nlohmann::json& f) {
  std::string out;
  out += fmt::format("### {}. {}\n\n", f.value("rank", 0), text::md_prose(f.value("title", "")));
  std::string saving = "unknown";
  if (f.value("saving_ns", int64_t{0}) > 0) {
    saving = format_ms(f["saving_ns"].get<double>()) + " per step";
    if (f["saving_ratio"].is_number()) saving += " (" + format_percent(f["saving_ratio"].get<double>()) + " of a step)";
  }
  out += fmt::format("*Rule* {} · *category* {} · *estimated saving* {} · *confidence* {:.0f}%\n\n",
                     text::md_code(f.value("rule", "")), text::md_prose(f.value("category", "")), saving,
                     100 * f.value("confidence", 0.0));
  out += "**Observed:** " + text::md_prose(f.value("observed", "")) + "\n\n";
  if (!f.value("why", std::string()).empty())
    out += "**Why it matters:** " + text::md_prose(f.value("why", std::string())) + "\n\n";
  if (!f.value("action", std::string()).empty())
    out += "**What to do:** " + text::md_prose(f.value("action", std::string())) + "\n\n";
  const auto& cmds = f.value("commands", nlohmann::json::array());
  if (!cmds.empty()) {
    out += "```sh\n";
    for (const auto& c : cmds) {
      std::string line = c.is_string() ? c.get<std::string>() : c.dump();
      for (size_t p; (p = line.find("```")) != std::string::npos;) line.replace(p, 3, "'''");  // stays in the block
      out += line + "\n";
    }
    out += "```\n\n";
  }
  if (!f.value("saving_formula", std::string()).empty())
    out += "*Estimate:* " + text::md_prose(f.value("saving_formula", std::string())) + "\n\n";
  const auto& ev = f.value("evidence", nlohmann::json::array());
  if (!ev.empty()) {
    out += "Evidence:\n";
    for (const auto& e : ev) out += "- " + text::md_safe_cell(evidence_text(e)) + "\n";
    out += "\n";
  }
  return out;
}

// The findings in rank order, after how much of the step their savings explain.
std::string findings_markdown(const nlohmann::json& r, const nlohmann::json& split) {
  std::string out;
  const auto& findings = r["findings"];
  out += fmt::format("\n## Findings ({})\n\n", findings.size());
  if (const std::string text = explained_text(split); !text.empty())
    out += "Ranked by saving per step x confidence; percentages are of the step. " + text::md_prose(text) + "." +
           (replay_text(split).empty() ? "" : " " + text::md_prose(replay_text(split)) + ".") + "\n\n";
  if (findings.empty()) out += "No findings.\n";
  for (const auto& f : findings) out += finding_markdown(f);
  return out;
}

// Rules skipped, failed or not applicable and facts unavailable; rules for the other scope in one line.
std::string checks_not_run_markdown(const nlohmann::json& r) {
  std::string out;
  out += "## Checks not run\n\n";
  int n = 0;
  // Rules for the other scope (single-rank rules on a cluster, cluster rules on one rank) in one line.
  std::vector<std::string> other_scope;
  std::string other_reason;
  for (const auto& rs : r["rules"]) {
    std::string st = rs.value("status", "");
    std::string reason = rs.value("reason", "");
    if (st == "not applicable" &&
        (reason.rfind("single-rank check", 0) == 0 || reason.rfind("cluster check", 0) == 0)) {
      other_scope.push_back(text::md_code(rs.value("rule", "")));
      other_reason = reason;
      continue;
    }
    if (st == "skipped" || st == "failed" || st == "not applicable") {
      out += fmt::format("- {} ({}): {}\n", text::md_code(rs.value("rule", "")), st,
                         text::md_safe_cell(rs.value("reason", "")));
      ++n;
    }
  }
  for (const auto& u : r.value("unavailable", nlohmann::json::array())) {
    out += fmt::format("- fact {} unavailable: {}\n", text::md_code(u.value("fact", "")),
                       text::md_safe_cell(u.value("why", "")));
    ++n;
  }
  if (!other_scope.empty()) {
    std::string ids;
    for (const auto& id : other_scope) ids += (ids.empty() ? "" : ", ") + id;
    out +=
        fmt::format("- {} checks not applicable ({}): {}\n", other_scope.size(), text::md_safe_cell(other_reason), ids);
    ++n;
  }
  if (n == 0) out += "All checks ran.\n";
  return out;
}

}  // namespace

std::string render_markdown(const nlohmann::json& r) {
  std::string out;
  const auto& facts = r["facts"];
  out += header_markdown(r, facts);
  out += warnings_markdown(r);
  out += inference_markdown(facts);
  out += steps_markdown(facts);

  if (facts.contains("cluster")) out += render_cluster_markdown(facts["cluster"]);

  // Where the step goes, by cause (rules/attribution.h): what the findings' savings are parts of.
  const nlohmann::json& split = r.value("attribution", nlohmann::json::object());
  if (const std::string text = step_split_text(split); !text.empty())
    out += "\n## " + text::md_prose(step_split_title(split)) + "\n\n" + text::md_prose(text) + ".\n";

  out += step_class_markdown(r) + modules_markdown(facts);
  out += findings_markdown(r, split);
  out += checks_not_run_markdown(r);
  return out;
}

}  // namespace npu
