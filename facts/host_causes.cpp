#include "facts/host_causes.h"

#include <algorithm>

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
  for (auto& v : out.by_cause)
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return m.slices[a].ts < m.slices[b].ts; });
  return out;
}

}  // namespace npu
