#include "facts/device_tasks.h"

#include <algorithm>
#include <cctype>

namespace npu {
namespace {

bool is_runtime_task_name(std::string_view n) {
  // Runtime (non-operator) tasks are written in capitals: MEMCPY_ASYNC, EVENT_RECORD, ...
  if (n.empty()) return false;
  for (char c : n)
    if (!(std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

bool ends_with(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
}

bool is_comm_task_type(std::string_view t) { return t == "HCCL" || t == "COMMUNICATION" || t == "HCCL_AICPU"; }

bool is_compute_task_type(std::string_view t) {
  return t == "AI_CORE" || t == "AI_VECTOR_CORE" || t == "MIX_AIC" || t == "MIX_AIV" || t == "AI_CPU" ||
         t == "FFTS_PLUS" || t == "DSA_SQE" || t.rfind("KERNEL_", 0) == 0 || t == "AIV" || t == "AIC";
}

// An op-level thread of the HCCL/Communication process ("Group xxx Communication"); the
// "Plane N" threads hold the small transport tasks.
bool is_comm_op_thread(std::string_view thread) {
  return thread.find("Communication") != std::string_view::npos || thread.rfind("Group", 0) == 0 || thread.empty();
}

}  // namespace

GemmPrecision gpu_gemm_precision(std::string_view n) {
  std::string l(n.substr(0, 160));
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto has = [&](const char* w) { return l.find(w) != std::string::npos; };
  const bool matrix = has("gemm") || has("gemv") || l.rfind("nvjet", 0) == 0;
  if (!matrix) return GemmPrecision::NotGemm;
  if (has("tf32") || has("bf16") || has("f16") || has("fp8") || has("e4m3") || has("tensorop") || has("hmma") ||
      has("wmma") || has("s1688") || has("s16816") || l.rfind("nvjet", 0) == 0)
    return GemmPrecision::TensorCore;
  if (has("_ffma") || has("simt") || has("sgemm") || has("<float")) return GemmPrecision::Fp32Simt;
  return GemmPrecision::NotGemm;
}

bool is_nccl_kernel_name(std::string_view n) {
  if (n.rfind("void ", 0) == 0) n.remove_prefix(5);
  return n.rfind("nccl", 0) == 0 || n.find("ncclDevKernel") != std::string_view::npos ||
         n.find("ncclKernel") != std::string_view::npos;
}

TaskClass classify_device_task(const RunModel& m, const Slice& s) {
  std::string_view tt = m.str(s.task_type);
  std::string_view name = m.str(s.name);
  if (s.cat != kEmptyStr) {
    switch (kineto_category(m.str(s.cat))) {
      case KinetoCat::GpuKernel: return is_nccl_kernel_name(name) ? TaskClass::Communication : TaskClass::Compute;
      case KinetoCat::GpuMemcpy:
      case KinetoCat::GpuMemset: return TaskClass::Other;
      case KinetoCat::GpuAnnotation: return TaskClass::Marker;
      default: break;
    }
  }
  if (is_comm_task_type(tt) || name.rfind("hcom_", 0) == 0) return TaskClass::Communication;
  // MC2 fused ops run helper kernels that the profiler leaves out of computing.
  if (ends_with(name, "AicpuKernel") || ends_with(name, "AivKernel")) return TaskClass::Other;
  if (is_compute_task_type(tt)) return TaskClass::Compute;
  if (is_runtime_task_name(name)) return TaskClass::Other;
  if (tt.empty() || tt == "Other" || tt == "N/A") return TaskClass::Compute;  // older exports: operators are "Other"
  return TaskClass::Other;                                                    // EVENT_WAIT_SQE, SDMA_SQE, ...
}

GpuSync gpu_sync_kind(std::string_view n) {
  if (n == "cudaDeviceSynchronize" || n == "hipDeviceSynchronize" || n == "cuCtxSynchronize") return GpuSync::Device;
  if (n == "cudaStreamSynchronize" || n == "hipStreamSynchronize" || n == "cuStreamSynchronize" ||
      n == "cudaEventSynchronize" || n == "hipEventSynchronize" || n == "cuEventSynchronize")
    return GpuSync::Stream;
  return GpuSync::None;
}

const std::unordered_map<int64_t, uint32_t>& runtime_calls_by_correlation(const RunModel& m) {
  return m.correlation.by_id;
}

DeviceTimeline extract_device_timeline(const RunModel& m, bool comm_from_ops) {
  DeviceTimeline d;
  Intervals compute, comm_ops, comm_tasks, all, copies;
  std::vector<uint32_t> comm_op_idx, comm_task_idx;
  const bool gpu = m.meta.platform == "gpu";
  if (gpu) d.device = m.meta.device;
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const Track& tr = m.tracks[t];
    auto r = m.track_slices[t];
    if (tr.kind == TrackKind::Device) {
      if (gpu && tr.device != d.device) {
        if (std::find(d.other_devices.begin(), d.other_devices.end(), tr.device) == d.other_devices.end())
          d.other_devices.push_back(tr.device);
        continue;
      }
      for (uint32_t i = r.begin; i < r.end; ++i) {
        const Slice& s = m.slices[i];
        TaskClass c = classify_device_task(m, s);
        if (c == TaskClass::Marker) continue;
        d.has_device = true;
        all.push_back({s.ts, s.end()});
        switch (c) {
          case TaskClass::Compute:
            compute.push_back({s.ts, s.end()});
            d.compute_slices.push_back(i);
            break;
          case TaskClass::Communication:
            comm_tasks.push_back({s.ts, s.end()});
            comm_task_idx.push_back(i);
            break;
          case TaskClass::Other:
            if (gpu) {
              copies.push_back({s.ts, s.end()});
              d.copy_slices.push_back(i);
            }
            break;
          case TaskClass::Marker: break;
        }
      }
    } else if (tr.kind == TrackKind::Communication && is_comm_op_thread(m.str(tr.thread_name))) {
      for (uint32_t i = r.begin; i < r.end; ++i) {
        comm_ops.push_back({m.slices[i].ts, m.slices[i].end()});
        comm_op_idx.push_back(i);
        all.push_back(comm_ops.back());
      }
    }
  }
  d.compute = union_of(compute);
  // Where the profiler merges each step's own operators (database exports, msprof), its
  // communication is the communication operators alone (COMMUNICATION_OP): none, none.
  d.comm_from_ops = !comm_ops.empty() || comm_from_ops;
  d.comm = union_of(d.comm_from_ops ? comm_ops : comm_tasks);
  d.busy = union_of(d.compute, d.comm);
  d.copies = difference(union_of(copies), d.busy);
  d.busy = union_of(d.busy, d.copies);  // GPU: a copy keeps the device busy (empty on Ascend)
  d.comm_slices = d.comm_from_ops ? comm_op_idx : comm_task_idx;
  if (!all.empty()) {
    d.window.start =
        std::min_element(all.begin(), all.end(), [](auto& a, auto& b) { return a.start < b.start; })->start;
    d.window.end = std::max_element(all.begin(), all.end(), [](auto& a, auto& b) { return a.end < b.end; })->end;
  }
  return d;
}

}  // namespace npu
