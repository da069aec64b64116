#include "loaders/msprof/msprof_loader.h"

#include <algorithm>
#include <filesystem>
#include <regex>

#include "base/input_confinement.h"
#include "base/json_file.h"
#include "base/load_error.h"
#include "base/natural_order.h"
#include "loaders/common/input_files.h"
#include "loaders/db/db_export.h"
#include "loaders/torch_npu_text/ascend_files.h"

namespace npu {
namespace fs = std::filesystem;

namespace {

bool starts_with(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }
bool ends_with(const std::string& s, std::string_view x) {
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

std::vector<fs::path> list_dir(const fs::path& dir) { return list_input_dir(dir); }

void sort_natural(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    return natural_less(fs::path(a).filename().string(), fs::path(b).filename().string());
  });
}

// The CANN generation, from how op_summary is named (mstt profiling_data_version_config.yaml).
std::string cann_generation(const std::string& op_summary_name) {
  static const std::regex v8(R"(op_summary_\d{14}\.csv)"), v7(R"(op_summary_\d+_\d+_\d+_\d{14}\.csv)"),
      v63(R"(op_summary_\d+_\d+\.csv)");
  if (std::regex_match(op_summary_name, v8)) return "CANN 8.0+ file names";
  if (std::regex_match(op_summary_name, v7)) return "CANN 7.0 file names";
  if (std::regex_match(op_summary_name, v63)) return "CANN 6.3 file names";
  return "unrecognised file-name version";
}

// device_N/info.json.N: the device id (and rank id in newer CANN).
void load_device_info(const fs::path& root, RunModel& model) {
  for (const auto& dev : list_dir(root)) {
    std::string dn = dev.filename().string();
    if (!starts_with(dn, "device_") || !fs::is_directory(dev)) continue;
    for (const auto& f : list_dir(dev)) {
      std::string n = f.filename().string();
      if (!starts_with(n, "info.json.") || ends_with(n, ".done")) continue;
      uint16_t id = register_found(model, Role::DeviceInfo, f);
      if (model.files[id].status != InputFile::Status::Loaded) continue;
      nlohmann::json j = read_json_file(f.string());
      if (j.contains("rank_id") && j["rank_id"].is_number_integer()) {
        if (auto rank = json_small_id(j["rank_id"])) model.meta.rank = *rank;  // -1: none; huge: corrupt
        else if (j["rank_id"].get<int64_t>() != -1)
          model.stats.warnings.push_back(f.string() + ": rank_id " + j["rank_id"].dump() +
                                         " is out of range; rank unknown");
      }
      if (j.contains("devices") && j["devices"].is_string()) {
        try {
          model.meta.device = std::stoi(j["devices"].get<std::string>());
        } catch (...) {
        }
      }
      if (j.contains("version") && j["version"].is_string()) model.meta.versions["info.json"] = j["version"];
      return;
    }
  }
}

// msprof's CSVs by their name prefix, and the role each plays.
struct CsvRole {
  const char* prefix;
  Role role;
  uint64_t (*load)(const std::string&, RunModel&);
};

void load_mindstudio_output(const fs::path& out, RunModel& model, const LoadOptions& opt) {
  static const CsvRole kCsv[] = {
      {"op_summary_", Role::KernelDetails, load_kernel_details},
      {"op_statistic_", Role::OpStatistic, load_op_statistic},
      {"memory_record_", Role::MemoryRecord, load_memory_record},
      {"operator_memory_", Role::OperatorMemory, load_operator_memory},
      {"npu_module_mem_", Role::ModuleMemory, load_npu_module_mem},
  };
  std::vector<std::string> traces, slices, unread;
  std::vector<std::string> csv[std::size(kCsv)];
  for (const auto& p : list_dir(out)) {
    std::string n = p.filename().string();
    if (starts_with(n, "msprof_slice_") && ends_with(n, ".json")) slices.push_back(p.string());
    else if (starts_with(n, "msprof_") && ends_with(n, ".json")) traces.push_back(p.string());
    else {
      bool taken = false;
      for (size_t i = 0; i < std::size(kCsv); ++i)
        if (starts_with(n, kCsv[i].prefix) && ends_with(n, ".csv")) {
          csv[i].push_back(p.string());
          taken = true;
        }
      if (!taken && (ends_with(n, ".csv") || ends_with(n, ".json"))) unread.push_back(n);
    }
  }
  // A sliced export (large runs) replaces the single file; load every slice in order.
  std::vector<std::string> timeline = slices.empty() ? traces : slices;
  sort_natural(timeline);
  if (!slices.empty() && !traces.empty())
    model.stats.warnings.push_back(out.string() + ": both msprof_*.json and msprof_slice_*.json; using the slices");
  if (timeline.empty())
    note_missing(model, Role::Trace, "no msprof_*.json timeline: steps, dispatch and overlap checks");
  else load_trace_files(model, timeline, opt.trace);

  std::string generation;
  for (size_t i = 0; i < std::size(kCsv); ++i) {
    if (csv[i].empty()) {
      note_missing(model, kCsv[i].role, std::string("no ") + kCsv[i].prefix + "*.csv in mindstudio_profiler_output");
      continue;
    }
    sort_natural(csv[i]);
    if (csv[i].size() > 1)
      model.stats.warnings.push_back(out.string() + ": " + std::to_string(csv[i].size()) + " " + kCsv[i].prefix +
                                     "*.csv files; using " + fs::path(csv[i][0]).filename().string());
    uint16_t id = register_found(model, kCsv[i].role, csv[i][0]);
    model.files[id].note = fs::path(csv[i][0]).filename().string();
    if (model.files[id].status == InputFile::Status::Loaded) model.files[id].records = kCsv[i].load(csv[i][0], model);
    if (i == 0) generation = cann_generation(fs::path(csv[i][0]).filename().string());
  }
  model.meta.source_format = "msprof PROF_ text export" + (generation.empty() ? "" : " (" + generation + ")");
  // One timeline of the whole capture, whose Overlap Analysis segments are the steps' parts.
  model.meta.step_semantics = StepSemantics::CaptureSegments;
  if (!unread.empty()) {
    std::sort(unread.begin(), unread.end());
    std::string l;
    for (const auto& u : unread) l += (l.empty() ? "" : ", ") + u;
    model.stats.warnings.push_back(out.string() + ": present, not read by this version: " + l);
  }
}

// msprof's step trace writes one "Iteration N" span per training iteration (with FP_BP,
// Reduce, ... spans) on a "Step Trace" thread; CANN 6.x puts that thread inside the "Ascend
// Hardware" process, where its spans would pass for device tasks. Move such threads to a
// "Step Trace" process, and name the iterations ProfilerStep#N: the model's steps
// (RunModel::finalize).
size_t iterations_as_steps(RunModel& model) {
  size_t renamed = 0;
  const StrId step_process = model.strings.intern("Step Trace");
  std::vector<bool> step_track(model.tracks.size(), false);
  for (size_t t = 0; t < model.tracks.size(); ++t) {
    Track& tr = model.tracks[t];
    if (model.str(tr.thread_name).rfind("Step Trace", 0) == 0) tr.process_name = step_process;
    step_track[t] = tr.process_name == step_process;
  }
  for (auto& s : model.slices) {
    if (!step_track[s.track]) continue;
    std::string_view n = model.str(s.name);
    constexpr std::string_view kIter = "Iteration ";
    if (n.substr(0, kIter.size()) != kIter) continue;
    std::string id(n.substr(kIter.size()));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) continue;
    s.name = model.strings.intern("ProfilerStep#" + id);
    ++renamed;
  }
  return renamed;
}

