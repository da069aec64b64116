#include "model/model.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>
#include <unordered_map>

#include "base/worker_thread.h"

namespace npu {

const char* to_string(TrackKind k) {
  switch (k) {
    case TrackKind::HostPython: return "host-python";
    case TrackKind::HostGC: return "host-gc";
    case TrackKind::HostCANN: return "host-cann";
    case TrackKind::HostOther: return "host";
    case TrackKind::Device: return "device";
    case TrackKind::Communication: return "communication";
    case TrackKind::Overlap: return "overlap-analysis";
    case TrackKind::Counter: return "counter";
    case TrackKind::Unknown: break;
  }
  return "unknown";
}

const char* to_string(FlowKind k) {
  switch (k) {
    case FlowKind::HostToDevice: return "HostToDevice";
    case FlowKind::AsyncNpu: return "async_npu";
    case FlowKind::AsyncTaskQueue: return "async_task_queue";
    case FlowKind::FwdBwd: return "fwdbwd";
    case FlowKind::Ac2g: return "ac2g";
    case FlowKind::Other: break;
  }
  return "other";
}

const char* to_string(StepSemantics s) {
  switch (s) {
    case StepSemantics::CaptureSegments: return "capture segments by start (torch_npu text export)";
    case StepSemantics::StepTasks: return "each step's own tasks (torch_npu SQLite export)";
    case StepSemantics::MsprofTasks: return "each iteration's own tasks (msprof Overlap Analysis)";
    case StepSemantics::LaunchedWork:
      return "until the device work the step launched ends (TensorBoard profiler plugin, Kineto)";
  }
  return "";
}

FlowKind flow_kind_from_category(std::string_view cat) {
  if (cat == "HostToDevice") return FlowKind::HostToDevice;
  if (cat == "async_npu") return FlowKind::AsyncNpu;
  if (cat == "async_task_queue") return FlowKind::AsyncTaskQueue;
  if (cat == "fwdbwd") return FlowKind::FwdBwd;
  if (cat == "ac2g") return FlowKind::Ac2g;
  return FlowKind::Other;
}

const char* to_string(InputFile::Status s) {
  switch (s) {
    case InputFile::Status::Loaded: return "loaded";
    case InputFile::Status::Empty: return "empty";
    case InputFile::Status::Missing: break;
  }
  return "missing";
}

TrackKind classify_process(std::string_view n) {
  if (n == "Python") return TrackKind::HostPython;
  if (n == "Python GC") return TrackKind::HostGC;
  if (n == "CANN") return TrackKind::HostCANN;
  if (n == "Ascend Hardware") return TrackKind::Device;
  if (n == "HCCL" || n == "Communication") return TrackKind::Communication;
  if (n == "Overlap Analysis") return TrackKind::Overlap;
  if (n == "AI Core Freq" || n == "AI Core Utilization") return TrackKind::Counter;
  return TrackKind::Unknown;
}

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

std::string run_platform(const RunModel& m) {
  if (!m.meta.platform.empty()) return m.meta.platform;
  const std::string& fw = m.meta.framework;
  if (fw == "torch_npu" || fw == "mindspore" || fw.empty()) return "ascend";
  return "cpu";
}

std::string process_display_name(const RunModel& m, const Track& t) {
  if (t.process_name != kEmptyStr) return std::string(m.str(t.process_name));
  if (t.pid >= kStrKeyBase) {
    std::string_view s = m.str(static_cast<StrId>(t.pid - kStrKeyBase));
    return s.empty() ? "(unnamed)" : std::string(s);
  }
  return "pid " + std::to_string(t.pid);
}

uint16_t RunModel::add_file(InputFile f) {
  files.push_back(std::move(f));
  return static_cast<uint16_t>(files.size() - 1);
}

uint16_t RunModel::add_trace_part(uint16_t file, std::string table) {
  for (size_t i = 0; i < trace_parts.size(); ++i)
    if (trace_parts[i].file == file && trace_parts[i].table == table) return static_cast<uint16_t>(i);
  trace_parts.push_back(TracePart{file, std::move(table)});
  return static_cast<uint16_t>(trace_parts.size() - 1);
}

RunModel::DecodedLoc RunModel::decode_loc(uint64_t loc) const {
  if (trace_parts.empty()) return {trace_file, {}, loc};
  size_t part = static_cast<size_t>(loc >> kLocPartShift);
  uint64_t offset = loc & ((uint64_t{1} << kLocPartShift) - 1);
  if (part >= trace_parts.size()) return {trace_file, {}, loc};
  return {trace_parts[part].file, trace_parts[part].table, offset};
}

const InputFile* RunModel::file(std::string_view role) const {
  for (const auto& f : files)
    if (f.role == role) return &f;
  return nullptr;
}

namespace {

int32_t device_from_label(std::string_view label) {
  // "NPU 3" -> 3; "NPU" -> -1.
  auto sp = label.rfind(' ');
  if (sp == std::string_view::npos) return -1;
  int32_t v = -1;
  auto tail = label.substr(sp + 1);
  auto [p, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), v);
  return (ec == std::errc() && p == tail.data() + tail.size()) ? v : -1;
}

bool parse_profiler_step(std::string_view name, int64_t* id) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  auto tail = name.substr(kPrefix.size());
  auto [p, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), *id);
  return ec == std::errc() && p == tail.data() + tail.size();
}

}  // namespace

