// Which device tasks count as computing and which as communication, decided once here and
// used by every diagnostic. The rule follows the profiler's own overlap analysis
// (docs/overlap.md): computing = operator tasks (what kernel_details lists), communication
// = HCCL operator spans; runtime tasks such as MEMCPY_ASYNC or EVENT_RECORD are neither.
#pragma once
#include <vector>

#include "core/intervals.h"
#include "core/model.h"

namespace npu {

enum class TaskClass : uint8_t { Compute, Communication, Other };

TaskClass classify_device_task(const RunModel& m, const Slice& s);

// The device side of a run, extracted once: compute and communication intervals (raw and
// unioned), the device window, and the index of every classified slice.
struct DeviceTimeline {
  std::vector<uint32_t> compute_slices;  // indexes into RunModel::slices
  std::vector<uint32_t> comm_slices;     // communication operator spans
  Intervals compute;                     // union
  Intervals comm;                        // union
  Interval window;                       // first device task start .. last end (incl. comm)
  bool has_device = false;
  bool comm_from_ops = false;  // comm spans from the HCCL/Communication op threads (else device HCCL tasks)
};

DeviceTimeline extract_device_timeline(const RunModel& m);

// The step whose [start, end) holds ts (the profiler's rule for assigning a segment to a
// step), or -1. `steps` must be sorted by start (RunModel::steps is).
int step_index_at(const std::vector<Step>& steps, Ns ts);

}  // namespace npu
