// fp32 matrix kernels on the CUDA cores moved to the tensor cores, in TF32 or in bf16 (autocast):
// each kernel's new duration from the roofline of its operator group (docs/facts-roofline.md,
// "The precision change"). The what-if replay's tf32 and bf16 transformations (facts/whatif)
// replay the steps with these durations.
//
// A group (op, input shapes, input types) of fp32 kernels on the CUDA cores of at least
// kComputeBoundGemmNs takes, on the tensor cores,
//     max(FLOPs / (target x peak of the precision), bytes at the new precision / (target x HBM))
// (bf16 autocast: the operands and the result in 2 bytes; TF32 keeps fp32 storage), never less
// than a group of the same op and shapes already in that precision takes per instance, never
// more than it takes now. Each of its kernels is shortened in the group's proportion. Kernels
// without a model (no shapes, no operator, an op without a FLOP model) are not counted: they keep
// their time, and `not_counted` says why.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/types.h"

namespace npu {
struct DiagnosticContext;

namespace roofline {

struct TensorCoreTimes {
  std::string precision;  // "tf32" or "bf16"
  std::string why;        // non-empty: no new times at all (the device's limits are unknown, ...)
  double target = 0, peak_flops_per_s = 0, bytes_per_s = 0;
  std::string device;     // the peaks table's device name
  // (kernel slice, new duration), sorted by slice: the modelled fp32 kernels.
  std::vector<std::pair<uint32_t, Ns>> kernels;
  size_t groups = 0;
  size_t held = 0;  // groups held at the time a same-shape group already in this precision takes
  struct Miss {
    uint64_t count = 0;
    Ns ns = 0;
  };
  std::map<std::string, Miss> not_counted;  // fp32 kernels without a model, by why
  // The new duration of the kernel `slice`, or -1 when it has none.
  Ns new_duration(uint32_t slice) const;
  // "no shapes recorded (record_shapes off): 3 kernels, 1.200 ms; ..." (totals over the run).
  std::string not_counted_text() const;
};

// {tf32, bf16} for the run; `target`: the roofline's target fraction of a roof
// (compute.roofline_gemm.target_fraction).
std::array<TensorCoreTimes, 2> tensor_core_times(const DiagnosticContext& ctx);

}  // namespace roofline
}  // namespace npu