void LoadStats::add_phase(std::string name, double seconds) {
  Phase p{std::move(name), seconds};
  // Linux: the resident set now (VmRSS) and its peak so far (VmHWM), in kB.
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      double kb = 0;
      if (std::sscanf(line, "VmRSS: %lf", &kb) == 1) p.rss_mb = kb / 1024.0;
      else if (std::sscanf(line, "VmHWM: %lf", &kb) == 1) p.peak_rss_mb = kb / 1024.0;
    }
    std::fclose(f);
  }
  phases.push_back(std::move(p));
}

int64_t RunModel::copy_bytes_of(const Slice& s) const {
  auto it = std::lower_bound(copy_bytes.begin(), copy_bytes.end(), s.loc,
                             [](const CopyBytes& c, uint64_t loc) { return c.loc < loc; });
  return it != copy_bytes.end() && it->loc == s.loc ? it->bytes : -1;
}

void RunModel::finalize() {
  auto t0 = std::chrono::steady_clock::now();
  auto phase_done = [&](const char* name) {
    auto now = std::chrono::steady_clock::now();
    stats.add_phase(name, std::chrono::duration<double>(now - t0).count());
    t0 = now;
  };
  for (auto& t : tracks) {
    if (t.kind == TrackKind::Unknown) t.kind = classify_process(str(t.process_name));
    int32_t dev = device_from_label(str(t.process_label));
    if (dev >= 0) {
      t.device = dev;
      if (meta.device < 0 && (t.kind == TrackKind::Device || t.kind == TrackKind::Overlap)) meta.device = dev;
    }
  }

  sort_slices();
  std::sort(copy_bytes.begin(), copy_bytes.end(), [](const CopyBytes& a, const CopyBytes& b) { return a.loc < b.loc; });
  phase_done("finalize: sort slices");
  track_slices.assign(tracks.size(), Range{});
  for (uint32_t i = 0; i < slices.size();) {
    uint32_t t = slices[i].track, j = i;
    while (j < slices.size() && slices[j].track == t) ++j;
    if (t < track_slices.size()) track_slices[t] = Range{i, j};
    i = j;
  }

  classify_kineto_tracks();

  steps.clear();
  std::unordered_map<int64_t, size_t> step_of_id;  // long captures hold tens of thousands of steps
  for (uint32_t t = 0; t < tracks.size(); ++t) {
    TrackKind k = tracks[t].kind;
    if (k != TrackKind::HostPython && k != TrackKind::HostOther && k != TrackKind::Unknown) continue;
    for (uint32_t i = track_slices[t].begin; i < track_slices[t].end; ++i) {
      int64_t id = 0;
      if (!parse_profiler_step(str(slices[i].name), &id)) continue;
      auto [seen, added] = step_of_id.try_emplace(id, steps.size());
      if (!added) {
        Step* dup = &steps[seen->second];
        // The same step on two host threads: keep the span that covers both.
        Ns end = std::max(dup->end, slices[i].end());
        dup->start = std::min(dup->start, slices[i].ts);
        dup->end = end;
        continue;
      }
      steps.push_back(Step{id, slices[i].ts, slices[i].end(), SourceRef{slices[i].loc, 0}});
    }
  }
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.start < b.start; });
  if (!steps.empty()) meta.step_source = "ProfilerStep#N";
  if (steps.empty() && meta.step_semantics == StepSemantics::LaunchedWork) derive_iteration_steps();
  phase_done("finalize: index tracks and steps");

  // Binding flows to slices is independent per flow: split it over two threads on big runs.
  auto bind = [this](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      Flow& f = flows[i];
      f.start_slice = enclosing_slice(f.start_track, f.start_ts);
      f.end_slice = enclosing_slice(f.end_track, f.end_ts);
    }
  };
  if (flows.size() > 100000 && std::thread::hardware_concurrency() > 1) {
    WorkerThread other([&] { bind(flows.size() / 2, flows.size()); });
    bind(0, flows.size() / 2);
    other.join();
  } else {
    bind(0, flows.size());
  }
  phase_done("finalize: bind flows to slices");
  correlation = correlation_launches(*this);
  phase_done("finalize: pair launches by correlation id");
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

