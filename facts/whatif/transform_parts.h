// The transformations of the host pipeline (host_transforms.cpp), listed by make_transforms.
//   task_queue   TASK_QUEUE_ENABLE=2 (from level 1): each aclnn operator's workspace call
//                (aclnn*GetWorkspaceSize, recorded on the enqueuing thread before its Enqueue) moves
//                to the queue thread, just before the operator's Dequeue
//   cpu_binding  CPU_AFFINITY_CONF: stretches of 16 operators on the launching thread that took
//                over twice the run's median time per operator run at the median
// The serving transformations (serving_transforms.cpp), on a serving engine's iterations
// (Graph::serving), their savings of the iteration period (windows and the turns between them):
//   async_scheduling  the host's turn between two iterations (from one's annotation end to the
//                     next one's start) overlaps the device work of the iteration before it: at
//                     most that iteration's window of it is taken off the host, and the host
//                     waits for the device in the turn no longer block
//   capture_sizes     each eager decode iteration, in a run that replays graphs for others,
//                     replayed from graphs as `graphs` does, at the trace's own graph costs
// And what `graphs` and capture_sizes share (transforms.cpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/intervals.h"
#include "facts/host_causes.h"
#include "facts/whatif/transforms.h"

namespace npu::whatif {

inline double to_ms(double ns) { return ns / 1e6; }  // the formulas' milliseconds
// A total over the run, per step of the graph.
inline double per_graph_step(const Graph& g, double total) {
  return total / static_cast<double>(std::max<size_t>(1, g.steps.size()));
}

Transform task_queue(const RunModel& m, const Graph& g);
Transform cpu_binding(const RunModel& m, const Graph& g, const HostCauseSlices& causes);
Transform async_scheduling(const Graph& g);
Transform capture_sizes(const RunModel& m, const Graph& g, const Intervals& fetches);

// A host item that replayed a whole graph (facts/graph_calls.h: cudaGraphLaunch, ACL graph
// replays, model executions) and launched several tasks.
bool graph_launch(const RunModel& m, const HostItem& it);
// The trace's own graph launches: host cost per node and the gap between a graph's kernels
// (`measured` false: defaults, no graph replay in the trace).
void graph_costs(const RunModel& m, const Graph& g, Ns* node_cost, Ns* gap, bool* measured);
// Each run of two or more launches between host waits (in the steps `only` marks, or all) made one
// graph launch in `e`: `node_cost` of host time per task, its tasks `gap` apart. Returns the runs;
// `launches`: the launches they held.
uint64_t graph_runs(const Graph& g, const Intervals& fetches, const std::vector<uint8_t>* only, Ns node_cost, Ns gap,
                    Edit& e, uint64_t* launches);

}  // namespace npu::whatif
