// One Chrome-format trace read as a run's timeline, with what its top level says about the run
// (Kineto's distributedInfo and deviceProperties): the trace file format and the text export's
// trace_view.json both read theirs so.
#pragma once
#include <filesystem>
#include <string>

#include "loaders/common/load_options.h"
#include "model/model.h"

namespace npu {

// The file is the run's Role::Trace; `name`: what reports call it, when not role_name(Role::Trace).
void load_trace_file(RunModel& model, const std::filesystem::path& p, const LoadOptions& opt,
                     const std::string& name = {});

// A run that did not say its framework, with device or CANN tracks, is torch_npu's (after finalize).
void framework_from_tracks(RunModel& model);

}  // namespace npu