namespace {
bool slice_before(const Slice& a, const Slice& b) { return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur; }
}  // namespace

// A GPU trace without ProfilerStep#N (an inference loop profiled without a schedule): its steps
// are the iterations it repeats, when it marks them. Candidates, on each host thread: the
// outermost record_function ranges (category user_annotation, inside no other), and the
// outermost module forwards of a with_stack trace ("nn.Module: NAME" frames inside no other
// module). A name is the step when it repeats at least kMinIterations times without overlap and
// its instances cover at least half of the span from the first one's start to the last one's end
// (a range around a small part of each iteration, such as one kernel's wrapper, does not); of
// several, the one with the most time, a record_function range before a module on a tie.
void RunModel::derive_iteration_steps() {
  constexpr size_t kMinIterations = 3;
  const StrId user_annotation = strings.find("user_annotation");
  const StrId python_function = strings.find("python_function");
  if (user_annotation == kNone32 && python_function == kNone32) return;
  struct Candidate {
    std::vector<uint32_t> slices;
    bool module = false;
  };
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
  const Candidate* best = nullptr;
  StrId best_name = kEmptyStr;
  Ns best_total = 0;
  for (const auto& [key, c] : by) {
    if (c.slices.size() < kMinIterations) continue;
    Ns total = 0;
    bool overlap = false;
    for (size_t j = 0; j < c.slices.size(); ++j) {
      total += slices[c.slices[j]].dur;
      if (j > 0 && slices[c.slices[j]].ts < slices[c.slices[j - 1]].end()) overlap = true;
    }
    const Ns span = slices[c.slices.back()].end() - slices[c.slices.front()].ts;
    if (overlap || span <= 0 || 2 * total < span) continue;
    if (best == nullptr || total > best_total || (total == best_total && best->module && !c.module)) {
      best = &c;
      best_name = key.second;
      best_total = total;
    }
  }
  if (best == nullptr) return;
  int64_t id = 0;
  for (uint32_t i : best->slices)
    steps.push_back(Step{++id, slices[i].ts, slices[i].end(), SourceRef{slices[i].loc, 0}});
  std::string name(str(best_name));
  if (best->module) name = name.substr(11);  // "nn.Module: "
  meta.step_source = std::string(best->module ? "nn.Module forward '" : "record_function '") + name + "'";
}

bool RunModel::sort_grouped_slices() {
  // The trace loader hands its slices over grouped by track (loaders/track_slice_blocks.h),
  // and within a track they are nearly always in time order already: then only the runs out
  // of order are sorted, in place, with no key table and no second copy of the slices.
  const size_t n = slices.size();
  for (size_t i = 1; i < n; ++i)
    if (slices[i].track < slices[i - 1].track) return false;
  for (size_t b = 0; b < n;) {
    size_t e = b + 1;
    while (e < n && slices[e].track == slices[b].track) ++e;
    // Stable: slices equal in start and duration keep their file order.
    if (!std::is_sorted(slices.begin() + b, slices.begin() + e, slice_before))
      std::stable_sort(slices.begin() + b, slices.begin() + e, slice_before);
    b = e;
  }
  return true;
}

