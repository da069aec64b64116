// The transformations of the host pipeline (host_transforms.cpp), listed by make_transforms.
//   task_queue   TASK_QUEUE_ENABLE=2 (from level 1): each aclnn operator's workspace call
//                (aclnn*GetWorkspaceSize, recorded on the enqueuing thread before its Enqueue) moves
//                to the queue thread, just before the operator's Dequeue
//   cpu_binding  CPU_AFFINITY_CONF: stretches of 16 operators on the launching thread that took
//                over twice the run's median time per operator run at the median
#pragma once
#include "facts/host_causes.h"
#include "facts/whatif/transforms.h"

namespace npu::whatif {

Transform task_queue(const RunModel& m, const Graph& g);
Transform cpu_binding(const RunModel& m, const Graph& g, const HostCauseSlices& causes);

}  // namespace npu::whatif
