#include "facts/diagnostics/host_trace_pass.h"

#include <algorithm>

namespace npu::operator_health {
namespace {

enum NameBits : uint16_t {
  kClassified = 1 << 0,
  kCompile = 1 << 1,     // AscendCL@aclopCompileAndExecute
  kSyncStream = 1 << 2,  // AscendCL@aclrtSynchronizeStream*
  kSyncDevice = 1 << 3,  // AscendCL@aclrtSynchronizeDevice*
  kLaunch = 1 << 4,      // Node@launch*
  kAcl = 1 << 5,         // AscendCL@*
  kMemApi = 1 << 6,      // one of kMemApis
  kDataloader = 1 << 7,  // name contains "dataloader" (any case)
  kSyncBn = 1 << 8,      // name is "SyncBatchNorm" (any case)
};

uint16_t classify_name(std::string_view n) {
  uint16_t b = kClassified;
  if (starts_with(n, "AscendCL@")) {
    b |= kAcl;
    if (n == "AscendCL@aclopCompileAndExecute") b |= kCompile;
    if (starts_with(n, "AscendCL@aclrtSynchronizeStream")) b |= kSyncStream;
    if (starts_with(n, "AscendCL@aclrtSynchronizeDevice")) b |= kSyncDevice;
    for (const char* api : kMemApis)
      if (n == api) b |= kMemApi;
  }
  if (starts_with(n, "Node@launch")) b |= kLaunch;
  std::string l = lower(n);
  if (l.find("dataloader") != std::string::npos) b |= kDataloader;
  if (l == "syncbatchnorm") b |= kSyncBn;
  return b;
}

// Conjectured-GC candidates, needed before the pass (which counts the AscendCL calls inside
// them); only used when the run turns out to have no GC events, but cheap to compute.
std::vector<FreeGap> long_free_gaps(const DeviceTimeline& d) {
  std::vector<FreeGap> gaps;
  if (!d.has_device) return gaps;
  for (const Interval& iv : difference(Intervals{d.window}, d.busy))
    if (iv.length() > kConjecturedGcMinFreeNs) gaps.push_back({iv});
  return gaps;
}

void add_gc(HostTracePass& p, const Slice& s, uint32_t i) {
  p.gc.add(s.dur, i);
  if (s.dur >= p.gc_min_ns) p.gc_long.add(s.dur, i);
  p.gc_top.add(s.dur, i);
}

// Each string's NameBits, classified the first time a slice names it.
class NameClasses {
 public:
  explicit NameClasses(const RunModel& m) : m_(m), bits_(m.strings.size(), 0) {}
  uint16_t operator()(StrId id) {
    uint16_t& b = bits_[id];
    if (!b) b = classify_name(m_.str(id));
    return b;
  }

