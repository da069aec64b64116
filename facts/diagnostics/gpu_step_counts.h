// What the "gpu" facts count per step (facts/diagnostics/gpu.cpp, docs/facts-gpu.md).
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "base/types.h"

namespace npu {

struct StepCounts {
  uint64_t kernels = 0, small_kernels = 0, sync_calls = 0, blocking_d2h = 0, pageable_copies = 0;
  Ns kernel_ns = 0, small_kernel_ns = 0, sync_ns = 0, blocking_d2h_wait_ns = 0, pageable_ns = 0;
  // Matrix kernels (count_gemm) in the step's window: fp32 on the CUDA cores, and on the tensor cores.
  Ns fp32_simt_ns = 0, tensor_core_ns = 0;
  // Sync points: each blocking wait of the host once (a synchronize call, or a synchronous copy
  // call that itself waited; an `.item()` is a copy and the sync it waits in: one point), and
  // the time the host spent inside those calls.
  uint64_t sync_points = 0;
  Ns sync_wait_ns = 0;
  // Of the sync calls, those a harness made (facts/harness.h: the profiler's, timing brackets).
  uint64_t harness_sync_points = 0;
  Ns harness_wait_ns = 0;
};

// One step's counts, `id` its id (null for the pseudo-step).
inline nlohmann::json step_counts_json(const StepCounts& c, nlohmann::json id) {
  return {{"id", std::move(id)},
          {"kernels", c.kernels},
          {"kernel_ns", c.kernel_ns},
          {"small_kernels", c.small_kernels},
          {"small_kernel_ns", c.small_kernel_ns},
          {"sync_calls", c.sync_calls},
          {"sync_ns", c.sync_ns},
          {"sync_points", c.sync_points},
          {"sync_wait_ns", c.sync_wait_ns},
          {"harness_sync_points", c.harness_sync_points},
          {"harness_wait_ns", c.harness_wait_ns},
          {"blocking_d2h", c.blocking_d2h},
          {"blocking_d2h_wait_ns", c.blocking_d2h_wait_ns},
          {"pageable_copies", c.pageable_copies},
          {"pageable_ns", c.pageable_ns},
          {"fp32_simt_ns", c.fp32_simt_ns},
          {"tensor_core_ns", c.tensor_core_ns}};
}

}  // namespace npu
