// msprof's own output: one PROF_* folder (loaders/msprof/msprof_loader.h reads it).
#pragma once
#include <filesystem>

#include "loaders/format.h"

namespace npu {

InputFormat msprof_format();

// msprof names its folders PROF_*: how the cluster format counts them in a parent folder.
bool is_prof_folder_name(const std::filesystem::path& p);

}  // namespace npu
