#include "facts/frame/step_windows.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace npu {
namespace {

// A serving engine's iterations: each one's launched ops with their launch calls' ends.
std::vector<std::vector<OwnOp>> own_ops(const RunModel& m, const std::vector<LaunchedOp>& ops, size_t steps) {
  std::vector<std::vector<OwnOp>> own(steps);
  for (const LaunchedOp& op : ops) {
    if (op.step < 0 || op.call == kNone32) continue;
    const Slice& d = m.slices[op.slice];
    own[static_cast<size_t>(op.step)].push_back({d.ts, d.end(), m.slices[op.call].end(), op.slice});
  }
  return own;
}

// GPU (Kineto): the TensorBoard profiler plugin's rule (StepSemantics::LaunchedWork). A step
// owns the device ops it launched (launched_ops; a cudaGraphLaunch owns every kernel of the
// graph). The first step starts after any device op that no step owns and that ends before the
// step's first own op (the warm-up's queue draining); each step starts at max(previous step's
// end, its host start) and ends at max(its host end, its last own op's end). Without any owned
// op the host spans stay.
void launched_work_windows(const RunModel& m, const std::vector<Step>& steps, const std::vector<LaunchedOp>& ops,
                           std::vector<StepWindow>& w) {
  std::vector<Ns> first(steps.size(), std::numeric_limits<Ns>::max());
  std::vector<Ns> last(steps.size(), std::numeric_limits<Ns>::min());
  std::vector<Ns> unowned_ends;
  uint64_t owned = 0;
  for (const LaunchedOp& op : ops) {
    const Slice& s = m.slices[op.slice];
    if (op.step < 0) {
      unowned_ends.push_back(s.end());
      continue;
    }
    const size_t u = static_cast<size_t>(op.step);
    first[u] = std::min(first[u], s.ts);
    last[u] = std::max(last[u], s.end());
    ++w[u].launched_tasks;
    ++owned;
  }
  if (owned == 0) return;
  // A serving engine's iteration starts after the holes in its launched work (own_window).
  std::vector<std::vector<OwnOp>> own;
  if (m.meta.engine_iteration_steps) own = own_ops(m, ops, steps.size());
  Ns prev = steps[0].start;
  if (w[0].launched_tasks > 0)
    for (Ns e : unowned_ends)
      if (e < first[0]) prev = std::max(prev, e);
  for (size_t i = 0; i < steps.size(); ++i) {
    Ns start = std::max(prev, steps[i].start);
    Ns end = steps[i].end;
    if (w[i].launched_tasks > 0) {
      end = std::max(end, last[i]);
      w[i].launched_end = last[i];
    }
    if (!own.empty() && !own[i].empty()) {
      const OwnWindow o = own_window(own[i], start);
      if (o.hole > 0) w[i].hole = o.hole, w[i].hole_end_slice = o.first_slice, start = std::max(start, o.start);
    }
    end = std::max(end, start);
    w[i].start = start;
    w[i].end = end;
    prev = end;
  }
}

}  // namespace

Ns turns_between(const std::vector<StepWindow>& w) {
  Ns turns = 0;
  for (size_t i = 1; i < w.size(); ++i) turns += turn_between(w[i - 1].end, w[i].start, w[i].hole);
  return turns;
}

OwnWindow own_window(std::vector<OwnOp>& ops, Ns not_before) {
  OwnWindow w;
  if (ops.empty()) return w;
  std::sort(ops.begin(), ops.end(), [](const OwnOp& a, const OwnOp& b) { return a.start < b.start; });
  Ns end = not_before;
  w.start = ops.front().start, w.first_slice = ops.front().slice;
  for (const OwnOp& op : ops) {
    if (op.start - std::max(end, op.ready) >= kHoleNs) {
      w.hole += op.start - std::max(end, op.ready);
      w.start = op.start, w.first_slice = op.slice;
    }
    end = std::max(end, op.end);
  }
  w.end = end;
  return w;
}

TaskQueue::TaskQueue(const RunModel& m) {
  for (const Flow& f : m.flows) {
    if (f.kind != FlowKind::AsyncTaskQueue || f.end_slice == kNone32) continue;
    const Slice& d = m.slices[f.end_slice];
    dequeues_.push_back({d.ts, d.end(), f.start_ts, f.start_track});
  }
  std::sort(dequeues_.begin(), dequeues_.end(), [](const Dequeue& a, const Dequeue& b) { return a.start < b.start; });
}

const TaskQueue::Dequeue* TaskQueue::holding(Ns ts) const {
  auto it =
      std::upper_bound(dequeues_.begin(), dequeues_.end(), ts, [](Ns v, const Dequeue& d) { return v < d.start; });
  // Dequeues of one queue thread do not overlap; look back a few in case of several threads.
  for (int k = 0; k < 4 && it != dequeues_.begin(); ++k) {
    --it;
    if (ts <= it->end) return &*it;
  }
  return nullptr;
}

