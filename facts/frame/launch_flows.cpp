#include "facts/frame/launch_flows.h"

#include <algorithm>

namespace npu {
namespace {

void sort_by_device_start(std::vector<Launch>& launches) {
  std::sort(launches.begin(), launches.end(), [](const Launch& a, const Launch& b) {
    if (a.start != b.start) return a.start < b.start;
    return a.launch < b.launch;
  });
}

// GPU (Kineto): a launch is a runtime call (cudaLaunchKernel, cudaLaunchKernelExC,
// cuLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync, hipLaunchKernel, ...) and the kernel,
// memcpy or memset that carries the same "correlation" arg. That is the relation Kineto's
// ac2g flows draw (their id is the correlation id), but it also holds where the flows were
// dropped (trimmed traces) or are named otherwise (2021 traces: cat "async", name "launch").
// One launch per device event: a CUDA graph launch starts several kernels with one id.
void pick_correlated(const RunModel& m, const DeviceTimeline& d, LaunchFlows& out) {
  const auto& host = runtime_calls_by_correlation(m);
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const Track& tr = m.tracks[t];
    if (tr.kind != TrackKind::Device || tr.device != d.device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      if (s.corr == kNoId || classify_device_task(m, s) == TaskClass::Marker) continue;
      auto it = host.find(s.corr);
      if (it == host.end()) continue;
      const Slice& h = m.slices[it->second];
      Flow f = Flow::between(s.corr, {h.ts, h.loc, h.track}, {s.ts, s.loc, s.track}, FlowKind::Ac2g);
      f.start_slice = it->second;
      f.end_slice = i;
      out.correlated.push_back(f);
    }
  }
  out.by_correlation = true;
  out.launches.reserve(out.correlated.size());
  for (uint32_t i = 0; i < out.correlated.size(); ++i) {
    const Flow& f = out.correlated[i];
    out.launches.push_back(Launch{f.start_ts, f.end_ts, f.end_ts - f.start_ts, i});
  }
  sort_by_device_start(out.launches);
}

}  // namespace

nlohmann::json LaunchFlows::kind_json() const {
  if (by_correlation) return "correlation";
  return kind ? nlohmann::json(to_string(*kind)) : nlohmann::json(nullptr);
}

LaunchFlows pick_launches(const RunModel& m, const DeviceTimeline& d) {
  LaunchFlows out;
  if (m.meta.platform == "gpu") {
    pick_correlated(m, d, out);
    return out;
  }
  size_t count[3] = {0, 0, 0};
  for (const auto& f : m.flows) {
    if (f.kind == FlowKind::HostToDevice) ++count[0];
    else if (f.kind == FlowKind::AsyncNpu) ++count[1];
    else if (f.kind == FlowKind::Ac2g) ++count[2];
  }
  const FlowKind kinds[3] = {FlowKind::HostToDevice, FlowKind::AsyncNpu, FlowKind::Ac2g};
  for (int k = 0; k < 3; ++k)
    if (count[k] > 0) {
      out.kind = kinds[k];
      break;
    }
  if (!out.kind) return out;
  out.launches.reserve(count[0] + count[1] + count[2]);
  for (uint32_t i = 0; i < m.flows.size(); ++i) {
    const Flow& f = m.flows[i];
    if (f.kind != *out.kind) continue;
    Ns start = f.end_slice != kNone32 ? m.slices[f.end_slice].ts : f.end_ts;
    out.launches.push_back(Launch{f.start_ts, start, start - f.start_ts, i});
  }
  sort_by_device_start(out.launches);
  return out;
}

}  // namespace npu
