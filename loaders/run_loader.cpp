#include "loaders/run_loader.h"

#include <filesystem>
#include <functional>

#include "base/json_file.h"
#include "base/load_error.h"
#include "base/text.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "loaders/db/db_export.h"
#include "loaders/hccl_task_args.h"
#include "loaders/common/input_files.h"
#include "loaders/msprof/msprof_loader.h"
#include "loaders/run_communication.h"

namespace npu {
namespace fs = std::filesystem;

namespace {

// The files of an ASCEND_PROFILER_OUTPUT folder, what reads them, and what is lost
// without them (shown by `inspect` and in the report's skipped checks).
struct FileRole {
  const char* name;
  std::function<uint64_t(const std::string&, RunModel&)> load;  // null: found but not read yet
  const char* needed_for;
};

const std::vector<FileRole>& output_roles() {
  static const std::vector<FileRole> roles = {
      {"trace_view.json", nullptr, "steps, host dispatch (H2D flows), host operators, the profiler's overlap analysis"},
      {"kernel_details.csv", load_kernel_details, "device operators: top-N, AI CPU, dynamic shapes, block dim, PMU"},
      {"step_trace_time.csv", load_step_trace_time, "the profiler's own per-step breakdown (cross-check)"},
      {"op_statistic.csv", load_op_statistic, "per-type operator totals (cross-check)"},
      {"memory_record.csv", load_memory_record, "memory peaks over time (profile_memory=True)"},
      {"operator_memory.csv", load_operator_memory, "per-operator allocations (profile_memory=True)"},
      {"npu_module_mem.csv", load_npu_module_mem, "memory by CANN module"},
      {"communication.json", nullptr, "communication time and bandwidth per operator (Level1+, multi-card)"},
      {"communication_matrix.json", nullptr, "link bandwidth between ranks"},
  };
  return roles;
}

void load_trace(RunModel& model, const std::string& role, const fs::path& p, const LoadOptions& opt) {
  TraceLoadResult r = load_trace_files(model, role, {p.string()}, opt.trace);
  if (r.object_form) {
    if (model.meta.framework.empty()) model.meta.framework = "pytorch";
    const auto& top = r.top_level;
    if (top.contains("distributedInfo") && top["distributedInfo"].is_object()) {
      const auto& di = top["distributedInfo"];
      if (di.contains("rank")) {
        if (auto rank = json_small_id(di["rank"])) model.meta.rank = *rank;
        else
          model.stats.warnings.push_back(p.string() + ": distributedInfo.rank " + json_scalar_text(di["rank"]) +
                                         " is not a rank (0.." + std::to_string(INT32_MAX) + "); rank unknown");
      }
      for (auto& [k, v] : di.items()) model.meta.distributed[text::clip(k)] = json_scalar_text(v);
    }
    // The GPU's name (Kineto deviceProperties): the what-if replay's default copy bandwidth.
    if (const auto dp = top.find("deviceProperties"); dp != top.end() && dp->is_array())
      for (const auto& d : *dp)
        if (d.is_object() && d.contains("name") && d["name"].is_string()) {
          model.meta.config["gpu_name"] = d["name"].get<std::string>();
          break;
        }
    for (const char* k : {"schemaVersion", "displayTimeUnit", "trace_id"})
      if (top.contains(k)) model.meta.config[k] = json_scalar_text(top[k]);
  }
}

// profiler_info*.json and profiler_metadata.json sit in the run folder (older exports
// sometimes put them next to the CSVs); text and DB exports both have them.
void load_run_metadata(const Detection& d, RunModel& model) {
  std::vector<fs::path> info_dirs;
  if (!d.run_dir.empty()) info_dirs.push_back(d.run_dir);
  if (!d.output_dir.empty()) info_dirs.push_back(d.output_dir);
  fs::path info, metadata;
  for (const auto& dir : info_dirs) {
    std::error_code ec;
    std::vector<fs::path> infos;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      std::string n = e.path().filename().string();
      if (n.rfind("profiler_info", 0) == 0 && n.size() > 5 && n.substr(n.size() - 5) == ".json")
        infos.push_back(e.path());
      if (n == "profiler_metadata.json" && metadata.empty()) metadata = e.path();
    }
    std::sort(infos.begin(), infos.end());
    if (!infos.empty() && info.empty()) {
      info = infos[0];
      if (infos.size() > 1)
        model.stats.warnings.push_back(dir.string() + ": " + std::to_string(infos.size()) +
                                       " profiler_info*.json files; using " + info.filename().string());
    }
  }
  if (!info.empty()) {
    uint16_t id = register_found(model, "profiler_info.json", info);
    if (model.files[id].status == InputFile::Status::Loaded) load_profiler_info(info.string(), model);
  } else {
    note_missing(model, "profiler_info.json", "rank id, profiler level and capture options are unknown");
  }
  if (!metadata.empty()) {
    uint16_t id = register_found(model, "profiler_metadata.json", metadata);
    if (model.files[id].status == InputFile::Status::Loaded) load_profiler_metadata(metadata.string(), model);
  } else {
    note_missing(model, "profiler_metadata.json", "environment variables (TASK_QUEUE_ENABLE, ...) cannot be checked");
  }
}

void load_ascend_run(const Detection& d, RunModel& model, const LoadOptions& opt) {
  model.meta.framework = d.framework;
  model.meta.source_format = "ascend text export";
  if (!d.single_file.empty()) {
    // One lone CSV: load just that file in the role its header revealed.
    for (const auto& role : output_roles()) {
      if (d.single_role != role.name || !role.load) continue;
      uint16_t id = register_found(model, role.name, d.single_file);
      model.files[id].records = role.load(d.single_file, model);
    }
    return;
  }
  fs::path out(d.output_dir);
  load_run_metadata(d, model);

  for (const auto& role : output_roles()) {
    fs::path p = out / role.name;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) {
      note_missing(model, role.name, role.needed_for);
      // There but not a file (a FIFO, a folder, a link to a device or to nothing): the run is
      // partial, not a run without that file.
      if (fs::exists(fs::symlink_status(p, ec)))
        model.stats.reject(p.string() + ": not a regular file (a folder, FIFO, device or broken link): not read; " +
                           role.needed_for + " unavailable");
      continue;
    }
    if (fs::file_size(p, ec) == 0 && !ec) {
      // An empty file where the profiler writes one: the export broke, the run is partial.
      uint16_t id = register_found(model, role.name, p);
      model.files[id].note = std::string("file is empty: ") + role.needed_for + " unavailable";
      model.stats.reject(p.string() + ": file is empty (0 bytes): " + role.needed_for + " unavailable");
      continue;
    }
    if (std::string(role.name) == "trace_view.json") {
      load_trace(model, role.name, p, opt);
      continue;
    }
    uint16_t id = register_found(model, role.name, p);
    if (role.load) {
      model.files[id].records = role.load(p.string(), model);
    } else {
      model.files[id].note = "present; not read by this version";
    }
  }
}