int step_holding(const std::vector<Step>& steps, Ns ts, bool end_inclusive) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts, [](Ns v, const Step& s) { return v < s.start; });
  if (it == steps.begin()) return -1;
  --it;
  return ts < it->end || (end_inclusive && ts == it->end) ? static_cast<int>(it - steps.begin()) : -1;
}

std::vector<LaunchedOp> launched_ops(const RunModel& m, const std::vector<Step>& steps) {
  std::vector<LaunchedOp> out;
  const auto& host_by_corr = runtime_calls_by_correlation(m);
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const Track& tr = m.tracks[t];
    if (tr.kind != TrackKind::Device || tr.device != m.meta.device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      if (classify_device_task(m, s) == TaskClass::Marker) continue;
      int k = -1;
      uint32_t launch = kNone32;
      if (s.corr != kNoId) {
        auto h = host_by_corr.find(s.corr);
        if (h != host_by_corr.end()) {
          launch = h->second;
          const Slice& call = m.slices[launch];
          k = step_holding(steps, call.ts);
          if (k >= 0 && call.end() > steps[static_cast<size_t>(k)].end) k = -1;  // crosses the step's end
        }
      }
      out.push_back({i, k, launch});
    }
  }
  return out;
}

std::vector<LaunchOrigin> launch_origins(const RunModel& m, const std::vector<GraphLaunchedTask>* graphs) {
  const TaskQueue queue(m);
  // Where a launch made at `ts` on `track` came from: its Enqueue when a Dequeue holds it.
  auto origin = [&](uint32_t task, uint32_t track, Ns ts, uint32_t call, bool graph) {
    const TaskQueue::Dequeue* d = queue.holding(ts);
    return d ? LaunchOrigin{task, m.tracks[d->enqueue_track].tid, d->enqueued, call, graph}
             : LaunchOrigin{task, m.tracks[track].tid, ts, call, graph};
  };
  std::vector<LaunchOrigin> direct, launched, graphed;
  for (const Flow& f : m.flows) {
    if (f.end_slice == kNone32 || m.tracks[f.end_track].kind != TrackKind::Device) continue;
    if (f.kind == FlowKind::AsyncNpu)
      direct.push_back({f.end_slice, m.tracks[f.start_track].tid, f.start_ts, f.start_slice, false});
    if (f.kind == FlowKind::HostToDevice)
      launched.push_back(origin(f.end_slice, f.start_track, f.start_ts, f.start_slice, false));
  }
  if (graphs)
    for (const GraphLaunchedTask& g : *graphs) {
      const Slice& c = m.slices[g.call];
      graphed.push_back(origin(g.task, c.track, c.ts, g.call, true));
    }
  // The first arrow of each task; async_npu before HostToDevice (a graph's tasks have none).
  auto by_slice = [](const LaunchOrigin& a, const LaunchOrigin& b) { return a.slice < b.slice; };
  std::stable_sort(direct.begin(), direct.end(), by_slice);
  std::stable_sort(launched.begin(), launched.end(), by_slice);
  std::vector<LaunchOrigin> arrows, out;
  std::merge(direct.begin(), direct.end(), launched.begin(), launched.end(), std::back_inserter(arrows), by_slice);
  std::merge(arrows.begin(), arrows.end(), graphed.begin(), graphed.end(), std::back_inserter(out), by_slice);
  out.erase(std::unique(out.begin(), out.end(),
                        [](const LaunchOrigin& a, const LaunchOrigin& b) { return a.slice == b.slice; }),
            out.end());
  return out;
}

namespace {

// A serving engine's iterations on Ascend (RunMetadata::engine_iteration_steps; the profiler has
// no rule for them): each one's launched tasks are those whose origin (launch_origins, graph
// executions' tasks included) its host span holds; its window runs from the first of them after
// the holes (own_window) to the later of the last one's end and the host span's end (torch_npu's
// window end). Windows do not overlap: one starts no earlier than the one before ends (the
// breakdown clips the device work to them, StepAssignment::ClippedWindows). Without a launched
// task the host span stays.
void ascend_iteration_windows(const RunModel& m, const std::vector<Step>& steps,
                              const std::vector<GraphLaunchedTask>& graphs, std::vector<StepWindow>& w) {
  std::vector<std::vector<OwnOp>> own(steps.size());
  for (const LaunchOrigin& o : launch_origins(m, &graphs)) {
    const int i = step_holding(steps, o.ts);
    if (i < 0) continue;
    const Slice& t = m.slices[o.slice];
    const Ns ready = o.call != kNone32 ? m.slices[o.call].end() : o.ts;  // the launch returned
    own[static_cast<size_t>(i)].push_back({t.ts, t.end(), ready, o.slice});
  }
  Ns prev = -1, prev_end = std::numeric_limits<Ns>::min();  // the device work before; the window before
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!own[i].empty()) {
      w[i].launched_tasks = own[i].size();
      const OwnWindow o = own_window(own[i], prev);
      prev = std::max(prev, o.end);
      w[i].start = o.start;
      w[i].end = std::max(o.end, steps[i].end);
      w[i].hole = o.hole;
      if (o.hole > 0) w[i].hole_end_slice = o.first_slice;
    }
    w[i].start = std::max(w[i].start, prev_end);
    w[i].end = std::max(w[i].end, w[i].start);
    prev_end = w[i].end;
  }
}

}  // namespace

