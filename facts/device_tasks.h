// Which device tasks count as computing and which as communication, decided once here and
// used by every diagnostic. The rule follows the profiler's own overlap analysis
// (docs/overlap.md): computing = operator tasks (what kernel_details lists), communication
// = HCCL operator spans; runtime tasks such as MEMCPY_ASYNC or EVENT_RECORD are neither.
// On GPUs (Kineto) the same split, decided by event category and name: computing = kernels,
// communication = NCCL/RCCL kernels, memcpy/memset = neither; a gpu_user_annotation (the GPU
// copy of a record_function range such as ProfilerStep#N) is a marker, not device work.
#pragma once
#include <unordered_map>
#include <vector>

#include "base/intervals.h"
#include "model/model.h"

namespace npu {

enum class TaskClass : uint8_t { Compute, Communication, Other, Marker };

// An NCCL (or RCCL, which keeps the names) collective or point-to-point kernel.
bool is_nccl_kernel_name(std::string_view name);

// A GPU matrix kernel's arithmetic, from its name (cuBLAS, cuBLASLt, CUTLASS, cuDNN):
// Fp32Simt = fp32 on the CUDA cores (FFMA: `*_ffma_*`, `*simt_sgemm*`, `sgemm*`, `gemmSN_*<float`,
// `gemv*<float`), which TF32 or bf16 would move to the tensor cores; TensorCore = tf32, bf16,
// fp16 or fp8 on the tensor cores (`tf32`, `bf16`, `f16`, `tensorop`, `hmma`, `wmma`,
// `nvjet_*_h*`/`_t*`); NotGemm for everything else.
enum class GemmPrecision : uint8_t { NotGemm, Fp32Simt, TensorCore };
GemmPrecision gpu_gemm_precision(std::string_view kernel_name);
// A matrix kernel shorter than this is bound by latency, not arithmetic: the tensor cores would
// not make it faster (the 64x64 GEMMs of a launch-bound MLP take 2 us either way).
constexpr Ns kComputeBoundGemmNs = 10'000;

TaskClass classify_device_task(const RunModel& m, const Slice& s);

// The device side of a run, extracted once: compute and communication intervals (raw and
// unioned), the device window, and the index of every classified slice.
struct DeviceTimeline {
  std::vector<uint32_t> compute_slices;  // indexes into RunModel::slices
  std::vector<uint32_t> comm_slices;     // communication operator spans
  Intervals compute;                     // union
  Intervals comm;                        // union
  Intervals busy;                        // compute ∪ comm (∪ copies on GPUs): where the device is not idle
  // GPU runs: memcpy/memset (the copy engines, memsets), and their union less compute ∪ comm:
  // device work of its own, in the step's split as copies, never idle (docs/facts-gpu.md).
  // Empty on Ascend, whose profilers count runtime tasks (MEMCPY_ASYNC) as Free.
  std::vector<uint32_t> copy_slices;
  Intervals copies;
  Interval window;  // first device task start .. last end (incl. comm)
  bool has_device = false;
  bool comm_from_ops = false;  // comm spans from the HCCL/Communication op threads (else device HCCL tasks)
  // GPU traces: the device the timeline covers (RunMetadata::device) and the others found in
  // the same trace, left out so that two GPUs' kernels are never unioned into one timeline.
  int32_t device = -1;
  std::vector<int32_t> other_devices;
};

// Host calls that block until GPU work finishes (CUDA runtime/driver and HIP names):
// Device = the whole device (cudaDeviceSynchronize), Stream = one stream or one event
// (cudaStreamSynchronize, cudaEventSynchronize). cudaStreamWaitEvent does not block the host.
enum class GpuSync : uint8_t { None, Stream, Device };
GpuSync gpu_sync_kind(std::string_view runtime_call_name);

// Kineto: correlation id -> the host runtime/driver call that carries it; the kernel, memcpy or
// memset with the same id is what it launched. Ids carried by several launches are left out
// (model.h: correlation_launches).
const std::unordered_map<int64_t, uint32_t>& runtime_calls_by_correlation(const RunModel& m);

// `comm_from_ops`: the run's communication is its communication operators alone, even when it has
// none (the frame says so by the format's step rule: run_frame.h).
DeviceTimeline extract_device_timeline(const RunModel& m, bool comm_from_ops);

}  // namespace npu
