// What the replay's graph building (replay.cpp) and its simulation (replay_simulate.cpp) share.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "facts/whatif/replay.h"

namespace npu::whatif {

constexpr Ns kNever = std::numeric_limits<Ns>::min();

// The last task of stream k among its first `done` whose measured running-max end is at most
// `until`: what a blocking call ending at `until` can have waited for (kNone32: none).
using SliceItems = std::vector<std::pair<uint32_t, uint32_t>>;  // (slice, item), sorted by slice

// torch_npu's task queue (replay_queue.cpp): its arrows with both ends (indexes in m.flows), the
// Enqueue and Dequeue slices they join, sorted (empty without the queue), and, once they are
// items, the two lanes and the links (only the arrows whose Enqueue starts in [t0, t1): the
// graph's block of steps).
std::vector<uint32_t> queue_flows(const RunModel& m);
std::vector<uint32_t> queue_slices(const RunModel& m, const std::vector<uint32_t>& flows);
void link_queue(Graph& g, const RunModel& m, const SliceItems& item_of_slice, const std::vector<uint32_t>& flows,
                Ns t0, Ns t1);

uint32_t awaited(const Graph& g, const std::vector<Ns>& prefix_end, size_t k, uint32_t done, Ns until);

}  // namespace npu::whatif