 private:
  const RunModel& m_;
  std::vector<uint16_t> bits_;
};

// An AscendCL call in the long free gaps: every gap the call overlaps (a long call can span
// several). `g`: the first gap not yet behind this track's calls (gaps and slices are sorted).
void count_in_gaps(HostTracePass& p, const Slice& s, size_t& g) {
  while (g < p.gaps.size() && p.gaps[g].iv.end <= s.ts) ++g;
  for (size_t k = g; k < p.gaps.size() && p.gaps[k].iv.start <= s.end(); ++k) {
    const Interval& gap = p.gaps[k].iv;
    Ns overlap = std::max<Ns>(0, std::min(s.end(), gap.end) - std::max(s.ts, gap.start));
    bool starts_inside = s.ts >= gap.start && s.ts < gap.end;
    if (overlap == 0 && !starts_inside) continue;
    ++p.gaps[k].acl_count;
    p.gaps[k].acl_ns += overlap;
  }
}

// A CANN host thread: launches, synchronizations, compiles, memory APIs, calls in free gaps.
void scan_cann(const RunFrame& f, RunModel::Range r, NameClasses& names, HostTracePass& p) {
  const RunModel& m = f.model();
  if (r.end > r.begin) p.have_cann = true;
  bool prev_launch = false;  // previous sync-or-launch event on this thread was a launch
  size_t g = 0;
  for (uint32_t i = r.begin; i < r.end; ++i) {
    const Slice& s = m.slices[i];
    const uint16_t b = names(s.name);
    if (!(b & (kAcl | kLaunch))) continue;
    if (b & kLaunch) {
      ++p.launches;
      p.marks.push_back({s.ts, s.loc, true});
      prev_launch = true;
    }
    if (b & kSyncStream) {
      if (prev_launch) ++p.co_occur_same_thread;
      p.marks.push_back({s.ts, s.loc, false});
      prev_launch = false;
    }
    if (b & (kSyncStream | kSyncDevice)) {
      p.sync.add(f, s, i);
      p.sync_top.add(s.dur, i);
      p.sync_by_api[std::string(m.str(s.name))].add(s.dur, i);
    }
    if (b & kCompile) {
      p.compile.add(f, s, i);
      p.compile_top.add(s.dur, i);
    }
    if (b & kMemApi) p.mem_api[std::string(m.str(s.name))].add(f, s, i);
    if ((b & kAcl) && !p.gaps.empty()) count_in_gaps(p, s, g);
  }
}

// A Python (or other host) thread: GC events by category, dataloader fetches, SyncBatchNorm.
void scan_python(const RunModel& m, TrackKind kind, RunModel::Range r, NameClasses& names, HostTracePass& p) {
  const StrId gc_cat = m.strings.find("GC");
  const StrId python_function = m.strings.find("python_function");
  if (r.end > r.begin) p.have_python = true;
  for (uint32_t i = r.begin; i < r.end; ++i) {
    const Slice& s = m.slices[i];
    // Kineto with_stack: every Python frame inside DataLoader.__next__ is a python_function
    // slice whose name holds "dataloader.py"; counting them would count one fetch many times.
    if (kind == TrackKind::HostOther && python_function != kNone32 && s.cat == python_function) continue;
    if (gc_cat != kNone32 && s.cat == gc_cat) {
      add_gc(p, s, i);
      continue;
    }
    const uint16_t b = names(s.name);
    if (b & kDataloader) {
      p.dataloader.add(s.dur, i);
      if (p.dataloader_slices.size() < kMaxListedFetches) p.dataloader_slices.push_back(i);
      if (s.dur >= p.dataloader_slow_ns) {
        ++p.dataloader_slow_count;
        p.dataloader_slow_total += s.dur;
        p.dataloader_slow.add(s.dur, i);
        if (p.first_slow_dataloader == kNone32 || s.ts < p.first_slow_dataloader_ts) {
          p.first_slow_dataloader = i;
          p.first_slow_dataloader_ts = s.ts;
        }
      }
    }
    if (b & kSyncBn) p.syncbn.add(s.dur, i);
  }
}

}  // namespace

HostTracePass run_host_trace_pass(const DiagnosticContext& ctx) {
  const RunModel& m = ctx.model;
  HostTracePass p;
  p.gc_min_ns = ctx.options.gc_min_ns;
  p.dataloader_slow_ns = ctx.options.dataloader_slow_ns;
  p.gaps = long_free_gaps(ctx.device);
  NameClasses names(m);
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const TrackKind kind = m.tracks[t].kind;
    const auto r = m.track_slices[t];
    if (kind == TrackKind::HostCANN) {
      scan_cann(ctx.frame, r, names, p);
    } else if (kind == TrackKind::HostGC) {
      p.have_gc_track = true;
      for (uint32_t i = r.begin; i < r.end; ++i) add_gc(p, m.slices[i], i);
    } else if (kind == TrackKind::HostPython || kind == TrackKind::HostOther) {
      scan_python(m, kind, r, names, p);
    }
  }
  std::sort(p.marks.begin(), p.marks.end(), [](const HostTracePass::Mark& a, const HostTracePass::Mark& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.loc < b.loc;
  });
  return p;
}

}  // namespace npu::operator_health
