// One Chrome-format trace file: Kineto's *.pt.trace.json[.gz], a trace_view.json or msprof_*.json
// on its own. Any file no other format claims is tried as one (its parser says what is wrong).
#pragma once
#include <string>

#include "loaders/format.h"

namespace npu {

InputFormat chrome_trace_format();

// The names a trace file has: how the cluster format counts them in a parent folder.
bool is_trace_name(const std::string& filename);

}  // namespace npu
