// What a Kineto (PyTorch profiler) trace is made of, read by RunModel::finalize(): the event
// categories, launches paired by correlation id, tracks classified by their events, and the
// iterations of a trace without ProfilerStep#N.
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/engine_patterns.h"
#include "model/model.h"

namespace npu {

KinetoCat kineto_category(std::string_view c) {
  if (c == "kernel" || c == "Kernel") return KinetoCat::GpuKernel;
  if (c == "gpu_memcpy" || c == "Memcpy") return KinetoCat::GpuMemcpy;
  if (c == "gpu_memset" || c == "Memset") return KinetoCat::GpuMemset;
  if (c == "gpu_user_annotation") return KinetoCat::GpuAnnotation;
  if (c == "cpu_op" || c == "Operator" || c == "python_function" || c == "user_annotation" || c == "cpu_instant_event")
    return KinetoCat::HostOp;
  if (c == "cuda_runtime" || c == "cuda_driver" || c == "Runtime" || c == "Driver") return KinetoCat::HostRuntime;
  return KinetoCat::None;
}

CorrelationLaunches correlation_launches(const RunModel& m) {
  // The runtime/driver calls that carry an id, sorted by (id, start, longer first): each id's
  // calls side by side, the outermost first. One sort, no per-call lookups (a trace of millions
  // of launches, or one whose every id is reused, costs the same).
  struct Call {
    int64_t corr;
    Ns ts, end;
    uint32_t slice;
  };
  std::vector<Call> calls;
  std::vector<int8_t> runtime_cat(m.strings.size(), -1);
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind == TrackKind::Device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      if (s.corr == kNoId) continue;
      int8_t& rc = runtime_cat[s.cat];
      if (rc < 0) rc = kineto_category(m.str(s.cat)) == KinetoCat::HostRuntime ? 1 : 0;
      if (rc) calls.push_back(Call{s.corr, s.ts, s.end(), i});
    }
  }
  std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
    return a.corr != b.corr ? a.corr < b.corr
           : a.ts != b.ts   ? a.ts < b.ts
           : a.end != b.end ? a.end > b.end
                            : a.slice < b.slice;
  });
  CorrelationLaunches out;
  out.by_id.reserve(calls.size());
  for (size_t i = 0; i < calls.size();) {
    const Call& outer = calls[i];
    size_t j = i + 1;
    bool nested = true;  // every other call of the id lies inside the outermost one
    for (; j < calls.size() && calls[j].corr == outer.corr; ++j) nested = nested && calls[j].end <= outer.end;
    if (nested) out.by_id.emplace(outer.corr, outer.slice);
    else out.ambiguous.push_back(outer.corr);
    i = j;
  }
  return out;
}

