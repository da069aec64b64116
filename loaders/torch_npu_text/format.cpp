#include "loaders/torch_npu_text/format.h"

#include <algorithm>
#include <span>

#include "base/load_error.h"
#include "loaders/common/ascend_layout.h"
#include "loaders/common/csv_table.h"
#include "loaders/common/input_files.h"
#include "loaders/common/step_trace_columns.h"
#include "loaders/common/trace_file.h"
#include "loaders/communication/run_communication.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "loaders/torch_npu_text/csv_columns.h"
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

// The files of an ASCEND_PROFILER_OUTPUT folder, the role each plays (model/role.h), what
// reads them, and what is lost without them (shown by `inspect` and in the report's skipped
// checks). This table is the one place that says which torch_npu file is which role.
struct FileRole {
  const char* name;
  Role role;
  uint64_t (*load)(const std::string&, RunModel&);  // null: found but not read here
  const char* needed_for;
};

constexpr FileRole kOutputRoles[] = {
    {"trace_view.json", Role::Trace, nullptr,
     "steps, host dispatch (H2D flows), host operators, the profiler's overlap analysis"},
    {"kernel_details.csv", Role::KernelDetails, load_kernel_details,
     "device operators: top-N, AI CPU, dynamic shapes, block dim, PMU"},
    {"step_trace_time.csv", Role::StepTraceTime, load_step_trace_time,
     "the profiler's own per-step breakdown (cross-check)"},
    {"op_statistic.csv", Role::OpStatistic, load_op_statistic, "per-type operator totals (cross-check)"},
    {"memory_record.csv", Role::MemoryRecord, load_memory_record, "memory peaks over time (profile_memory=True)"},
    {"operator_memory.csv", Role::OperatorMemory, load_operator_memory,
     "per-operator allocations (profile_memory=True)"},
    {"npu_module_mem.csv", Role::ModuleMemory, load_npu_module_mem, "memory by CANN module"},
    {"communication.json", Role::Communication, nullptr,
     "communication time and bandwidth per operator (Level1+, multi-card)"},
    {"communication_matrix.json", Role::CommunicationMatrix, nullptr, "link bandwidth between ranks"},
};

// The CSVs a lone file can be, and the columns that recognise each: the lists their loaders
// read (csv_columns.h, step_trace_columns.h), in the order they are tried.
struct LoneCsv {
  const char* name;
  std::span<const csv_columns::Aliases> signature;
};
constexpr std::string_view kStepComputing[] = {step_trace_columns::csv_of(&StepTraceRow::computing)};
constexpr std::string_view kStepFree[] = {step_trace_columns::csv_of(&StepTraceRow::free)};
constexpr csv_columns::Aliases kStepSignature[] = {kStepComputing, kStepFree};
constexpr LoneCsv kLoneCsvs[] = {
    {"kernel_details.csv", csv_columns::kernel_details::kSignature},
    {"step_trace_time.csv", kStepSignature},
    {"op_statistic.csv", csv_columns::op_statistic::kSignature},
    {"memory_record.csv", csv_columns::memory_record::kSignature},
    {"operator_memory.csv", csv_columns::operator_memory::kSignature},
};

// A lone CSV: recognised by its header, whatever its name.
std::string lone_csv_role(const std::string& path) {
  CsvTable t(path);
  for (const LoneCsv& csv : kLoneCsvs)
    if (std::all_of(csv.signature.begin(), csv.signature.end(), [&](csv_columns::Aliases a) { return t.col(a) >= 0; }))
      return csv.name;
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
    note_missing(model, role.role, role.needed_for);
    // There but not a file (a FIFO, a folder, a link to a device or to nothing): the run is
    // partial, not a run without that file.
    if (fs::exists(fs::symlink_status(p, ec)))
      model.stats.reject(p.string() + ": not a regular file (a folder, FIFO, device or broken link): not read; " +
                         role.needed_for + " unavailable");
    return;
  }
  if (fs::file_size(p, ec) == 0 && !ec) {
    // An empty file where the profiler writes one: the export broke, the run is partial.
    uint16_t id = register_found(model, role.role, p);
    model.files[id].note = std::string("file is empty: ") + role.needed_for + " unavailable";
    model.stats.reject(p.string() + ": file is empty (0 bytes): " + role.needed_for + " unavailable");
    return;
  }
  if (role.role == Role::Trace) {
    load_trace_file(model, p, opt);
    return;
  }
  uint16_t id = register_found(model, role.role, p);
  if (role.load) model.files[id].records = role.load(p.string(), model);
  else model.files[id].note = "present; not read by this version";
}

void load(const Detection& d, RunModel& model, const LoadOptions& opt) {
  const auto& t = std::any_cast<const TextExport&>(d.found);
  model.meta.framework = d.framework;
  model.meta.source_format = "ascend text export";
  // Step rule: the profiler's Overlap Analysis segments of the whole capture (docs/overlap.md).
  model.meta.step_semantics = StepSemantics::CaptureSegments;
  if (!t.single_file.empty()) {
    // One lone CSV: load just that file in the role its header revealed.
    for (const auto& role : kOutputRoles) {
      if (t.single_role != role.name || !role.load) continue;
      uint16_t id = register_found(model, role.role, t.single_file);
      model.files[id].records = role.load(t.single_file, model);
    }
    return;
  }
  load_run_metadata(t.run_dir, t.output_dir, model);
  for (const auto& role : kOutputRoles) load_output_file(role, fs::path(t.output_dir) / role.name, model, opt);
}

}  // namespace

InputFormat torch_npu_text_format() {
  return {"torch_npu_text", "ascend run folder", sniff, load, [](const Detection&, RunModel& model) {
            load_communication_files(model);
            framework_from_tracks(model);
          }};
}

}  // namespace npu