// Orders slices by (track, ts, -dur): parents before children. Sorting the 48-byte records
// directly costs most of a large load, so the order is computed on small (ts, -dur, index)
// records: a stable counting pass groups them by track (tracks are few), each track's run is
// then usually already in time order (profilers write a thread's events in order) and only the
// runs that are not get sorted, on two threads when there are several big ones.
void RunModel::sort_slices() {
  const size_t n = slices.size();
  if (n < 2) return;
  if (n >= kNone32) {
    std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
      if (a.track != b.track) return a.track < b.track;
      if (a.ts != b.ts) return a.ts < b.ts;
      return a.dur > b.dur;
    });
    return;
  }
  if (sort_grouped_slices()) return;
  uint32_t max_track = 0;
  for (const auto& sl : slices) max_track = std::max(max_track, sl.track);
  std::vector<uint32_t> offset(size_t{max_track} + 2, 0);
  for (const auto& sl : slices) ++offset[size_t{sl.track} + 1];
  for (size_t t = 1; t < offset.size(); ++t) offset[t] += offset[t - 1];

  struct Key {
    Ns ts;
    Ns neg_dur;
    uint32_t idx;
    bool operator<(const Key& o) const { return ts != o.ts ? ts < o.ts : neg_dur < o.neg_dur; }
  };
  std::vector<Key> order(n);
  {
    std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
    for (uint32_t i = 0; i < n; ++i) {
      const Slice& sl = slices[i];
      order[fill[sl.track]++] = Key{sl.ts, -sl.dur, i};
    }
  }
  // Sort the tracks whose run is out of order; big runs are split between two threads.
  std::vector<std::pair<uint32_t, uint32_t>> unsorted;
  size_t unsorted_total = 0;
  for (size_t t = 0; t + 1 < offset.size(); ++t) {
    auto b = order.begin() + offset[t], e = order.begin() + offset[t + 1];
    if (!std::is_sorted(b, e)) {
      unsorted.emplace_back(offset[t], offset[t + 1]);
      unsorted_total += offset[t + 1] - offset[t];
    }
  }
  auto sort_runs = [&](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) std::sort(order.begin() + unsorted[r].first, order.begin() + unsorted[r].second);
  };
  if (unsorted_total > 200000 && unsorted.size() > 1 && std::thread::hardware_concurrency() > 1) {
    // Split the runs so both threads get about half of the elements.
    size_t acc = 0, split = 0;
    while (split < unsorted.size() && acc < unsorted_total / 2)
      acc += unsorted[split].second - unsorted[split].first, ++split;
    WorkerThread other([&] { sort_runs(split, unsorted.size()); });
    sort_runs(0, split);
    other.join();
  } else {
    sort_runs(0, unsorted.size());
  }

  // Apply as a gather into a new table: the reads walk each track's slices in file order (a
  // few interleaved sequential streams the prefetcher follows), where following the
  // permutation's cycles in place jumps at random and cost 3x more. The keys are dropped
  // first, so the copy's memory replaces theirs.
  std::vector<uint32_t> from(n);
  for (size_t i = 0; i < n; ++i) from[i] = order[i].idx;
  std::vector<Key>().swap(order);
  std::vector<Slice> sorted;
  sorted.reserve(n);  // not sized: each page is written once, by the copy
  for (size_t i = 0; i < n; ++i) sorted.push_back(slices[from[i]]);
  slices.swap(sorted);
}

uint32_t RunModel::enclosing_slice(uint32_t track, Ns ts) const {
  if (track >= track_slices.size()) return kNone32;
  Range r = track_slices[track];
  if (r.begin == r.end) return kNone32;
  // Last slice that starts at or before ts.
  auto first = slices.begin() + r.begin, last = slices.begin() + r.end;
  auto it = std::upper_bound(first, last, ts, [](Ns v, const Slice& s) { return v < s.ts; });
  if (it == first) return kNone32;
  // Walk back to the innermost slice that still covers ts. Nesting is shallow in practice,
  // so the walk is bounded to keep a pathological track from turning this quadratic.
  int budget = 256;
  for (auto p = it; p != first && budget-- > 0;) {
    --p;
    if (p->end() >= ts) return static_cast<uint32_t>(p - slices.begin());
  }
  return kNone32;
}

}  // namespace npu
