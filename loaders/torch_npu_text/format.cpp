#include "loaders/torch_npu_text/format.h"

#include "base/load_error.h"
#include "loaders/common/ascend_layout.h"
#include "loaders/common/csv_table.h"
#include "loaders/common/input_files.h"
#include "loaders/common/step_trace_columns.h"
#include "loaders/common/trace_file.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "loaders/torch_npu_text/run_metadata.h"

namespace npu {
namespace fs = std::filesystem;

namespace {

// What the sniff found: the run folder and its output folder, or one lone CSV.
struct TextExport {
  std::string run_dir;      // holds profiler_info*.json; may be empty
  std::string output_dir;   // ASCEND_PROFILER_OUTPUT (or the folder holding the files)
  std::string single_file;  // a lone CSV, and the file it stands for ("kernel_details.csv")
  std::string single_role;
};

// The files of an ASCEND_PROFILER_OUTPUT folder, what reads them, and what is lost
// without them (shown by `inspect` and in the report's skipped checks).
struct FileRole {
  const char* name;
  uint64_t (*load)(const std::string&, RunModel&);  // null: found but not read here
  const char* needed_for;
};

constexpr FileRole kOutputRoles[] = {
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

// A lone CSV: recognised by its header, whatever its name.
std::string lone_csv_role(const std::string& path) {
  CsvTable t(path);
  auto has = [&](std::initializer_list<std::string_view> names) { return t.col(names) >= 0; };
  if (has({"Name", "Op Name"}) && has({"Start Time(us)", "Task Start Time(us)"}) &&
      has({"Duration(us)", "Task Duration(us)"}))
    return "kernel_details.csv";
  using step_trace_columns::csv_of;
  if (has({csv_of(&StepTraceRow::computing)}) && has({csv_of(&StepTraceRow::free)})) return "step_trace_time.csv";
  if (has({"OP Type"}) && has({"Count"}) && has({"Total Time(us)"})) return "op_statistic.csv";
  if (has({"Component"}) && has({"Timestamp(us)"}) && has({"Total Allocated(MB)", "Total Allocated(KB)"}))
    return "memory_record.csv";
  if (has({"Name"}) && has({"Size(KB)"}) && has({"Allocation Time(us)"})) return "operator_memory.csv";
  throw LoadError::at_line(path, 1,
                           "a CSV this tool does not recognise (not kernel_details, op_summary, "
                           "step_trace_time, op_statistic or a memory CSV by its header)");
}

Sniff sniff(const fs::path& p) {
  Sniff s;
  if (fs::is_regular_file(p)) {
    if (!p.filename().string().ends_with(".csv")) return s;
    TextExport t{"", p.parent_path().string(), p.string(), lone_csv_role(p.string())};
    s.confidence = confidence::kLayout;
    s.reason = "lone " + t.single_role + " (" + p.filename().string() + ")";
    s.found.framework = "torch_npu";
    s.found.files = {t.single_file};
    s.found.found = std::move(t);
    return s;
  }
  std::optional<AscendOutput> o = find_ascend_output(p);
  if (!o) return s;
  // An output folder without its text files is a SQLite export's when it holds databases
  // (confidence::kLayout there); otherwise it is this run, partial.
  s.confidence = has_export_files(o->out) ? confidence::kLayout : confidence::kLayout - 5;
  s.found.framework = o->run.empty() ? "" : framework_of_run_folder(o->run);
  if (s.found.framework.empty()) s.found.framework = "torch_npu";
  s.reason = (s.found.framework == "mindspore" ? "MindSpore" : "torch_npu") + std::string(" run folder ") + o->where();
  s.found.found = TextExport{o->run.string(), o->out.string(), "", ""};
  return s;
}

void load_output_file(const FileRole& role, const fs::path& p, RunModel& model, const LoadOptions& opt) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) {
    note_missing(model, role.name, role.needed_for);
    // There but not a file (a FIFO, a folder, a link to a device or to nothing): the run is
    // partial, not a run without that file.
    if (fs::exists(fs::symlink_status(p, ec)))
      model.stats.reject(p.string() + ": not a regular file (a folder, FIFO, device or broken link): not read; " +
                         role.needed_for + " unavailable");
    return;
  }
  if (fs::file_size(p, ec) == 0 && !ec) {
    // An empty file where the profiler writes one: the export broke, the run is partial.
    uint16_t id = register_found(model, role.name, p);
    model.files[id].note = std::string("file is empty: ") + role.needed_for + " unavailable";
    model.stats.reject(p.string() + ": file is empty (0 bytes): " + role.needed_for + " unavailable");
    return;
  }
  if (std::string(role.name) == "trace_view.json") {
    load_trace_file(model, role.name, p, opt);
    return;
  }
  uint16_t id = register_found(model, role.name, p);
  if (role.load) model.files[id].records = role.load(p.string(), model);
  else model.files[id].note = "present; not read by this version";
}

void load(const Detection& d, RunModel& model, const LoadOptions& opt) {
  const auto& t = std::any_cast<const TextExport&>(d.found);
  model.meta.framework = d.framework;
  model.meta.source_format = "ascend text export";
  if (!t.single_file.empty()) {
    // One lone CSV: load just that file in the role its header revealed.
    for (const auto& role : kOutputRoles) {
      if (t.single_role != role.name || !role.load) continue;
      uint16_t id = register_found(model, role.name, t.single_file);
      model.files[id].records = role.load(t.single_file, model);
    }
    return;
  }
  load_run_metadata(t.run_dir, t.output_dir, model);
  for (const auto& role : kOutputRoles) load_output_file(role, fs::path(t.output_dir) / role.name, model, opt);
}

}  // namespace

InputFormat torch_npu_text_format() {
  return {"torch_npu_text", "ascend run folder", sniff, load,
          [](const Detection&, RunModel& model) { framework_from_tracks(model); }};
}

}  // namespace npu
