#include "reports/run_summary.h"

#include <map>

#include <fmt/format.h>

#include "base/decimal.h"
#include "base/text.h"
#include "facts/facts.h"

namespace npu {
namespace {

std::string ms(Ns ns) { return text::ms_number(static_cast<double>(ns)); }

using nlohmann::json;

// What one loaded file held: its events (by phase) or rows, and its note.
std::string file_detail(const json& f, const json& c) {
  std::string detail;
  const std::string role = f["role"];
  if (role == "trace_view.json" || role.find(".json") != std::string::npos) {
    if (f["records"].get<uint64_t>() > 0) {
      detail = fmt::format("{} events", f["records"].get<uint64_t>());
      std::string ph;
      for (auto& [k, v] : c["events_by_phase"].items())
        ph += fmt::format("{}{} {}", ph.empty() ? "" : ", ", k, v.get<uint64_t>());
      if (!ph.empty()) detail += " (" + ph + ")";
    }
  } else {
    detail = fmt::format("{} rows", f["records"].get<uint64_t>());
  }
  if (!f["note"].get<std::string>().empty()) detail += (detail.empty() ? "" : "; ") + f["note"].get<std::string>();
  return detail;
}

// The loaded files, a line each.
void render_files(const json& s, std::string& out, const std::string& indent) {
  const auto& c = s["counts"];
  // A timeline split over several files (sliced msprof JSON, one file per iteration) is one line.
  struct Multi {
    uint64_t files = 0, bytes = 0, records = 0;
  };
  std::map<std::string, Multi> multi;
  for (const auto& f : s["files"])
    if (f["status"] == "loaded" && f.value("table", "").empty()) {
      auto& m = multi[f["role"].get<std::string>()];
      m.files++;
      m.bytes += f["bytes"].get<uint64_t>();
      m.records += f["records"].get<uint64_t>();
    }
  for (const auto& f : s["files"]) {
    std::string role = f["role"];
    if (f["status"] != "loaded") continue;
    if (auto it = multi.find(role); it != multi.end() && it->second.files != 1) {
      if (it->second.files > 1)
        out += indent + fmt::format("  {:<26} {:>9}  {} files, {} events in all\n", role,
                                    text::human_bytes(static_cast<double>(it->second.bytes)), it->second.files,
                                    it->second.records);
      it->second.files = 0;  // printed
      continue;
    }
    if (const std::string table = f.value("table", ""); !table.empty()) {
      // A database role: name the tables (the role is the text file it stands in for).
      std::string detail = fmt::format("{} rows from {}", f["records"].get<uint64_t>(), table);
      std::string note = f["note"].get<std::string>();
      if (note.find("columns not in") != std::string::npos) detail += note.substr(note.find(';'));
      out += indent + fmt::format("  {:<26} {:>9}  {}\n", "(" + role + ")", "", detail);
      continue;
    }
    out += indent + fmt::format("  {:<26} {:>9}  {}\n", role, text::human_bytes(f["bytes"].get<double>()),
                                file_detail(f, c));
  }
}

// "a 1, b 2" of an object of counts.
std::string count_list(const json& o) {
  std::string out;
  for (auto& [k, v] : o.items()) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, v.get<uint64_t>());
  return out;
}

// What the trace held: slices by process, flows, steps, device kernels.
void render_counts(const json& c, std::string& out, const std::string& indent) {
  if (!c["slices_by_process"].empty()) {
    out += indent + "  slices by process: " + count_list(c["slices_by_process"]) + "\n";
    if (std::string flows = count_list(c["flows_by_category"]); !flows.empty()) {
      out += indent + "  flows: " + flows;
      if (c["dangling_flow_points"].get<uint64_t>() > 0)
        out += fmt::format(" ({} unpaired flow events)", c["dangling_flow_points"].get<uint64_t>());
      out += "\n";
    }
    out += indent + fmt::format("  steps (ProfilerStep#N): {}\n", c["steps"].get<uint64_t>());
  }
  if (c["kernels"].get<uint64_t>() > 0)
    out += indent + fmt::format("  device kernels: {} ({})\n", c["kernels"].get<uint64_t>(),
                                count_list(c["kernels_by_accelerator_core"]));
}

// The profiler's own step breakdown, what is not available, and the warnings.
void render_breakdown(const json& s, std::string& out, const TextStyle& st, const std::string& indent) {
  auto dim = [&](const std::string& t) { return st.color ? "\x1b[2m" + t + "\x1b[0m" : t; };
  const auto& bd = s["profiler_step_breakdown"];
  if (!bd.empty()) {
    out += indent + "  profiler step breakdown (step_trace_time.csv, ms):\n";
    out += indent + dim(fmt::format("    {:>6} {:>12} {:>14} {:>12} {:>12} {:>7}\n", "step", "computing",
                                    "comm (not ovl)", "free", "step", "free%"));
    for (const auto& r : bd) {
      std::string step = r["step"].is_null() ? "-" : std::to_string(r["step"].get<int64_t>());
      out += indent + fmt::format("    {:>6} {:>12} {:>14} {:>12} {:>12} {:>6.1f}%\n", step,
                                  ms(r["computing_ns"].get<Ns>()), ms(r["communication_not_overlapped_ns"].get<Ns>()),
                                  ms(r["free_ns"].get<Ns>()), ms(r["step_ns"].get<Ns>()),
                                  100.0 * r["free_ratio"].get<double>());
    }
  }
  const auto& un = s["unavailable"];
  if (!un.empty()) {
    out += indent + "  not available:\n";
    for (const auto& u : un)
      out += indent + dim(fmt::format("    {:<26} {}\n", u["input"].get<std::string>(), u["why"].get<std::string>()));
  }
  for (const auto& w : s["warnings"]) out += indent + "  warning: " + w.get<std::string>() + "\n";
}

void render_one(const json& s, std::string& out, const TextStyle& st, const std::string& indent) {
  auto bold = [&](const std::string& t) { return st.color ? "\x1b[1m" + t + "\x1b[0m" : t; };
  if (s.contains("error")) {
    out += indent + s["input"]["path"].get<std::string>() + ": " + s["error"].get<std::string>() + "\n";
    return;
  }
  const auto& run = s["run"];
  std::string who = run["framework"].get<std::string>();
  if (who.empty()) who = "unknown framework";
  std::string rank = run["rank"].get<int>() >= 0 ? fmt::format(", rank {}", run["rank"].get<int>()) : "";
  std::string dev = run["device"].get<int>() >= 0 ? fmt::format(", device {}", run["device"].get<int>()) : "";
  std::string lvl =
      run["profiler_level"].get<std::string>().empty() ? "" : ", " + run["profiler_level"].get<std::string>();
  out += indent + bold(s["input"]["description"].get<std::string>()) + "\n";
  out += indent + "  " + who + rank + dev + lvl + "\n";
  if (run.contains("source_format") && !run["source_format"].get<std::string>().empty())
    out += indent + "  format: " + run["source_format"].get<std::string>() + "\n";
  render_files(s, out, indent);
  render_counts(s["counts"], out, indent);
  render_breakdown(s, out, st, indent);
}

}  // namespace

std::string render_summary_text(const nlohmann::json& s, const TextStyle& st) {
  std::string out;
  if (s.contains("members")) {
    out += s["input"]["description"].get<std::string>() + " in " + s["input"]["path"].get<std::string>() + "\n";
    for (const auto& m : s["members"]) render_one(m, out, st, "  ");
    return out;
  }
  render_one(s, out, st, "");
  return out;
}

std::string render_summary_markdown(const nlohmann::json& s) {
  std::string out = "# npu-advisor run summary\n\n```\n";
  out += render_summary_text(s, TextStyle{false});
  out += "```\n";
  return out;
}

}  // namespace npu
