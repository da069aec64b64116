#include "reports/run_summary.h"

#include <map>

#include <fmt/format.h>

#include "base/decimal.h"
#include "base/text.h"
#include "facts/facts.h"

namespace npu {
namespace {

std::string human_bytes(uint64_t b) {
  if (b >= 1000ull * 1000 * 1000) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1000ull * 1000) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1000) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{} B", b);
}

std::string ms(Ns ns) { return text::ms_number(static_cast<double>(ns)); }

}  // namespace

nlohmann::json summarize_run(const RunModel& m, const Detection& input) {
  using nlohmann::json;
  json s;
  s["schema"] = "npu-advisor.run-summary";
  s["schema_version"] = kRunSummarySchemaVersion;
  s["input"] = {{"path", input.path}, {"kind", to_string(input.kind)}, {"description", input.description}};

  json run = run_metadata_json(m);
  s["run"] = run;

  json files = json::array();
  json skipped = json::array();
  for (const auto& f : m.files) {
    files.push_back({{"role", f.role},
                     {"status", to_string(f.status)},
                     {"path", f.path},
                     {"bytes", f.bytes},
                     {"records", f.records},
                     {"table", f.table},
                     {"note", f.note}});
    if (f.status != InputFile::Status::Loaded) skipped.push_back({{"input", f.role}, {"why", f.note}});
  }
  s["files"] = files;
  s["unavailable"] = skipped;

  json counts;
  counts["trace_events"] = m.stats.trace_events;
  counts["events_by_phase"] = m.stats.events_by_phase;
  std::map<std::string, uint64_t> by_process, by_kind;
  for (const auto& t : m.tracks) by_kind[to_string(t.kind)];
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    auto r = m.track_slices[t];
    if (r.end == r.begin) continue;
    by_process[process_display_name(m, m.tracks[t])] += r.end - r.begin;
  }
  counts["slices_by_process"] = by_process;
  counts["tracks"] = m.tracks.size();
  std::map<std::string, uint64_t> flows;
  for (const auto& f : m.flows) flows[std::string(m.str(f.cat))]++;
  counts["flows_by_category"] = flows;
  counts["dangling_flow_points"] = m.stats.dangling_flow_points;
  counts["counter_samples"] = m.counters.size();
  counts["steps"] = m.steps.size();
  counts["kernels"] = m.kernels.size();
  std::map<std::string, uint64_t> cores;
  for (const auto& k : m.kernels) cores[k.accel_core ? std::string(m.str(k.accel_core)) : "N/A"]++;
  counts["kernels_by_accelerator_core"] = cores;
  counts["pmu_columns"] = m.pmu_columns.size();
  counts["op_statistic_rows"] = m.op_statistics.size();
  counts["step_trace_rows"] = m.step_trace.size();
  counts["memory_records"] = m.memory_records.size();
  counts["operator_memory_rows"] = m.operator_memory.size();
  counts["module_memory_rows"] = m.module_memory.size();
  s["counts"] = counts;

  json steps = json::array();
  for (const auto& st : m.steps) {
    RunModel::DecodedLoc at = m.decode_loc(st.src.loc);
    std::string file = m.trace_parts.size() > 1 && at.file < m.files.size() ? m.files[at.file].path + " " : "";
    std::string source = at.table.empty() ? fmt::format("trace {}byte {}", file, at.offset)
                                          : fmt::format("{} rowid {}", at.table, at.offset);
    steps.push_back(
        {{"id", st.id}, {"start_ns", st.start}, {"end_ns", st.end}, {"dur_ns", st.end - st.start}, {"source", source}});
  }
  s["steps"] = steps;

  // The profiler's own breakdown, as written in step_trace_time.csv.
  json breakdown = json::array();
  const InputFile* stt = m.file("step_trace_time.csv");
  for (const auto& r : m.step_trace) {
    Ns total = r.computing + r.comm_not_overlapped + r.free;
    json row = {
        {"device", r.device},
        {"step", r.step == kNoId ? json(nullptr) : json(r.step)},
        {"computing_ns", r.computing},
        {"communication_not_overlapped_ns", r.comm_not_overlapped},
        {"overlapped_ns", r.overlapped},
        {"communication_ns", r.communication},
        {"free_ns", r.free},
        {"step_ns", total},
        {"free_ratio", total > 0 ? static_cast<double>(r.free) / static_cast<double>(total) : 0.0},
        {"source", stt && !stt->table.empty() ? fmt::format("{}:{} rowid {}", stt->path, stt->table, r.line)
                                              : fmt::format("{}:{}", stt ? stt->path : "step_trace_time.csv", r.line)}};
    breakdown.push_back(row);
  }
  s["profiler_step_breakdown"] = breakdown;

  s["load"] = {{"trace_bytes", m.stats.trace_bytes},
               {"trace_seconds", m.stats.trace_seconds},
               {"trace_mb_per_s", m.stats.trace_seconds > 0 ? m.stats.trace_bytes / 1e6 / m.stats.trace_seconds : 0.0}};
  s["warnings"] = m.stats.warnings;
  return s;
}

