#include "loaders/msprof/format.h"

#include "loaders/msprof/msprof_loader.h"

namespace npu {
namespace fs = std::filesystem;

bool is_prof_folder_name(const fs::path& p) { return p.filename().string().starts_with("PROF_"); }

namespace {

Sniff sniff(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_directory(p) || !(is_prof_folder_name(p) || is_prof_folder_name(fs::absolute(p, ec)))) return {};
  return {confidence::kFolderName, "msprof PROF_ folder " + p.string(), {}, {}};
}

void load(const Detection& d, RunModel& model, const LoadOptions& opt) { load_msprof_folder(d.path, model, opt); }

}  // namespace

InputFormat msprof_format() { return {"msprof", "msprof PROF_ folder", sniff, load, nullptr}; }

}  // namespace npu
