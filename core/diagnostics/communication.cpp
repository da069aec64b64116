// "communication": the rank's communication.json (per operator: elapse / transit / wait /
// synchronisation time and bandwidth per transport) and communication_matrix.json (per link).
// Kept as records, not aggregated: the cluster analysis (core/cluster) compares the same
// operator across ranks, which needs each rank's per-operator numbers.
#include "core/diagnostics/diagnostics.h"
#include "loaders/analysis_db_comm_loader.h"
#include "loaders/communication_loader.h"

namespace npu {

void diagnose_communication(const DiagnosticContext& ctx, Facts& facts) {
  const RunModel& m = ctx.model;
  const InputFile* ops_file = m.file("communication.json");
  const InputFile* links_file = m.file("communication_matrix.json");
  auto usable = [](const InputFile* f) { return f && f->status == InputFile::Status::Loaded && !f->path.empty(); };
  // The SQLite export: analysis.db's CommAnalyzer* tables are the same numbers.
  const InputFile* analysis_db = m.file("step_trace_time.csv");
  if (!usable(ops_file) && !usable(links_file) && usable(analysis_db) && analysis_db->table == "StepTraceTime") {
    nlohmann::json ops = load_comm_analyzer_ops(analysis_db->path, m.meta.rank);
    if (!ops.empty()) {
      facts.doc["communication"] = {{"rank", m.meta.rank}, {"ops", std::move(ops)},
                                    {"ops_source", analysis_db->path + " (table CommAnalyzerTime)"}};
      facts.unavailable("communication.links", "analysis.db CommAnalyzerMatrix is not read yet: bandwidth per link");
      return;
    }
  }
  if (!usable(ops_file) && !usable(links_file)) {
    facts.unavailable("communication",
                      "no communication.json / communication_matrix.json (profiler_level Level1 or Level2, "
                      "several cards, text export)");
    return;
  }
  nlohmann::json c;
  c["rank"] = m.meta.rank;
  if (usable(ops_file)) {
    c["ops"] = load_communication_ops(ops_file->path, m.meta.rank);
    c["ops_source"] = ops_file->path;
  } else {
    facts.unavailable("communication.ops", "no communication.json: wait/transit times and bandwidth per operator");
  }
  if (usable(links_file)) {
    c["links"] = load_communication_links(links_file->path);
    c["links_source"] = links_file->path;
  } else {
    facts.unavailable("communication.links", "no communication_matrix.json: bandwidth per link");
  }
  facts.doc["communication"] = std::move(c);
}

}  // namespace npu
