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

bool is_host_op_track(const Track& t) {
  return t.kind == TrackKind::HostPython || t.kind == TrackKind::HostOther || t.kind == TrackKind::Unknown;
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

const InputFile* RunModel::file(Role role) const {
  for (const auto& f : files)
    if (f.role_id == role) return &f;
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

StrId RunModel::launch_kernel_of(const Slice& s) const {
  auto it = std::lower_bound(launch_kernels.begin(), launch_kernels.end(), s.loc,
                             [](const LaunchKernel& k, uint64_t loc) { return k.loc < loc; });
  return it != launch_kernels.end() && it->loc == s.loc ? it->kernel : kEmptyStr;
}

const OpInputs* RunModel::op_inputs_of(const Slice& s) const {
  auto it = std::lower_bound(op_inputs.begin(), op_inputs.end(), s.loc,
                             [](const OpInputs& o, uint64_t loc) { return o.loc < loc; });
  return it != op_inputs.end() && it->loc == s.loc ? &*it : nullptr;
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
  std::sort(op_inputs.begin(), op_inputs.end(), [](const OpInputs& a, const OpInputs& b) { return a.loc < b.loc; });
  std::sort(launch_kernels.begin(), launch_kernels.end(),
            [](const LaunchKernel& a, const LaunchKernel& b) { return a.loc < b.loc; });
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
  // after the pairing: an iteration's extent reaches the end of the device work it launched
  // (msprof's iterations are device-side: no host annotation bounds them)
  if (steps.empty() && meta.step_semantics != StepSemantics::MsprofTasks) derive_iteration_steps();
}

}  // namespace npu
