#include "facts/frame/run_frame.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include "facts/graph_calls.h"

namespace npu {
namespace {

StepAssignment assignment_of(const RunMetadata& meta) {
  const StepSemantics s = meta.step_semantics;
  if (meta.engine_iteration_steps && s != StepSemantics::LaunchedWork) return StepAssignment::ClippedWindows;
  switch (s) {
    case StepSemantics::LaunchedWork: return StepAssignment::LaunchedWork;
    case StepSemantics::StepTasks: return StepAssignment::OwnTasks;
    case StepSemantics::MsprofTasks: return StepAssignment::OwnTasksAll;
    case StepSemantics::CaptureSegments: break;
  }
  return StepAssignment::SegmentsByStart;
}

}  // namespace

bool RunFrame::communication_from_ops(const RunModel& m) {
  return m.meta.step_semantics == StepSemantics::StepTasks || m.meta.step_semantics == StepSemantics::MsprofTasks;
}

RunFrame::RunFrame(const RunModel& m)
    : m_(m),
      assignment_(assignment_of(m.meta)),
      device_(extract_device_timeline(m, communication_from_ops(m))),
      launches_(pick_launches(m, device_)) {
  const GraphCalls calls(m);  // the run's graph executions, found once
  keep_first_launch_per_graph(calls, launches_.launches,
                              [&](const Launch& l) -> const Flow& { return launches_.flows(m)[l.flow]; });
  make_steps();
  if (launched_work()) launched_ = launched_ops(m, pseudo_ ? std::vector<Step>{} : steps_);
  else graph_tasks_ = graph_launched_tasks(m, calls);
  if (pseudo_)
    for (LaunchedOp& op : launched_) op.step = 0;  // the pseudo-step launched everything
  windows_ = device_step_windows(m, steps_, launched_work() ? &launched_ : nullptr, &graph_tasks_);
  if (pseudo_ && device_.has_device) {
    // The pseudo-step's window is the device window.
    StepWindow& w = windows_[0];
    w.start = device_.window.start;
    w.end = device_.window.end;
    if (launched_work()) w.launched_tasks = 0, w.launched_end = kNoId;
  }
  window_index_.emplace(windows_);
  if (!launched_work()) {
    for (const Flow& f : m.flows)
      if (f.kind == FlowKind::HostToDevice && f.end_slice != kNone32 && f.start_slice != kNone32)
        arrows_.emplace_back(f.end_slice, f.start_slice);
    // A task a graph execution launched has no arrow: the execution call is its launch.
    for (const GraphLaunchedTask& g : graph_tasks_) arrows_.emplace_back(g.task, g.call);
  }
  // The first arrow of a task is its launch (stable: in flow order, graph executions after).
  std::stable_sort(arrows_.begin(), arrows_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

// The steps of the run, or one pseudo-step over everything seen: the device window, the
// launches (host call and device start) and the host operators.
void RunFrame::make_steps() {
  steps_ = m_.steps;
  if (!steps_.empty()) return;
  Ns lo = std::numeric_limits<Ns>::max(), hi = std::numeric_limits<Ns>::min();
  auto take = [&](Ns a, Ns b) {
    lo = std::min(lo, a);
    hi = std::max(hi, b);
  };
  if (device_.has_device) take(device_.window.start, device_.window.end);
  for (const Launch& l : launches_.launches) take(std::min(l.launch, l.start), std::max(l.launch, l.start));
  const StrId cpu_op = m_.strings.find("cpu_op");
  for (uint32_t t = 0; t < m_.tracks.size() && cpu_op != kNone32; ++t) {
    if (!is_host_op_track(m_.tracks[t])) continue;
    for (uint32_t i = m_.track_slices[t].begin; i < m_.track_slices[t].end; ++i)
      if (m_.slices[i].cat == cpu_op) take(m_.slices[i].ts, m_.slices[i].end());
  }
  if (lo > hi) return;
  steps_.push_back(Step{kNoId, lo, hi, {}});  // every lookup gives the pseudo-step: no +1 for an end at hi
  pseudo_ = true;
}

const std::vector<StepWindow>& RunFrame::scheduled_windows() const { return pseudo_ ? no_windows_ : windows_; }

int RunFrame::step_of_host(Ns ts) const {
  if (pseudo_) return 0;
  return step_holding(steps_, ts, false);
}

int64_t RunFrame::step_id_of_host(Ns ts) const {
  const int i = step_of_host(ts);
  return i >= 0 && !pseudo_ ? steps_[static_cast<size_t>(i)].id : kNoId;
}

int RunFrame::step_of_device(Ns ts) const {
  if (pseudo_) return 0;
  return window_index_->at(ts);
}

int RunFrame::step_of_launch(Ns ts) const {
  if (pseudo_) return 0;
  return step_holding(steps_, ts);
}

uint32_t RunFrame::launch_of(uint32_t device_slice) const {
  if (launched_work()) {
    auto o = std::lower_bound(launched_.begin(), launched_.end(), device_slice,
                              [](const LaunchedOp& x, uint32_t v) { return x.slice < v; });
    return o != launched_.end() && o->slice == device_slice ? o->call : kNone32;
  }
  auto a = std::lower_bound(arrows_.begin(), arrows_.end(), device_slice,
                            [](const auto& x, uint32_t v) { return x.first < v; });
  return a != arrows_.end() && a->first == device_slice ? a->second : kNone32;
}

}  // namespace npu
