#include "facts/facts.h"

#include <cmath>
#include <optional>

#include "base/json_file.h"
#include "base/json_object.h"
#include "base/load_error.h"
#include "facts/facts_schema.h"

namespace npu {

void Facts::unavailable(std::string_view fact, std::string_view why) {
  auto& list = doc["unavailable"];
  if (!list.is_array()) list = nlohmann::json::array();
  for (const auto& u : list)
    if (u["fact"] == fact) return;
  list.push_back({{"fact", fact}, {"why", why}});
}

void Facts::warn(const std::string& text) {
  nlohmann::json& run = doc["run"];
  if (!run.is_object()) run = nlohmann::json::object();
  nlohmann::json& list = run["warnings"];
  if (!list.is_array()) list = nlohmann::json::array();
  list.push_back(text);
  warnings.push_back(text);
}

namespace {
std::string path_of(const RunModel& m, uint16_t file) {
  return file < m.files.size() ? m.files[file].path : std::string();
}
}  // namespace

nlohmann::json evidence_event(const RunModel& m, uint64_t loc, std::string_view what) {
  RunModel::DecodedLoc d = m.decode_loc(loc);
  JsonObject o;
  o.add("file", path_of(m, d.file)).add("what", what);
  if (!d.table.empty()) o.add("table", d.table).add("rowid", d.offset);
  else o.add("byte", d.offset);
  return o.take();
}

nlohmann::json evidence_event_in(const RunModel& m, int32_t file, uint64_t byte, std::string_view what) {
  if (file < 0) return evidence_event(m, byte, what);
  JsonObject o;
  o.add("file", path_of(m, static_cast<uint16_t>(file))).add("what", what).add("byte", byte);
  return o.take();
}

nlohmann::json evidence_row(const RunModel& m, Role role, uint32_t line, std::string_view what) {
  const InputFile* f = m.file(role);
  if (f && !f->table.empty()) {
    // A database role: the "line" is the rowid in the first table the role names.
    std::string table = f->table.substr(0, f->table.find('+'));
    return {{"file", f->path}, {"table", table}, {"rowid", line}, {"what", what}};
  }
  return {{"file", f ? f->path : std::string(role_name(role))}, {"line", line}, {"what", what}};
}

nlohmann::json evidence_file(const RunModel& m, Role role, std::string_view what) {
  const InputFile* f = m.file(role);
  return {{"file", f ? f->path : std::string(role_name(role))}, {"what", what}};
}

nlohmann::json parallel_groups_json(const std::vector<ParallelGroup>& groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : groups)
    out.push_back({{"group", g.hccl_name}, {"name", g.name}, {"ranks", g.ranks}, {"id", g.id}});
  return out;
}

nlohmann::json run_metadata_json(const RunModel& m) {
  nlohmann::json run;
  run["framework"] = m.meta.framework;
  run["platform"] = run_platform(m);
  if (!m.meta.gpu_runtime.empty()) run["gpu_runtime"] = m.meta.gpu_runtime;
  run["source_format"] = m.meta.source_format;
  run["step_source"] = m.meta.step_source;
  run["rank"] = m.meta.rank;
  run["device"] = m.meta.device;
  run["profiler_level"] = m.meta.profiler_level;
  run["aic_metrics"] = m.meta.aic_metrics;
  run["worker_name"] = m.meta.worker_name;
  run["versions"] = m.meta.versions;
  run["env"] = m.meta.env;
  run["config"] = m.meta.config;
  run["distributed"] = m.meta.distributed;
  if (!m.meta.parallel_groups.empty()) run["parallel_groups"] = parallel_groups_json(m.meta.parallel_groups);
  return run;
}

