// How a run is loaded, shared by the run loader (loaders/run_loader.h) and the loaders it
// hands folders to (loaders/msprof_loader.h), so neither header needs the other.
#pragma once
#include "loaders/common/trace_json_loader.h"

namespace npu {

struct LoadOptions {
  TraceLoadOptions trace;
};

}  // namespace npu