// Tracks that no process name classified (Kineto names every process "python3") are
// classified by their events' categories: a track with GPU activity (kernels, memcpy, memset,
// GPU-side annotations) is a device stream; one with host categories is a host thread. Runs
// after the slices are grouped by track and before steps are derived (so the GPU copy of
// ProfilerStep#N, a gpu_user_annotation, is not taken for a host step).
void RunModel::classify_kineto_tracks() {
  // torch.profiler built without Kineto (Debian 12's python3-torch 1.13) writes the legacy
  // autograd-profiler trace: one process, the string pid "CPU functions", events without a
  // category, all of them torch operators or record_function ranges. Read them as Kineto's
  // cpu_op host slices so the host facts (steps, top host operators) apply; the run is CPU-only.
  for (uint32_t t = 0; t < tracks.size(); ++t) {
    Track& tr = tracks[t];
    if (tr.kind != TrackKind::Unknown || process_display_name(*this, tr) != "CPU functions") continue;
    tr.kind = TrackKind::HostOther;
    const StrId cpu_op = strings.intern("cpu_op");
    for (uint32_t i = track_slices[t].begin; i < track_slices[t].end; ++i)
      if (slices[i].cat == kEmptyStr) slices[i].cat = cpu_op;
    if (meta.platform.empty()) meta.platform = "cpu";
    if (meta.framework.empty()) meta.framework = "pytorch";
  }
  std::vector<KinetoCat> by_str(strings.size(), KinetoCat::None);
  std::vector<bool> seen(strings.size(), false);
  auto cat_of = [&](StrId c) {
    if (!seen[c]) {
      seen[c] = true;
      by_str[c] = kineto_category(str(c));
    }
    return by_str[c];
  };
  bool ascend = false, gpu = false, hip = false, cuda = false, runtime = false, mtia = false;
  std::map<int32_t, uint64_t> gpu_slices;  // device -> its events: the busiest is the run's device
  for (uint32_t t = 0; t < tracks.size(); ++t) {
    Track& tr = tracks[t];
    if (tr.kind == TrackKind::Device) ascend = true;  // "Ascend Hardware", by name
    if (tr.kind != TrackKind::Unknown) continue;
    bool device = false, host = false;
    for (uint32_t i = track_slices[t].begin; i < track_slices[t].end; ++i) {
      KinetoCat k = cat_of(slices[i].cat);
      if (k == KinetoCat::GpuKernel || k == KinetoCat::GpuMemcpy || k == KinetoCat::GpuMemset) device = true;
      else if (k == KinetoCat::HostOp || k == KinetoCat::HostRuntime) host = true;
      else if (k == KinetoCat::None && str(slices[i].cat).rfind("mtia", 0) == 0) mtia = true;
      if (k == KinetoCat::HostRuntime) runtime = true;
      if (k == KinetoCat::HostRuntime && !(hip && cuda)) {
        std::string_view n = str(slices[i].name);
        if (n.rfind("hip", 0) == 0) hip = true;
        else if (n.rfind("cu", 0) == 0) cuda = true;
      }
    }
    if (device) {
      tr.kind = TrackKind::Device;
      gpu = true;
      // "GPU 3" labels were read above; without metadata Kineto's GPU pid is the device id.
      if (tr.device < 0 && tr.pid >= 0 && tr.pid < 4096) tr.device = static_cast<int32_t>(tr.pid);
      gpu_slices[tr.device] += track_slices[t].end - track_slices[t].begin;
    } else if (host) {
      tr.kind = TrackKind::HostOther;
    }
  }
  if (gpu && meta.device < 0) {
    auto busiest = std::max_element(gpu_slices.begin(), gpu_slices.end(),
                                    [](const auto& a, const auto& b) { return a.second < b.second; });
    meta.device = busiest->first;
  }
  // CUDA/HIP runtime calls without any GPU activity (captured without ProfilerActivity.CUDA,
  // or with the CUPTI range profiler) still make a GPU run, not a CPU-only one; Meta's MTIA
  // accelerator writes its own categories (mtia_ccp_events, mtia_runtime), read as no device.
  if (meta.platform.empty() && (ascend || gpu || runtime || mtia))
    meta.platform = ascend ? "ascend" : (gpu || runtime) ? "gpu" : "mtia";
  // A GPU trace's steps last until the work they launched ends (docs/overlap.md).
  if (gpu && !ascend) meta.step_semantics = StepSemantics::LaunchedWork;
  if ((gpu || runtime) && meta.gpu_runtime.empty() && (hip || cuda)) meta.gpu_runtime = hip ? "hip" : "cuda";
}

// A trace without ProfilerStep#N (an inference loop profiled without a schedule): its steps are a
// serving engine's iterations where its annotations say them (one step each, whatever batch each
// name carries; GPU and Ascend traces alike), else, in a GPU trace, the iterations it repeats,
// when it marks them (docs/overlap.md,
// "Steps without ProfilerStep"). Candidates, on each host thread: the outermost record_function
// ranges (category user_annotation, inside no other), and the outermost module forwards of a
// with_stack trace ("nn.Module: NAME" frames inside no other module). An instance's extent is its
// host span and the device work launched from inside it (a CUDA graph replay's host call is short,
// its work is not). A name is the step when it repeats at least kMinIterations times without
// overlap and its instances' extents cover at least half of the span from the first one's start
// to the last one's end (a range around a small part of each iteration, such as one kernel's
// wrapper, does not); of several, the one with the most time, a record_function range before a
// module on a tie. Each instance is a step that lasts until the next one starts (the loop's
// period: what the loop does between two marked ranges, such as a decode loop's sampling, is its
// iteration's), unless that period is over twice the median one: then the step ends with its own
// host span (the window still runs to the end of its launched work: a break between loops, such as the
// next request's set-up, is in no step).
namespace {

struct Candidate {
  std::vector<uint32_t> slices;
  bool module = false;
};

// The latest end of the device work launched by each runtime call (by correlation).
std::unordered_map<uint32_t, Ns> launched_ends(const RunModel& m) {
  std::unordered_map<uint32_t, Ns> out;
  for (uint32_t t = 0; t < m.tracks.size() && t < m.track_slices.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::Device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& d = m.slices[i];
      if (d.corr == kNoId) continue;
      auto call = m.correlation.by_id.find(d.corr);
      if (call == m.correlation.by_id.end()) continue;
      Ns& e = out[call->second];
      e = std::max(e, d.end());
    }
  }
  return out;
}

// An instance's extent: its end, or later, the end of the device work launched from inside it.
Ns extent_end(const RunModel& m, uint32_t slice, const std::unordered_map<uint32_t, Ns>& launched) {
  const Slice& s = m.slices[slice];
  Ns end = s.end();
  for (uint32_t j = slice + 1; j < m.track_slices[s.track].end && m.slices[j].ts < s.end(); ++j)
    if (auto it = launched.find(j); it != launched.end()) end = std::max(end, it->second);
  return end;
}

