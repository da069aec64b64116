#include "loaders/detect.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/load_error.h"
#include "loaders/common/csv_table.h"

namespace npu {
namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

constexpr const char* kOutput = "ASCEND_PROFILER_OUTPUT";

// Files that mark a folder as holding a torch_npu / MindSpore text export.
bool has_export_files(const fs::path& dir) {
  for (const char* f : {"trace_view.json", "kernel_details.csv", "step_trace_time.csv", "op_statistic.csv"})
    if (fs::is_regular_file(dir / f)) return true;
  return false;
}

bool has_profiler_info(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (starts_with(n, "profiler_info") && ends_with(n, ".json")) return true;
  }
  return false;
}

bool is_analysis_db_name(const std::string& n) { return n == "analysis.db" || n == "communication_analyzer.db"; }

bool is_profiler_db_name(const std::string& n) {
  return ends_with(n, ".db") && (starts_with(n, "ascend_pytorch_profiler") ||
                                 starts_with(n, "ascend_mindspore_profiler") || starts_with(n, "msprof"));
}

// The databases of a Db export folder: the (first, sorted) per-rank profiler DB and analysis.db.
bool find_db_export(const fs::path& dir, std::string* profiler_db, std::string* analysis_db) {
  std::error_code ec;
  std::vector<std::string> dbs;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (!e.is_regular_file()) continue;
    if (is_profiler_db_name(n)) dbs.push_back(e.path().string());
    else if (is_analysis_db_name(n) && analysis_db->empty()) *analysis_db = e.path().string();
  }
  std::sort(dbs.begin(), dbs.end());
  if (!dbs.empty()) *profiler_db = dbs[0];
  return !dbs.empty() || !analysis_db->empty();
}

// MindSpore 1.x / 2.0 (MindInsight era) wrote everything flat into one profiler/ folder.
bool is_mindspore_legacy(const fs::path& dir, std::string* timeline) {
  std::error_code ec;
  bool legacy = false;
  std::vector<std::string> timelines;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (starts_with(n, "ascend_timeline_display_") && ends_with(n, ".json")) timelines.push_back(e.path().string());
    if (starts_with(n, "output_format_data_hwts_") || starts_with(n, "framework_raw_") ||
        starts_with(n, "step_trace_raw_") || starts_with(n, "hccl_raw_") ||
        starts_with(n, "ascend_timeline_display_") || starts_with(n, "minddata_pipeline_raw_"))
      legacy = true;
  }
  std::sort(timelines.begin(), timelines.end());
  if (!timelines.empty()) *timeline = timelines[0];
  return legacy;
}

std::string framework_of(const fs::path& run_dir) {
  std::string n = run_dir.filename().string();
  if (ends_with(n, "_ascend_ms")) return "mindspore";
  if (ends_with(n, "_ascend_pt")) return "torch_npu";
  return "";
}

// A rank folder: something that is itself a run.
bool is_run_folder(const fs::path& dir) {
  return fs::is_directory(dir / kOutput) || ends_with(dir.filename().string(), "_ascend_pt") ||
         ends_with(dir.filename().string(), "_ascend_ms");
}

bool is_trace_name(const std::string& n) {
  return ends_with(n, ".pt.trace.json") || ends_with(n, ".pt.trace.json.gz") || ends_with(n, ".json.gz") ||
         ends_with(n, ".json");
}

}  // namespace

