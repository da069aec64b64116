#include "pipeline/run_summary.h"

#include <map>

#include <fmt/format.h>

#include "facts/facts.h"

namespace npu {

namespace {

using nlohmann::json;

// What the loaders counted: events, slices per process, flows, kernels, rows of each table.
json counts_of(const RunModel& m) {
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
  return counts;
}

// Per step, as the facts' per-step lists: the first kMaxStepDetail (counts.steps has them all).
json steps_of(const RunModel& m) {
  json steps = json::array();
  for (size_t i = 0; i < m.steps.size() && i < kMaxStepDetail; ++i) {
    const Step& st = m.steps[i];
    RunModel::DecodedLoc at = m.decode_loc(st.src.loc);
    std::string file = m.trace_parts.size() > 1 && at.file < m.files.size() ? m.files[at.file].path + " " : "";
    std::string source = at.table.empty() ? fmt::format("trace {}byte {}", file, at.offset)
                                          : fmt::format("{} rowid {}", at.table, at.offset);
    steps.push_back(
        {{"id", st.id}, {"start_ns", st.start}, {"end_ns", st.end}, {"dur_ns", st.end - st.start}, {"source", source}});
  }
  return steps;
}

// The profiler's own breakdown, as written in step_trace_time.csv.
json profiler_breakdown(const RunModel& m) {
  json breakdown = json::array();
  const InputFile* stt = m.file(Role::StepTraceTime);
  for (size_t i = 0; i < m.step_trace.size() && i < kMaxStepDetail; ++i) {
    const auto& r = m.step_trace[i];
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
  return breakdown;
}

}  // namespace

nlohmann::json summarize_run(const RunModel& m, const Detection& input) {
  json s;
  s["schema"] = "npu-advisor.run-summary";
  s["schema_version"] = kRunSummarySchemaVersion;
  s["input"] = {{"path", input.path}, {"kind", input.kind}, {"description", input.description}};
  s["run"] = run_metadata_json(m);

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
  s["counts"] = counts_of(m);
  s["steps"] = steps_of(m);
  s["profiler_step_breakdown"] = profiler_breakdown(m);
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
  s["input"] = {{"path", input.path}, {"kind", input.kind}, {"description", input.description}};
  s["members"] = members;
  return s;
}

}  // namespace npu
