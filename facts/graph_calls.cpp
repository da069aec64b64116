#include "facts/graph_calls.h"

#include <algorithm>
#include <limits>

#include "facts/device_tasks.h"

namespace npu {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// The API name without its CANN level prefix ("AscendCL@", "Model@", "Runtime@").
std::string_view api_of(std::string_view name) {
  size_t at = name.find('@');
  return at == std::string_view::npos ? name : name.substr(at + 1);
}

}  // namespace

GraphCallKind graph_call_kind(std::string_view name) {
  std::string_view api = api_of(name);
  // aclmdlRICaptureBegin/End record the tasks of a stream; the replay is aclmdlRIExecute[Async].
  if (starts_with(api, "aclmdlRICaptureBegin")) return GraphCallKind::Capture;
  if (starts_with(api, "aclmdlRIExecute")) return GraphCallKind::AclGraph;
  // aclmdlExecute[Async][V2]; ModelExecute at the model level, rtModelExecute at the runtime
  // level; GE@Infer is the GE layer's name for a model execution (CANN 6.x msprof, MindSpore).
  if (starts_with(api, "aclmdlExecute") || ends_with(api, "ModelExecute") || name == "GE@Infer")
    return GraphCallKind::ModelExecute;
  // cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch (the name test gpu.graph_replay uses).
  if (api.find("GraphLaunch") != std::string_view::npos) return GraphCallKind::GpuGraph;
  return GraphCallKind::None;
}

const char* to_string(GraphCallKind k) {
  switch (k) {
    case GraphCallKind::ModelExecute: return "model_execute";
    case GraphCallKind::AclGraph: return "acl_graph";
    case GraphCallKind::GpuGraph: return "gpu_graph";
    case GraphCallKind::Capture: return "capture";
    case GraphCallKind::None: break;
  }
  return "none";
}

bool graph_call_is_async(std::string_view name) {
  std::string_view api = api_of(name);
  return api.find("Async") != std::string_view::npos || graph_call_kind(name) == GraphCallKind::GpuGraph;
}

GraphCalls::GraphCalls(const RunModel& m) : m_(m) {
  // Classify each distinct name once: host tracks hold millions of slices and few names.
  std::vector<int8_t> kind(m.strings.size(), -1);
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind == TrackKind::Device) continue;
    Ns open_end = -1;  // end of the outermost execution call open on this track
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      int8_t& k = kind[s.name];
      if (k < 0) k = static_cast<int8_t>(graph_call_kind(m.str(s.name)));
      if (static_cast<GraphCallKind>(k) == GraphCallKind::None) continue;
      all_.push_back(i);
      if (static_cast<GraphCallKind>(k) == GraphCallKind::Capture) continue;
      if (!calls_.empty() && m.slices[calls_.back()].track == t && s.ts <= open_end) continue;  // nested
      calls_.push_back(i);
      open_end = s.end();
    }
  }
}

uint32_t GraphCalls::call_at(uint32_t track, Ns ts) const {
  // calls_ is ordered by (track, start): the last call on `track` starting at or before ts.
  auto it = std::upper_bound(calls_.begin(), calls_.end(), std::pair{track, ts},
                             [&](const std::pair<uint32_t, Ns>& v, uint32_t c) {
                               const Slice& s = m_.slices[c];
                               return v.first != s.track ? v.first < s.track : v.second < s.ts;
                             });
  if (it == calls_.begin()) return kNone32;
  const Slice& s = m_.slices[*std::prev(it)];
  return s.track == track && ts <= s.end() ? *std::prev(it) : kNone32;
}

uint32_t GraphCalls::launched_by(const Flow& f) const {
  if (f.start_slice == kNone32) return kNone32;
  GraphCallKind k = graph_call_kind(m_.str(m_.slices[f.start_slice].name));
  if (k == GraphCallKind::None || k == GraphCallKind::Capture) return kNone32;
  return call_at(f.start_track, f.start_ts);
}

namespace {

struct ExecWindow {
  Ns start = 0, end = 0;
  uint32_t call = 0;  // slice index of the execution call
};

class ExecWindows {
 public:
  ExecWindows(const RunModel& m, const GraphCalls& calls) {
    const auto& c = calls.calls();
    for (size_t k = 0; k < c.size(); ++k) {
      const Slice& s = m.slices[c[k]];
      Ns end = s.end();
      if (graph_call_is_async(m.str(s.name))) {
        bool next_on_track = k + 1 < c.size() && m.slices[c[k + 1]].track == s.track;
        end = next_on_track ? std::max(end, m.slices[c[k + 1]].ts - 1) : std::numeric_limits<Ns>::max();
      }
      windows_.push_back({s.ts, end, c[k]});
    }
    std::stable_sort(windows_.begin(), windows_.end(),
                     [](const ExecWindow& a, const ExecWindow& b) { return a.start < b.start; });
    Ns run_max = std::numeric_limits<Ns>::min();
    for (const ExecWindow& w : windows_) max_end_.push_back(run_max = std::max(run_max, w.end));
  }

  // The window holding ts (the latest-starting one), or nullptr.
  const ExecWindow* at(Ns ts) const {
    auto it =
        std::upper_bound(windows_.begin(), windows_.end(), ts, [](Ns v, const ExecWindow& w) { return v < w.start; });
    size_t i = static_cast<size_t>(it - windows_.begin());
    if (i == 0 || max_end_[i - 1] < ts) return nullptr;
    for (size_t budget = 64; i > 0 && budget > 0; --i, --budget)
      if (windows_[i - 1].end >= ts) return &windows_[i - 1];
    // An earlier window holds ts (max_end_ says so) but lies deeper than the bounded walk: the
    // task is graph-launched, and is credited to the last window looked at.
    return &windows_[i];
  }

 private:
  std::vector<ExecWindow> windows_;  // by start
  std::vector<Ns> max_end_;          // max_end_[i]: the latest end among windows_[0..i]
};

}  // namespace

std::vector<GraphLaunchedTask> graph_launched_tasks(const RunModel& m, const GraphCalls& calls) {
  std::vector<GraphLaunchedTask> out;
  if (calls.empty()) return out;
  const ExecWindows windows(m, calls);
  // Device tasks at the end of a launch arrow not drawn from a graph call: launched one by one.
  std::vector<bool> per_op(m.slices.size(), false);
  for (const Flow& f : m.flows) {
    bool launch = f.kind == FlowKind::HostToDevice || f.kind == FlowKind::AsyncNpu || f.kind == FlowKind::Ac2g;
    if (!launch || f.end_slice == kNone32) continue;
    if (calls.launched_by(f) == kNone32) per_op[f.end_slice] = true;
  }
  for (uint32_t t = 0; t < m.tracks.size() && t < m.track_slices.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::Device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      if (per_op[i] || classify_device_task(m, m.slices[i]) == TaskClass::Marker) continue;
      if (const ExecWindow* w = windows.at(m.slices[i].ts)) out.push_back({i, w->call});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const GraphLaunchedTask& a, const GraphLaunchedTask& b) { return a.task < b.task; });
  return out;
}

}  // namespace npu
