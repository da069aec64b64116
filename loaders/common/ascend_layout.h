// The run-folder layout torch_npu and MindSpore 2.3+ share, whether they export text or SQLite:
// *_ascend_pt / *_ascend_ms holding profiler_info*.json and ASCEND_PROFILER_OUTPUT/. Read by the
// text and SQLite formats' sniffs and by the cluster's, which counts rank folders.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace npu {

inline constexpr const char* kAscendOutput = "ASCEND_PROFILER_OUTPUT";

// Files that mark a folder as holding a torch_npu / MindSpore text export.
bool has_export_files(const std::filesystem::path& dir);
// "torch_npu" or "mindspore" by the run folder's name, "" when it says neither.
std::string framework_of_run_folder(const std::filesystem::path& run_dir);
// A rank folder: something that is itself a run (by its name or its ASCEND_PROFILER_OUTPUT/).
bool is_run_folder(const std::filesystem::path& dir);

// A run folder, or the ASCEND_PROFILER_OUTPUT inside one (or a folder holding its files).
struct AscendOutput {
  std::filesystem::path run;  // may be empty: the output folder alone
  std::filesystem::path out;
  std::string where() const { return (run.empty() ? out : run).string(); }
};
std::optional<AscendOutput> find_ascend_output(const std::filesystem::path& p);

}  // namespace npu