// A serving engine's iterations, by its own annotations (model/engine_patterns.h): each one is a
// step, with its phase. False: the trace holds none.
bool engine_iteration_steps(RunModel& m) {
  const std::vector<PatternHit> its = engine_iterations(m);
  if (its.empty()) return false;
  int64_t id = 0;
  for (const PatternHit& h : its) {
    m.steps.push_back(Step{++id, h.start, h.end, SourceRef{m.slices[h.slice].loc, 0}});
    m.meta.iteration_phases.push_back(h.match.phase);
  }
  m.meta.step_source = kEngineIterationSource;
  m.meta.engine_iteration_steps = true;
  return true;
}

}  // namespace

void RunModel::derive_iteration_steps() {
  if (engine_iteration_steps(*this)) return;
  if (meta.step_semantics != StepSemantics::LaunchedWork) return;  // the repeat rule is the GPU traces'
  constexpr size_t kMinIterations = 3;
  const StrId user_annotation = strings.find("user_annotation");
  const StrId python_function = strings.find("python_function");
  if (user_annotation == kNone32 && python_function == kNone32) return;
  std::map<std::pair<uint32_t, StrId>, Candidate> by;  // (track, name)
  for (uint32_t t = 0; t < tracks.size() && t < track_slices.size(); ++t) {
    const TrackKind k = tracks[t].kind;
    if (k != TrackKind::HostPython && k != TrackKind::HostOther) continue;
    Ns range_end = -1, module_end = -1;  // the enclosing candidate of each kind, by its end
    for (uint32_t i = track_slices[t].begin; i < track_slices[t].end; ++i) {
      const Slice& s = slices[i];
      if (s.cat == user_annotation && user_annotation != kNone32) {
        if (s.ts < range_end) continue;  // inside another range
        range_end = s.end();
        by[{t, s.name}].slices.push_back(i);
      } else if (s.cat == python_function && python_function != kNone32) {
        if (s.ts < module_end || str(s.name).rfind("nn.Module: ", 0) != 0) continue;
        module_end = s.end();
        Candidate& c = by[{t, s.name}];
        c.module = true;
        c.slices.push_back(i);
      }
    }
  }
  std::unordered_map<uint32_t, Ns> launched;
  bool launched_known = false;
  const Candidate* best = nullptr;
  StrId best_name = kEmptyStr;
  Ns best_total = 0;
  for (const auto& [key, c] : by) {
    if (c.slices.size() < kMinIterations) continue;
    if (!launched_known) launched = launched_ends(*this), launched_known = true;
    std::vector<Ns> ends(c.slices.size());
    Ns total = 0;
    bool overlap = false;
    for (size_t j = 0; j < c.slices.size(); ++j) {
      const Slice& s = slices[c.slices[j]];
      ends[j] = extent_end(*this, c.slices[j], launched);
      if (j > 0 && s.ts < slices[c.slices[j - 1]].end()) overlap = true;
      // each extent up to the next instance's start: no time counted twice
      const Ns until = j + 1 < c.slices.size() ? std::min(ends[j], slices[c.slices[j + 1]].ts) : ends[j];
      total += std::max<Ns>(0, until - s.ts);
    }
    const Ns span = ends.back() - slices[c.slices.front()].ts;
    if (overlap || span <= 0 || 2 * total < span) continue;
    if (best == nullptr || total > best_total || (total == best_total && best->module && !c.module)) {
      best = &c;
      best_name = key.second;
      best_total = total;
    }
  }
  if (best == nullptr) return;
  const std::vector<uint32_t>& v = best->slices;
  std::vector<Ns> periods;
  for (size_t j = 0; j + 1 < v.size(); ++j) periods.push_back(slices[v[j + 1]].ts - slices[v[j]].ts);
  std::vector<Ns> sorted = periods;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>((sorted.size() - 1) / 2), sorted.end());
  const Ns median = sorted[(sorted.size() - 1) / 2];
  int64_t id = 0;
  for (size_t j = 0; j < v.size(); ++j) {
    const Slice& s = slices[v[j]];
    const bool loop = j < periods.size() && periods[j] <= 2 * median;
    steps.push_back(Step{++id, s.ts, loop ? slices[v[j + 1]].ts : s.end(), SourceRef{s.loc, 0}});
  }
  std::string name(str(best_name));
  if (best->module) name = name.substr(11);  // "nn.Module: "
  meta.step_source = std::string(best->module ? "nn.Module forward '" : "record_function '") + name + "'";
}
}  // namespace npu
