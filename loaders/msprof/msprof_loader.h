// msprof PROF_* folders and MindSpore legacy profiler/ folders: both reuse the trace JSON
// and CSV importers (op_summary is a kernel_details variant) and the DB loader.
#pragma once
#include "loaders/detect.h"
#include "loaders/common/load_options.h"
#include "model/model.h"

namespace npu {

// One PROF_ folder: mindstudio_profiler_output/ (text), else msprof_*.db, else the older
// device_N/timeline/ layout. Throws LoadError when it holds none of them.
void load_msprof_folder(const Detection& d, RunModel& model, const LoadOptions& opt);

// MindSpore 1.x/2.0 profiler/ folder: the device timeline (ascend_timeline_display_N.json);
// the raw text dumps beside it are named as not supported.
void load_mindspore_legacy(const Detection& d, RunModel& model, const LoadOptions& opt);

}  // namespace npu