std::vector<StepWindow> device_step_windows(const RunModel& m, const std::vector<Step>& steps,
                                            const std::vector<LaunchedOp>* launched,
                                            const std::vector<GraphLaunchedTask>* graphs) {
  std::vector<StepWindow> w(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) w[i] = {steps[i].start, steps[i].end, steps[i].start, steps[i].end, 0};
  if (steps.empty() || m.meta.step_semantics == StepSemantics::MsprofTasks) return w;
  if (m.meta.step_semantics == StepSemantics::LaunchedWork) {
    launched_work_windows(m, steps, launched ? *launched : launched_ops(m, steps), w);
    return w;
  }
  if (m.meta.engine_iteration_steps) {
    ascend_iteration_windows(m, steps, graphs ? *graphs : graph_launched_tasks(m, GraphCalls(m)), w);
    return w;
  }

  // The profiler bounds the window by the tasks of the step's first and last launch (the
  // launches' host times; one launch may start several tasks).
  struct Edge {
    Ns key = std::numeric_limits<Ns>::max(), task = std::numeric_limits<Ns>::max();
  };
  std::vector<Edge> first(steps.size());
  std::vector<Edge> last(steps.size(), Edge{std::numeric_limits<Ns>::min(), std::numeric_limits<Ns>::min()});
  const TaskQueue queue(m);
  const bool through_queue = queue.active() && m.meta.step_semantics == StepSemantics::CaptureSegments;
  for (const Flow& f : m.flows) {
    if (f.kind != FlowKind::HostToDevice || f.end_slice == kNone32) continue;
    if (m.tracks[f.end_track].kind != TrackKind::Device) continue;
    Ns key = f.start_ts;
    if (through_queue) {
      const TaskQueue::Dequeue* d = queue.holding(f.start_ts);
      if (!d) continue;
      key = d->enqueued;
    }
    const int i = step_holding(steps, key);
    if (i < 0) continue;
    const Slice& t = m.slices[f.end_slice];
    auto& lo = first[static_cast<size_t>(i)];
    auto& hi = last[static_cast<size_t>(i)];
    if (key < lo.key) lo = {key, t.ts};
    else if (key == lo.key) lo.task = std::min(lo.task, t.ts);
    if (key > hi.key) hi = {key, t.end()};
    else if (key == hi.key) hi.task = std::max(hi.task, t.end());
    ++w[static_cast<size_t>(i)].launched_tasks;
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    if (w[i].launched_tasks == 0) continue;
    w[i].start = first[i].task;
    w[i].end = std::max(last[i].task, steps[i].end);
  }
  return w;
}

StepWindowIndex::StepWindowIndex(const std::vector<StepWindow>& w) : w_(w), by_start_(w.size()) {
  for (uint32_t i = 0; i < w.size(); ++i) by_start_[i] = i;
  std::stable_sort(by_start_.begin(), by_start_.end(), [&](uint32_t a, uint32_t b) { return w[a].start < w[b].start; });
  max_end_.resize(w.size());
  Ns m = std::numeric_limits<Ns>::min();
  for (size_t k = 0; k < by_start_.size(); ++k) max_end_[k] = m = std::max(m, w[by_start_[k]].end);
}

int StepWindowIndex::at(Ns ts) const {
  auto it = std::upper_bound(by_start_.begin(), by_start_.end(), ts, [&](Ns v, uint32_t i) { return v < w_[i].start; });
  int best = -1;
  // Walk back over the windows starting at or before ts while any of them can still reach ts.
  for (size_t k = static_cast<size_t>(it - by_start_.begin()); k-- > 0;) {
    if (max_end_[k] <= ts) break;
    const uint32_t i = by_start_[k];
    if (ts < w_[i].end && (best < 0 || static_cast<int>(i) < best)) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace npu
