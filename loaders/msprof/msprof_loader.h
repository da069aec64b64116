// msprof PROF_* folders: reuse the trace JSON and CSV importers (op_summary is a kernel_details
// variant) and the DB loader.
#pragma once
#include <string>

#include "loaders/common/load_options.h"
#include "model/model.h"

namespace npu {

// One PROF_ folder: mindstudio_profiler_output/ (text), else msprof_*.db, else the older
// device_N/timeline/ layout. Throws LoadError when it holds none of them.
void load_msprof_folder(const std::string& folder, RunModel& model, const LoadOptions& opt);

}  // namespace npu