// A Db export: the per-rank profiler database, analysis.db, and the run folder's metadata.
void load_db_run(const Detection& d, RunModel& model) {
  model.meta.framework = d.framework;
  load_run_metadata(d, model);
  if (!d.db_file.empty()) {
    model.meta.source_format = load_profiler_db(d.db_file, model).description;
  } else {
    model.meta.source_format = "analysis DB";
    note_missing(model, "profiler.db",
                 "no ascend_pytorch_profiler*.db / ascend_mindspore_profiler*.db / msprof_*.db: "
                 "no timeline, operators or memory");
  }
  if (!d.analysis_db.empty()) load_analysis_db(d.analysis_db, model);
  else if (!model.file("step_trace_time.csv"))
    note_missing(model, "step_trace_time.csv", "no analysis.db: the profiler's own per-step breakdown (cross-check)");
}

}  // namespace

RunModel load_run(const Detection& d, const LoadOptions& opt) {
  RunModel model;
  switch (d.kind) {
    case InputKind::AscendRun: load_ascend_run(d, model, opt); break;
    case InputKind::TraceFile: {
      // The file named on the command line is all there is: empty is an error, not a run
      // with no findings (exit 0).
      std::error_code ec;
      if (fs::is_regular_file(d.trace_file, ec) && fs::file_size(d.trace_file, ec) == 0 && !ec)
        throw LoadError::whole_file(d.trace_file, "file is empty (0 bytes)");
      model.meta.source_format = "trace file";
      load_trace(model, fs::path(d.trace_file).filename().string(), d.trace_file, opt);
      break;
    }
    case InputKind::Cluster: throw LoadError::whole_file(d.path, "is a cluster: load each member on its own");
    case InputKind::AscendDb: load_db_run(d, model); break;
    case InputKind::MsprofFolder: load_msprof_folder(d, model, opt); break;
    case InputKind::MindSporeLegacy: load_mindspore_legacy(d, model, opt); break;
  }
  model.finalize();
  load_hccl_task_args(model);  // needs the final slice order
  load_run_communication(d, model);
  if (model.meta.framework.empty() && (d.kind == InputKind::AscendRun || d.kind == InputKind::TraceFile)) {
    for (const auto& t : model.tracks)
      if (t.kind == TrackKind::Device || t.kind == TrackKind::HostCANN) {
        model.meta.framework = "torch_npu";
        break;
      }
  }
  return model;
}

}  // namespace npu
