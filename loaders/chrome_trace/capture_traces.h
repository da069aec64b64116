// Graph capture traces beside a replay trace, in TraceLens's layout (AMD-AGI/TraceLens,
// TraceLens/Trace2Tree/trace_capture_merge_experimental.py: load_capture_folder): a folder
// `capture_traces/` next to the trace holding `execution_details.json`, a list of
// {"file", "batch_size", "mode"} (FULL or PIECEWISE), and the capture traces it names (Kineto
// traces of the engine's start-up capture of that batch size). docs/formats-supported.md.
#pragma once
#include <filesystem>

#include "loaders/common/load_options.h"
#include "model/model.h"

namespace npu {

// Reads the capture traces beside `trace` (none: nothing happens) into model.graph_replays'
// captures, each file an input of the run; an entry that cannot be read is a warning naming it.
void load_capture_traces(const std::filesystem::path& trace, RunModel& model, const LoadOptions& opt);

}  // namespace npu