nlohmann::json summarize_cluster(const Detection& input, const std::vector<nlohmann::json>& members) {
  nlohmann::json s;
  s["schema"] = "npu-advisor.run-summary";
  s["schema_version"] = kRunSummarySchemaVersion;
  s["input"] = {{"path", input.path}, {"kind", to_string(input.kind)}, {"description", input.description}};
  s["members"] = members;
  return s;
}

namespace {

void render_one(const nlohmann::json& s, std::string& out, const TextStyle& st, const std::string& indent) {
  auto bold = [&](const std::string& t) { return st.color ? "\x1b[1m" + t + "\x1b[0m" : t; };
  auto dim = [&](const std::string& t) { return st.color ? "\x1b[2m" + t + "\x1b[0m" : t; };
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
    std::string status = f["status"];
    if (status != "loaded") continue;
    if (auto it = multi.find(role); it != multi.end() && it->second.files != 1) {
      if (it->second.files > 1)
        out += indent + fmt::format("  {:<26} {:>9}  {} files, {} events in all\n", role, human_bytes(it->second.bytes),
                                    it->second.files, it->second.records);
      it->second.files = 0;  // printed
      continue;
    }
    std::string detail;
    const std::string table = f.value("table", "");
    if (!table.empty()) {
      // A database role: name the tables (the role is the text file it stands in for).
      detail = fmt::format("{} rows from {}", f["records"].get<uint64_t>(), table);
      std::string note = f["note"].get<std::string>();
      if (note.find("columns not in") != std::string::npos) detail += note.substr(note.find(';'));
      out += indent + fmt::format("  {:<26} {:>9}  {}\n", "(" + role + ")", "", detail);
      continue;
    }
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
    out += indent + fmt::format("  {:<26} {:>9}  {}\n", role, human_bytes(f["bytes"].get<uint64_t>()), detail);
  }
  if (!c["slices_by_process"].empty()) {
    std::string procs;
    for (auto& [k, v] : c["slices_by_process"].items())
      procs += fmt::format("{}{} {}", procs.empty() ? "" : ", ", k, v.get<uint64_t>());
    out += indent + "  slices by process: " + procs + "\n";
    std::string flows;
    for (auto& [k, v] : c["flows_by_category"].items())
      flows += fmt::format("{}{} {}", flows.empty() ? "" : ", ", k, v.get<uint64_t>());
    if (!flows.empty()) {
      out += indent + "  flows: " + flows;
      if (c["dangling_flow_points"].get<uint64_t>() > 0)
        out += fmt::format(" ({} unpaired flow events)", c["dangling_flow_points"].get<uint64_t>());
      out += "\n";
    }
    out += indent + fmt::format("  steps (ProfilerStep#N): {}\n", c["steps"].get<uint64_t>());
  }
  if (c["kernels"].get<uint64_t>() > 0) {
    std::string cores;
    for (auto& [k, v] : c["kernels_by_accelerator_core"].items())
      cores += fmt::format("{}{} {}", cores.empty() ? "" : ", ", k, v.get<uint64_t>());
    out += indent + fmt::format("  device kernels: {} ({})\n", c["kernels"].get<uint64_t>(), cores);
  }

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
