// torch_npu's (and MindSpore 2.3+'s) text export: a *_ascend_pt / *_ascend_ms run folder with
// ASCEND_PROFILER_OUTPUT/ (trace_view.json and the CSV/JSON files beside it), that folder alone,
// or one lone CSV of it recognised by its header.
#pragma once
#include "loaders/format.h"

namespace npu {

InputFormat torch_npu_text_format();

}  // namespace npu
