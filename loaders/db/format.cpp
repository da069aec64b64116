#include "loaders/db/format.h"

#include <algorithm>

#include "base/input_confinement.h"
#include "loaders/common/ascend_layout.h"
#include "loaders/common/input_files.h"
#include "loaders/communication/run_communication.h"
#include "loaders/db/db_export.h"
#include "loaders/torch_npu_text/run_metadata.h"

namespace npu {
namespace fs = std::filesystem;

namespace {

// What the sniff found: the per-rank profiler database and analysis.db /
// communication_analyzer.db (either may be empty), and the run folder they belong to.
struct DbExport {
  std::string run_dir, output_dir, db_file, analysis_db;
};

bool is_analysis_db_name(const std::string& n) { return n == "analysis.db" || n == "communication_analyzer.db"; }

bool is_profiler_db_name(const std::string& n) {
  return n.ends_with(".db") && (n.starts_with("ascend_pytorch_profiler") ||
                                n.starts_with("ascend_mindspore_profiler") || n.starts_with("msprof"));
}

std::string framework_of_db(const std::string& file) {
  std::string n = file.empty() ? "" : fs::path(file).filename().string();
  return n.starts_with("ascend_mindspore_profiler") ? "mindspore"
         : n.starts_with("ascend_pytorch_profiler") ? "torch_npu"
                                                    : "";
}

// The databases of a folder: the (first, sorted) per-rank profiler DB and analysis.db.
bool find_db_export(const fs::path& dir, DbExport& x) {
  std::error_code ec;
  std::vector<std::string> dbs;
  for (const auto& e : list_input_dir(dir)) {
    std::string n = e.filename().string();
    if (!fs::is_regular_file(e, ec)) continue;
    if (is_profiler_db_name(n)) dbs.push_back(e.string());
    else if (is_analysis_db_name(n) && x.analysis_db.empty()) x.analysis_db = e.string();
  }
  std::sort(dbs.begin(), dbs.end());
  if (!dbs.empty()) x.db_file = dbs[0];
  return !dbs.empty() || !x.analysis_db.empty();
}

Sniff found(int confidence, std::string reason, std::string framework, DbExport x) {
  Sniff s;
  s.confidence = confidence;
  s.reason = std::move(reason);
  s.found.framework = std::move(framework);
  for (const auto& f : {x.db_file, x.analysis_db})
    if (!f.empty()) s.found.files.push_back(f);
  s.found.found = std::move(x);
  return s;
}

Sniff sniff(const fs::path& p) {
  DbExport x;
  if (fs::is_regular_file(p)) {
    std::string n = p.filename().string();
    if (!n.ends_with(".db")) return {};
    (is_analysis_db_name(n) ? x.analysis_db : x.db_file) = p.string();
    return found(confidence::kLayout, "SQLite profiler export " + n, framework_of_db(p.string()), std::move(x));
  }
  if (std::optional<AscendOutput> o = find_ascend_output(p)) {
    if (has_export_files(o->out) || !find_db_export(o->out, x)) return {};
    std::string framework = o->run.empty() ? "" : framework_of_run_folder(o->run);
    if (framework.empty() && !x.db_file.empty())
      framework = fs::path(x.db_file).filename().string().starts_with("ascend_mindspore") ? "mindspore" : "torch_npu";
    std::string reason =
        std::string(framework == "mindspore" ? "MindSpore" : "torch_npu") + " run folder (SQLite export) " + o->where();
    x.run_dir = o->run.string();
    x.output_dir = o->out.string();
    return found(confidence::kLayout, std::move(reason), std::move(framework), std::move(x));
  }
  // A folder holding a profiler database on its own, or a MindSpore job folder holding its
  // profiler/ folder: what a user points at.
  if (!find_db_export(p, x)) return {};
  x.output_dir = p.string();
  std::string framework = framework_of_db(x.db_file);
  return found(confidence::kLooseFiles, "SQLite profiler export in " + p.string(), std::move(framework), std::move(x));
}

// The per-rank profiler database, analysis.db, and the run folder's metadata.
void load(const Detection& d, RunModel& model, const LoadOptions&) {
  const auto& x = std::any_cast<const DbExport&>(d.found);
  model.meta.framework = d.framework;
  load_run_metadata(x.run_dir, x.output_dir, model);
  if (!x.db_file.empty()) {
    model.meta.source_format = load_profiler_db(x.db_file, model, db_producer(x.db_file)).description;
  } else {
    model.meta.source_format = "analysis DB";
    note_missing(model, Role::Database,
                 "no ascend_pytorch_profiler*.db / ascend_mindspore_profiler*.db / msprof_*.db: "
                 "no timeline, operators or memory");
  }
  if (!x.analysis_db.empty()) load_analysis_db(x.analysis_db, model);
  else if (!model.file(Role::StepTraceTime))
    note_missing(model, Role::StepTraceTime, "no analysis.db: the profiler's own per-step breakdown (cross-check)");
}

}  // namespace

DbProducer db_producer(const std::string& db_file) {
  const std::string n = fs::path(db_file).filename().string();
  if (n.starts_with("ascend_pytorch_profiler")) return {"torch_npu DB export", StepSemantics::StepTasks};
  if (n.starts_with("ascend_mindspore_profiler")) return {"MindSpore DB export", StepSemantics::StepTasks};
  if (n.starts_with("msprof")) return {"msprof DB", StepSemantics::MsprofTasks};
  return {"profiler DB", StepSemantics::StepTasks};
}

InputFormat sqlite_format() {
  return {"sqlite", "SQLite export", sniff, load,
          [](const Detection&, RunModel& model) { load_communication_tables(model); }};
}

}  // namespace npu