namespace {

// The step numbers compare, gate and the reduce compute with, checked for what a profile can
// hold: each part a time (0 .. ~11.6 days), a step's parts adding up to its device time (as
// every facts document this tool writes does), its host span matching its bounds. The first
// impossible number, or nothing.
std::optional<std::string> impossible_step_numbers(const nlohmann::json& doc) {
  constexpr double kMaxNs = 1e15;
  static const char* kParts[] = {"computing_ns", "communication_ns", "comm_not_overlapped_ns", "overlapped_ns",
                                 "free_ns",      "copies_ns",        "device_time_ns",         "host_dur_ns",
                                 "bubble_ns",    "preparing_ns"};
  auto check = [&](const nlohmann::json& o, const std::string& where) -> std::optional<std::string> {
    if (!o.is_object()) return std::nullopt;
    for (const char* k : kParts) {
      const auto it = o.find(k);
      if (it == o.end() || !it->is_number()) continue;
      const double v = it->get<double>();
      if (!(v >= 0 && v <= kMaxNs)) return where + "." + k + " = " + it->dump() + " is not a possible time";
    }
    return std::nullopt;
  };
  if (auto bad = check(doc.value("overall", nlohmann::json()), "overall")) return bad;
  // A rank is a small integer (-1: unknown): 2^40 would become another rank in the reduce.
  if (const auto run = doc.find("run");
      run != doc.end() && run->is_object() && run->contains("rank") && (*run)["rank"].is_number()) {
    const double r = (*run)["rank"].get<double>();
    if (!(r >= -1 && r <= 2147483647.0)) return "run.rank = " + (*run)["rank"].dump() + " is not a rank";
  }
  const nlohmann::json steps = doc.value("steps", nlohmann::json::array());
  if (!steps.is_array()) return std::nullopt;
  for (size_t i = 0; i < steps.size(); ++i) {
    const nlohmann::json& s = steps[i];
    const std::string where = "steps[" + std::to_string(i) + "]";
    if (auto bad = check(s, where)) return bad;
    if (!s.is_object()) continue;
    auto num = [&](const char* k) { return s.contains(k) && s[k].is_number() ? s[k].get<double>() : -1.0; };
    const double start = num("start_ns"), end = num("end_ns"), host = num("host_dur_ns");
    if (host >= 0 && start >= 0 && end >= 0 && std::abs(host - (end - start)) > 1000)
      return where + ".host_dur_ns = " + s["host_dur_ns"].dump() +
             " is not its span (end_ns - start_ns = " + std::to_string(static_cast<int64_t>(end - start)) + ")";
    const double device = num("device_time_ns");
    if (device >= 0 && s.contains("computing_ns")) {
      double parts = 0;
      for (const char* k : {"computing_ns", "comm_not_overlapped_ns", "copies_ns", "free_ns"})
        parts += std::max(0.0, num(k));
      if (std::abs(parts - device) > std::max(1000.0, 0.001 * device))
        return where + ": its parts add up to " + std::to_string(static_cast<int64_t>(parts)) +
               " ns, not its device_time_ns " + s["device_time_ns"].dump();
    }
  }
  return std::nullopt;
}

}  // namespace

Facts read_facts(const std::string& path) { return facts_from_json(read_json_file(path), path); }

Facts facts_from_json(nlohmann::json doc, const std::string& path) {
  Facts f;
  f.doc = std::move(doc);
  if (!f.doc.is_object() || !f.doc.contains("schema") || f.doc["schema"] != kFactsSchema)
    throw LoadError::whole_file(path, "not an npu-advisor facts file (no \"schema\": \"npu-advisor.facts\")");
  const auto sv = f.doc.find("schema_version");
  const int64_t v = sv != f.doc.end() && sv->is_number_integer() ? sv->get<int64_t>() : 0;
  if (v < 1 || v > kFactsSchemaVersion)
    throw LoadError::whole_file(path, "facts schema_version " + std::to_string(v) +
                                          " is not supported (this build reads 1.." +
                                          std::to_string(kFactsSchemaVersion) + ")");
  // An older version is read as this one: what this version no longer has is left out, and the
  // run's warnings say so (docs/facts.md, version policy).
  if (v < kFactsSchemaVersion) {
    size_t dropped = drop_keys_unknown_since(f.doc, static_cast<int>(v), FactsSchema::builtin());
    f.doc["schema_version"] = kFactsSchemaVersion;
    if (dropped > 0 && f.doc.contains("run") && f.doc["run"].is_object()) {
      nlohmann::json& warnings = f.doc["run"]["warnings"];
      if (!warnings.is_array()) warnings = nlohmann::json::array();
      warnings.push_back(path + ": facts schema_version " + std::to_string(v) + " read as " +
                         std::to_string(kFactsSchemaVersion) + ": " + std::to_string(dropped) +
                         " values of keys this version no longer has were left out");
    }
  }
  // A facts file is input like any other: its types are the schema's and its step numbers
  // possible, or compare, gate and the reduce would compute on nonsense (a duration given as a
  // string read as 0, a 1 ns step).
  const std::vector<std::string> problems = validate_facts(f.doc, FactsSchema::builtin(), false);
  if (!problems.empty())
    throw LoadError::whole_file(
        path, "does not match the facts schema: " + problems.front() +
                  (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more)" : std::string()));
  if (auto bad = impossible_step_numbers(f.doc)) throw LoadError::whole_file(path, "impossible facts: " + *bad);
  return f;
}

}  // namespace npu
