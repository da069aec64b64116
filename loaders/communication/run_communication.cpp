#include "loaders/communication/run_communication.h"

#include "loaders/communication/analysis_db_tables.h"
#include "loaders/communication/communication_files.h"

namespace npu {

namespace {

InputFile* usable(RunModel& m, Role role) {
  for (auto& f : m.files)
    if (f.role_id == role && f.status == InputFile::Status::Loaded && !f.path.empty()) return &f;
  return nullptr;
}

void read_from_text_export(RunModel& m, InputFile* ops_file, InputFile* links_file) {
  auto& c = m.communication;
  if (ops_file) {
    c.ops = load_communication_ops(ops_file->path, m.meta.rank);
    c.ops_source = ops_file->path;
    ops_file->records = c.ops->size();
    ops_file->note.clear();
  }
  if (links_file) {
    c.links = load_communication_links(links_file->path);
    c.links_source = links_file->path;
    links_file->records = c.links->size();
    links_file->note.clear();
  }
}

// The SQLite export: analysis.db's CommAnalyzer* tables hold the same numbers. Links only with
// operators: a link table without its operators has nothing to be read against.
void read_from_analysis_db(RunModel& m, const std::string& analysis_db) {
  auto& c = m.communication;
  std::vector<CommOp> ops = load_comm_analyzer_ops(analysis_db, m.meta.rank);
  if (ops.empty()) return;
  c.ops = std::move(ops);
  c.ops_source = analysis_db + " (table CommAnalyzerTime)";
  std::vector<CommLink> links = load_comm_analyzer_links(analysis_db);
  if (links.empty()) return;
  c.links = std::move(links);
  c.links_source = analysis_db + " (table CommAnalyzerMatrix)";
}

}  // namespace

void load_communication_files(RunModel& model) {
  InputFile* ops_file = usable(model, Role::Communication);
  InputFile* links_file = usable(model, Role::CommunicationMatrix);
  if (ops_file || links_file) read_from_text_export(model, ops_file, links_file);
}

void load_communication_tables(RunModel& model) {
  const InputFile* step_trace = usable(model, Role::StepTraceTime);
  if (step_trace && step_trace->table == "StepTraceTime") read_from_analysis_db(model, step_trace->path);
}

}  // namespace npu
