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
uint32_t awaited(const Graph& g, const std::vector<Ns>& prefix_end, size_t k, uint32_t done, Ns until);

}  // namespace npu::whatif