// msprof records no framework; MindSpore names every operator by its graph scope
// ("Default/network-WithLossCell/...", "Gradients/Default/..."), which no PyTorch operator is
// named like. Runs before finalize(), so by name alone: enough scoped names, MindSpore.
void framework_from_operator_names(RunModel& model) {
  if (!model.meta.framework.empty()) return;
  size_t scoped = 0;
  for (const auto& s : model.slices) {
    std::string_view n = model.str(s.name);
    if (n.rfind("Default/", 0) == 0 || n.rfind("Gradients/", 0) == 0) ++scoped;
  }
  if (scoped >= 10 && scoped * 100 >= model.slices.size()) model.meta.framework = "mindspore";
}

}  // namespace

void load_msprof_folder(const std::string& folder, RunModel& model, const LoadOptions& opt) {
  fs::path root(folder);
  load_device_info(root, model);
  if (fs::is_directory(root / "mindstudio_profiler_output")) {
    load_mindstudio_output(root / "mindstudio_profiler_output", model, opt);
    return;
  }
  std::vector<std::string> dbs;
  for (const auto& p : list_dir(root)) {
    std::string n = p.filename().string();
    if (starts_with(n, "msprof_") && ends_with(n, ".db")) dbs.push_back(p.string());
  }
  if (!dbs.empty()) {
    sort_natural(dbs);
    // msprof's own database: its steps follow msprof's Overlap Analysis rule (docs/overlap.md).
    model.meta.source_format =
        "msprof PROF_ " + load_profiler_db(dbs[0], model, {"msprof DB", StepSemantics::MsprofTasks}).description;
    return;
  }
  // Older CANN (6.x): per-device, per-iteration timelines under device_N/timeline/.
  std::vector<std::string> timeline, step_trace, unread;
  for (const auto& dev : list_dir(root)) {
    if (!starts_with(dev.filename().string(), "device_") || !fs::is_directory(dev / "timeline")) continue;
    for (const auto& p : list_dir(dev / "timeline")) {
      std::string n = p.filename().string();
      if (starts_with(n, "msprof_") && ends_with(n, ".json")) timeline.push_back(p.string());
      else if (starts_with(n, "step_trace_") && ends_with(n, ".json")) step_trace.push_back(p.string());
      else unread.push_back(n);
    }
  }
  if (timeline.empty())
    throw LoadError::whole_file(folder,
                                "msprof PROF_ folder without exported data: looked for "
                                "mindstudio_profiler_output/, msprof_*.db and device_*/timeline/msprof_*.json "
                                "(run `msprof --export=on --output=" +
                                    folder + "` first)");
  sort_natural(timeline);
  sort_natural(step_trace);
  model.meta.source_format =
      "msprof PROF_ (CANN 6.x device_N/timeline layout, " + std::to_string(timeline.size()) + " iteration files)";
  load_trace_files(model, timeline, opt.trace);
  // Each iteration file holds its own Overlap Analysis, computed from that iteration's tasks:
  // the time between two iterations is in neither (docs/overlap.md).
  if (iterations_as_steps(model) > 0) model.meta.step_semantics = StepSemantics::MsprofTasks;
  framework_from_operator_names(model);
  if (!unread.empty() || !step_trace.empty())
    model.stats.warnings.push_back(folder + ": " + std::to_string(unread.size() + step_trace.size()) +
                                   " hccl_*/task_time_*/step_trace_* timeline files not read (msprof_*.json already "
                                   "holds their events)");
  for (Role role : {Role::KernelDetails, Role::StepTraceTime, Role::OpStatistic})
    note_missing(model, role, "not in the CANN 6.x timeline layout (export with a newer msprof for op_summary)");
}

}  // namespace npu
