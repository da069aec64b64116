#include "facts/host_causes.h"

#include <algorithm>
#include <unordered_map>

#include "base/text.h"
#include "facts/device_tasks.h"

namespace npu {
namespace {

// The cause a name gives on a host thread that is not the GC track.
HostCause cause_of_name(TrackKind kind, std::string_view n) {
  if (kind == TrackKind::HostCANN) {
    if (n == "AscendCL@aclopCompileAndExecute") return HostCause::Compile;
    if (n.substr(0, 25) == "AscendCL@aclrtSynchronize") return HostCause::Sync;
    return HostCause::None;
  }
  if (gpu_sync_kind(n) != GpuSync::None) return HostCause::Sync;
  if (text::contains_nocase(n, "dataloader")) return HostCause::Dataloader;
  if (text::contains_nocase(n, "barrier")) return HostCause::CommWait;
  return HostCause::None;
}

bool host_track(TrackKind k) {
  return k == TrackKind::HostCANN || k == TrackKind::HostGC || k == TrackKind::HostPython || k == TrackKind::HostOther;
}

// Host clocks and GPU timestamps differ by microseconds: a call that returns this close to its
// copy's end waited for it.
constexpr Ns kBlockingSlackNs = 50'000;

// GPU runs: a copy call the host sat in until its copy ended (a pageable cudaMemcpyAsync, a
// synchronous cudaMemcpy) blocks the host like a synchronize call: it held the host at least as
// long as the copy ran and returned when the copy was done.
void add_blocking_copy_calls(const RunModel& m, std::vector<uint32_t>& sync) {
  if (m.meta.platform != "gpu") return;
  const auto& host = runtime_calls_by_correlation(m);
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::Device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& c = m.slices[i];
      if (c.corr == kNoId || kineto_category(m.str(c.cat)) != KinetoCat::GpuMemcpy) continue;
      auto h = host.find(c.corr);
      if (h == host.end()) continue;
      const Slice& call = m.slices[h->second];
      if (call.dur >= c.dur && call.end() >= c.end() - kBlockingSlackNs &&
          gpu_sync_kind(m.str(call.name)) == GpuSync::None)
        sync.push_back(h->second);
    }
  }
}

}  // namespace

HostCauseSlices collect_host_cause_slices(const RunModel& m) {
  HostCauseSlices out;
  const StrId gc_cat = m.strings.find("GC");
  const StrId python_function = m.strings.find("python_function");
  // Names repeat millions of times: each is classified once per track kind that meets it.
  std::vector<uint8_t> cann_cause(m.strings.size(), 0xff), other_cause(m.strings.size(), 0xff);
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const TrackKind kind = m.tracks[t].kind;
    if (!host_track(kind)) continue;
    const auto r = m.track_slices[t];
    for (uint32_t i = r.begin; i < r.end; ++i) {
      const Slice& s = m.slices[i];
      HostCause c;
      if (kind == TrackKind::HostGC || (gc_cat != kNone32 && s.cat == gc_cat)) {
        c = HostCause::GC;
      } else if (kind == TrackKind::HostOther && python_function != kNone32 && s.cat == python_function) {
        continue;
      } else {
        uint8_t& cached = (kind == TrackKind::HostCANN ? cann_cause : other_cause)[s.name];
        if (cached == 0xff) cached = static_cast<uint8_t>(cause_of_name(kind, m.str(s.name)));
        c = static_cast<HostCause>(cached);
      }
      if (c != HostCause::None) out.by_cause[static_cast<int>(c)].push_back(i);
    }
  }
  add_blocking_copy_calls(m, out.by_cause[static_cast<int>(HostCause::Sync)]);
  for (auto& v : out.by_cause)
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return m.slices[a].ts < m.slices[b].ts; });
  return out;
}

}  // namespace npu
