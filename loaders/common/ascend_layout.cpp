#include "loaders/common/ascend_layout.h"

#include "base/input_confinement.h"

namespace npu {
namespace fs = std::filesystem;

namespace {

bool has_profiler_info(const fs::path& dir) {
  if (!input_path_inside(dir.string())) return false;  // not looked into (base/input_confinement.h)
  for (const auto& e : list_input_dir(dir)) {
    std::string n = e.filename().string();
    if (n.starts_with("profiler_info") && n.ends_with(".json")) return true;
  }
  return false;
}

}  // namespace

bool has_export_files(const fs::path& dir) {
  for (const char* f : {"trace_view.json", "kernel_details.csv", "step_trace_time.csv", "op_statistic.csv"})
    if (fs::is_regular_file(dir / f)) return true;
  return false;
}

std::string framework_of_run_folder(const fs::path& run_dir) {
  std::string n = run_dir.filename().string();
  if (n.ends_with("_ascend_ms")) return "mindspore";
  if (n.ends_with("_ascend_pt")) return "torch_npu";
  return "";
}

bool is_run_folder(const fs::path& dir) {
  return fs::is_directory(dir / kAscendOutput) || dir.filename().string().ends_with("_ascend_pt") ||
         dir.filename().string().ends_with("_ascend_ms");
}

std::optional<AscendOutput> find_ascend_output(const fs::path& p) {
  std::error_code ec;
  if (fs::is_directory(p / kAscendOutput)) return AscendOutput{p, p / kAscendOutput};
  if (p.filename() != kAscendOutput && !has_export_files(p)) return std::nullopt;
  AscendOutput o{{}, p};
  fs::path parent = fs::absolute(p, ec).parent_path();
  if (p.filename() == kAscendOutput || has_profiler_info(parent)) o.run = parent;
  return o;
}

}  // namespace npu
