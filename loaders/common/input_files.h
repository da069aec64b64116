// Registering the input files a loader found or looked for (RunModel::files), shared by the
// run, database and msprof loaders.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "loaders/common/trace_json_loader.h"
#include "model/model.h"

namespace npu {

uint64_t size_on_disk(const std::filesystem::path& p);
// A missing input and what is lost without it (shown by `inspect` and as skipped checks).
void note_missing(RunModel& model, Role role, const std::string& why);
// A found input: Loaded, or Empty when it has no bytes. Returns its file id. `name`: what reports
// call it, when not role_name(role) (a trace file named alone keeps its own name).
uint16_t register_found(RunModel& model, Role role, const std::filesystem::path& p, const std::string& name = {});

// Loads one or more trace files (a sliced msprof_slice_*.json set, per-iteration timelines)
// into one timeline (Role::Trace, reported as `name` when given). With several files, every location is tagged with its
// file (RunModel::trace_parts) so evidence names the right one. Returns the TraceLoadResult of the first file.
TraceLoadResult load_trace_files(RunModel& model, const std::vector<std::string>& paths, const TraceLoadOptions& opt,
                                 const std::string& name = {});

}  // namespace npu
