// "gpu.memory": the caching allocator's peaks in a Kineto trace (docs/facts-gpu.md).
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "facts/facts.h"
#include "facts/frame/run_frame.h"

namespace npu {

// Peaks of the caching allocator's totals from Kineto "[memory]" events (profile_memory=True),
// which the loader turns into counters "[memory] Total Allocated, device N" (bytes), for the
// given GPU; null, with facts.unavailable("gpu.memory", why), when the trace has none.
nlohmann::json gpu_allocator_peaks(const RunFrame& frame, int32_t device, Facts& facts);

}  // namespace npu
