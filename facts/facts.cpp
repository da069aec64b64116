#include "facts/facts.h"

#include "base/json_file.h"
#include "base/json_object.h"
#include "base/load_error.h"

namespace npu {

void Facts::unavailable(std::string_view fact, std::string_view why) {
  auto& list = doc["unavailable"];
  if (!list.is_array()) list = nlohmann::json::array();
  for (const auto& u : list)
    if (u["fact"] == fact) return;
  list.push_back({{"fact", fact}, {"why", why}});
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

nlohmann::json evidence_row(const RunModel& m, std::string_view role, uint32_t line, std::string_view what) {
  const InputFile* f = m.file(role);
  if (f && !f->table.empty()) {
    // A database role: the "line" is the rowid in the first table the role names.
    std::string table = f->table.substr(0, f->table.find('+'));
    return {{"file", f->path}, {"table", table}, {"rowid", line}, {"what", what}};
  }
  return {{"file", f ? f->path : std::string(role)}, {"line", line}, {"what", what}};
}

nlohmann::json evidence_file(const RunModel& m, std::string_view role, std::string_view what) {
  const InputFile* f = m.file(role);
  return {{"file", f ? f->path : std::string(role)}, {"what", what}};
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

Facts read_facts(const std::string& path) { return facts_from_json(read_json_file(path), path); }

Facts facts_from_json(nlohmann::json doc, const std::string& path) {
  Facts f;
  f.doc = std::move(doc);
  if (!f.doc.is_object() || f.doc.value("schema", "") != kFactsSchema)
    throw LoadError::whole_file(path, "not an npu-advisor facts file (no \"schema\": \"npu-advisor.facts\")");
  int v = f.doc.value("schema_version", 0);
  if (v < 1 || v > kFactsSchemaVersion)
    throw LoadError::whole_file(path, "facts schema_version " + std::to_string(v) +
                                          " is not supported (this build reads 1.." +
                                          std::to_string(kFactsSchemaVersion) + ")");
  return f;
}

}  // namespace npu
