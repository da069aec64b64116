// profiler_info*.json and profiler_metadata.json: the run folder's own description, the same in
// a text and a SQLite export (older exports put them next to the CSVs).
#pragma once
#include <string>

#include "model/model.h"

namespace npu {

void load_run_metadata(const std::string& run_dir, const std::string& output_dir, RunModel& model);

}  // namespace npu
