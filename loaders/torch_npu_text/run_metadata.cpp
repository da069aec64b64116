#include "loaders/torch_npu_text/run_metadata.h"

#include <algorithm>
#include <filesystem>

#include "base/input_confinement.h"
#include "loaders/common/input_files.h"
#include "loaders/torch_npu_text/ascend_files.h"

namespace npu {
namespace fs = std::filesystem;

void load_run_metadata(const std::string& run_dir, const std::string& output_dir, RunModel& model) {
  std::vector<fs::path> info_dirs;
  // The run folder above an output folder that was given alone can lie outside the folders the
  // MCP server may read: it is not looked into, whatever it holds.
  if (!run_dir.empty() && !input_path_inside(run_dir))
    model.stats.warnings.push_back(run_dir + ": the run folder is " + kOutsideAllowed +
                                   " (its profiler_info*.json and profiler_metadata.json)");
  else if (!run_dir.empty()) info_dirs.push_back(run_dir);
  if (!output_dir.empty()) info_dirs.push_back(output_dir);
  fs::path info, metadata;
  for (const auto& dir : info_dirs) {
    std::vector<fs::path> infos;
    for (const auto& e : list_input_dir(dir)) {
      std::string n = e.filename().string();
      if (n.rfind("profiler_info", 0) == 0 && n.size() > 5 && n.substr(n.size() - 5) == ".json") infos.push_back(e);
      if (n == "profiler_metadata.json" && metadata.empty()) metadata = e;
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
    uint16_t id = register_found(model, Role::RunInfo, info);
    if (model.files[id].status == InputFile::Status::Loaded) load_profiler_info(info.string(), model);
  } else {
    note_missing(model, Role::RunInfo, "rank id, profiler level and capture options are unknown");
  }
  if (!metadata.empty()) {
    uint16_t id = register_found(model, Role::RunEnvironment, metadata);
    if (model.files[id].status == InputFile::Status::Loaded) load_profiler_metadata(metadata.string(), model);
  } else {
    note_missing(model, Role::RunEnvironment, "environment variables (TASK_QUEUE_ENABLE, ...) cannot be checked");
  }
}

}  // namespace npu