Detection detect_input(const std::string& path) {
  Detection d;
  d.path = path;
  std::error_code ec;
  fs::path p(path);
  if (!fs::exists(p, ec)) throw LoadError::whole_file(path, "no such file or folder");

  if (fs::is_regular_file(p)) {
    std::string n = p.filename().string();
    if (ends_with(n, ".db")) {
      d.kind = InputKind::AscendDb;
      if (is_analysis_db_name(n)) d.analysis_db = path;
      else d.db_file = path;
      d.framework = starts_with(n, "ascend_mindspore_profiler") ? "mindspore"
                    : starts_with(n, "ascend_pytorch_profiler") ? "torch_npu"
                                                                : "";
      d.description = "SQLite profiler export " + n;
      return d;
    }
    if (ends_with(n, ".csv")) {
      // A lone CSV: recognise it by its header, whatever its name.
      CsvTable t(path);
      auto has = [&](std::initializer_list<std::string_view> names) { return t.col(names) >= 0; };
      if (has({"Name", "Op Name"}) && has({"Start Time(us)", "Task Start Time(us)"}) &&
          has({"Duration(us)", "Task Duration(us)"}))
        d.single_role = "kernel_details.csv";
      else if (has({"Computing"}) && has({"Free"})) d.single_role = "step_trace_time.csv";
      else if (has({"OP Type"}) && has({"Count"}) && has({"Total Time(us)"})) d.single_role = "op_statistic.csv";
      else if (has({"Component"}) && has({"Timestamp(us)"}) && has({"Total Allocated(MB)", "Total Allocated(KB)"}))
        d.single_role = "memory_record.csv";
      else if (has({"Name"}) && has({"Size(KB)"}) && has({"Allocation Time(us)"}))
        d.single_role = "operator_memory.csv";
      else
        throw LoadError::at_line(path, 1,
                                 "a CSV this tool does not recognise (not kernel_details, op_summary, "
                                 "step_trace_time, op_statistic or a memory CSV by its header)");
      d.kind = InputKind::AscendRun;
      d.single_file = path;
      d.output_dir = p.parent_path().string();
      d.framework = "torch_npu";
      d.description = "lone " + d.single_role + " (" + n + ")";
      return d;
    }
    d.kind = InputKind::TraceFile;
    d.trace_file = path;
    d.description = "trace file " + n;
    return d;
  }
  if (!fs::is_directory(p)) throw LoadError::whole_file(path, "neither a regular file nor a folder");

  // A run folder, or the ASCEND_PROFILER_OUTPUT inside one.
  fs::path run, out;
  if (fs::is_directory(p / kOutput)) {
    run = p;
    out = p / kOutput;
  } else if (p.filename() == kOutput || has_export_files(p)) {
    out = p;
    fs::path parent = fs::absolute(p, ec).parent_path();
    if (p.filename() == kOutput || has_profiler_info(parent)) run = parent;
  }
  if (!out.empty()) {
    if (!has_export_files(out) && find_db_export(out, &d.db_file, &d.analysis_db)) {
      d.kind = InputKind::AscendDb;
      d.run_dir = run.string();
      d.output_dir = out.string();
      d.framework = run.empty() ? "" : framework_of(run);
      if (d.framework.empty() && !d.db_file.empty())
        d.framework =
            fs::path(d.db_file).filename().string().rfind("ascend_mindspore", 0) == 0 ? "mindspore" : "torch_npu";
      d.description = std::string(d.framework == "mindspore" ? "MindSpore" : "torch_npu") +
                      " run folder (SQLite export) " + (run.empty() ? out.string() : run.string());
      return d;
    }
    d.kind = InputKind::AscendRun;
    d.run_dir = run.string();
    d.output_dir = out.string();
    d.framework = run.empty() ? "" : framework_of(run);
    if (d.framework.empty()) d.framework = "torch_npu";
    d.description = (d.framework == "mindspore" ? "MindSpore" : "torch_npu") + std::string(" run folder ") +
                    (run.empty() ? out.string() : run.string());
    return d;
  }

  // One msprof PROF_ folder.
  if (starts_with(p.filename().string(), "PROF_") || starts_with(fs::absolute(p, ec).filename().string(), "PROF_")) {
    d.kind = InputKind::MsprofFolder;
    d.output_dir = p.string();
    d.description = "msprof PROF_ folder " + p.string();
    return d;
  }
  // A MindSpore legacy profiler/ folder.
  if (std::string timeline; is_mindspore_legacy(p, &timeline)) {
    d.kind = InputKind::MindSporeLegacy;
    d.output_dir = p.string();
    d.trace_file = timeline;
    d.framework = "mindspore";
    d.description = "MindSpore legacy profiler folder " + p.string();
    return d;
  }

  // A parent of several runs (a cluster), PROF_ folders, or Kineto traces.
  std::vector<std::string> runs, profs, traces, legacy;
  for (const auto& e : fs::directory_iterator(p, ec)) {
    std::string n = e.path().filename().string();
    if (e.is_directory()) {
      std::string timeline;
      if (is_run_folder(e.path())) runs.push_back(e.path().string());
      else if (starts_with(n, "PROF_")) profs.push_back(e.path().string());
      else if (is_mindspore_legacy(e.path(), &timeline)) legacy.push_back(e.path().string());
    } else if (e.is_regular_file() && is_trace_name(n)) {
      traces.push_back(e.path().string());
    }
  }
  std::sort(runs.begin(), runs.end());
  std::sort(profs.begin(), profs.end());
  std::sort(traces.begin(), traces.end());
  if (runs.size() >= 2) {
    d.kind = InputKind::Cluster;
    d.members = runs;
    d.description = "cluster of " + std::to_string(runs.size()) + " rank folders";
    return d;
  }
  if (runs.size() == 1) return detect_input(runs[0]);
  // msprof-analyze's cluster_analysis_output/ (or a folder holding only it): the profiler's own
  // cluster analysis, read as the cluster's reference (loaders/cluster_reference_loader.cpp).
  if (runs.empty() &&
      (fs::is_regular_file(p / "cluster_step_trace_time.csv") ||
       fs::is_regular_file(p / "cluster_communication.json") || fs::is_directory(p / "cluster_analysis_output"))) {
    d.kind = InputKind::Cluster;
    d.description = "msprof-analyze cluster_analysis_output (the profiler's cluster analysis, no rank folders)";
    return d;
  }
  if (profs.size() >= 2) {
    d.kind = InputKind::Cluster;
    d.members = profs;
    d.description = "cluster of " + std::to_string(profs.size()) + " msprof PROF_ folders";
    return d;
  }
  if (profs.size() == 1) return detect_input(profs[0]);
  if (traces.size() == 1) return detect_input(traces[0]);
  if (traces.size() >= 2) {
    d.kind = InputKind::Cluster;
    d.members = traces;
    d.description = "cluster of " + std::to_string(traces.size()) + " trace files";
    return d;
  }
  // A folder holding a profiler database (msprof_0.db, ascend_pytorch_profiler_0.db) on its
  // own, or a MindSpore job folder holding its profiler/ folder: what a user points at.
  if (find_db_export(p, &d.db_file, &d.analysis_db)) {
    d.kind = InputKind::AscendDb;
    d.output_dir = p.string();
    std::string n = d.db_file.empty() ? "" : fs::path(d.db_file).filename().string();
    d.framework = starts_with(n, "ascend_mindspore_profiler") ? "mindspore"
                  : starts_with(n, "ascend_pytorch_profiler") ? "torch_npu"
                                                              : "";
    d.description = "SQLite profiler export in " + p.string();
    return d;
  }
  if (legacy.size() == 1) return detect_input(legacy[0]);
  throw LoadError::whole_file(path,
                              "not a profiler output: looked for ASCEND_PROFILER_OUTPUT/, trace_view.json, "
                              "kernel_details.csv, step_trace_time.csv, *_ascend_pt / *_ascend_ms rank folders, "
                              "PROF_* folders, *.db exports and *.json / *.pt.trace.json[.gz] traces");
}

}  // namespace npu
