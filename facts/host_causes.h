// Host events that can explain why the device sat idle, named once for every analysis that asks
// (the idle attribution). A device that idles while the host compiles an operator, collects
// garbage, waits in a synchronize call, fetches a batch or waits at a barrier idles because of it.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/intervals.h"
#include "model/model.h"

namespace npu {

enum class HostCause : uint8_t { None, Compile, GC, Sync, Dataloader, CommWait };
constexpr int kHostCauseCount = 6;  // None included

// What a host slice is, from its track and name:
//   Compile    AscendCL@aclopCompileAndExecute (an aclop operator compiled online; CANN thread)
//   GC         the "Python GC" track, or a slice of category "GC"
//   Sync       AscendCL@aclrtSynchronize* (CANN thread), or a CUDA/HIP synchronize call, or a
//              GPU copy call the host sat in until its copy ended (pageable or synchronous)
//   Dataloader a Python/host slice whose name holds "dataloader" (any case); Kineto with_stack
//              python_function frames are left out (they nest inside the fetch they belong to)
//   CommWait   a host slice whose name holds "barrier" (c10d::barrier, HcclBarrier, ...)
// Every host slice with a cause, per cause (indexed by HostCause), each list sorted by start.
struct HostCauseSlices {
  std::vector<uint32_t> by_cause[kHostCauseCount];  // indexes into RunModel::slices
};
HostCauseSlices collect_host_cause_slices(const RunModel& m);

}  // namespace npu
