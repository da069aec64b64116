// Loads one run (an Ascend run folder or a single trace file) into a finalised RunModel,
// recording for every input file whether it was found, and why it matters when it was not.
#pragma once
#include "loaders/detect.h"
#include "loaders/common/load_options.h"
#include "model/model.h"

namespace npu {

// Throws LoadError for malformed files; a missing file is recorded, not an error.
RunModel load_run(const Detection& input, const LoadOptions& options = {});

}  // namespace npu
