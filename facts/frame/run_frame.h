// The run's frame: which step, which launch (docs/architecture.md, "The frame"). Built once per
// run, before any diagnostic, from the model the loaders wrote; every diagnostic, the what-if
// replay, the module view and the timeline read it and decide neither again.
//
// The step rule comes from the format unit that wrote the input (model.meta.step_semantics);
// this folder is the only part of facts/ that reads it. What the rule means for the rest of the
// tool is said here as behaviour: how device work is given to steps (assignment()), whether a
// step is the device work it launched (launched_work()), whether a step's host span is its host
// time, whether a step can have Preparing.
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "facts/device_tasks.h"
#include "facts/frame/launch_flows.h"
#include "facts/frame/step_windows.h"
#include "model/model.h"

namespace npu {

// How the device work of a run is given to its steps (docs/overlap.md).
enum class StepAssignment : uint8_t {
  LaunchedWork,     // GPU (Kineto): a step owns what it launched; the windows follow each other
  SegmentsByStart,  // torch_npu text export: each device segment to the window holding its start
  OwnTasks,         // torch_npu database export: each step's own tasks (those starting in its window)
  OwnTasksAll,      // msprof: each iteration's own tasks, its bounds from every device task
  // A serving engine's iterations on Ascend (no profiler rule for them): the device unions clipped
  // to each iteration's window, as GPU steps, so the host's turn between two is in no step
  ClippedWindows,
};

class RunFrame {
 public:
  explicit RunFrame(const RunModel& m);
  RunFrame(const RunFrame&) = delete;
  RunFrame& operator=(const RunFrame&) = delete;

  const RunModel& model() const { return m_; }
  // The device work the breakdown measures (compute, communication, copies, their unions).
  const DeviceTimeline& device() const { return device_; }

  // The steps: the run's own (ProfilerStep#N, msprof's Iteration N), or, without a schedule, one
  // pseudo-step: the device window (the host ops' span when the run has no device work). The one
  // definition of the step of a run without a schedule.
  const std::vector<Step>& steps() const { return steps_; }
  bool pseudo() const { return pseudo_; }
  // Where each step of steps() lies on the device, in the same order.
  const std::vector<StepWindow>& windows() const { return windows_; }
  // The windows of the run's own steps: windows() without the pseudo-step (empty without a schedule).
  const std::vector<StepWindow>& scheduled_windows() const;

  StepAssignment assignment() const { return assignment_; }
  // The step rule in words, as the facts state it (overall.step_semantics).
  const char* rule_name() const {
    return assignment_ == StepAssignment::ClippedWindows ? "engine iterations, each clipped to its own window (Ascend)"
                                                         : to_string(m_.meta.step_semantics);
  }
  // GPU (Kineto): a step is the device work it launched (TensorBoard plugin's rule).
  bool launched_work() const { return assignment_ == StepAssignment::LaunchedWork; }
  // A step's host span is its host time (not msprof's device-side iterations, not the pseudo-step).
  bool host_span_is_step_time() const { return !pseudo_ && assignment_ != StepAssignment::OwnTasksAll; }
  // A step can start with Preparing (host step start -> its first device task): Ascend steps (a
  // serving engine's iteration's input preparation is the host's turn, before its window: none).
  bool steps_have_preparing() const {
    return !pseudo_ && !launched_work() && assignment_ != StepAssignment::ClippedWindows;
  }
  // The run's communication is its communication operators alone (the profiler merges each
  // step's own operators: database exports, msprof), not the device HCCL tasks.
  static bool communication_from_ops(const RunModel& m);

  // The step of a host event: the step whose host span [start, end) holds ts; -1: none. The
  // pseudo-step holds every event of the run.
  int step_of_host(Ns ts) const;
  // The step of a device event: the first step whose device window holds it (docs/overlap.md;
  // GPU: a step lasts until the work it launched ends).
  int step_of_device(Ns ts) const;
  // The id of the step whose host span holds ts; kNoId for none and for the pseudo-step.
  int64_t step_id_of_host(Ns ts) const;
  // The step whose host span [start, end] holds a launch at ts (end inclusive: torch_npu's match).
  int step_of_launch(Ns ts) const;

  // GPU runs: each device op of the run's GPU (markers aside), in slice order, with the step
  // that launched it (the pseudo-step: 0) and the runtime call joined by correlation id.
  const std::vector<LaunchedOp>& launched() const { return launched_; }
  // The host call that launched a device slice (GPU: by correlation id; Ascend: its HostToDevice
  // arrow, else the graph execution that launched it: graph_launched_tasks), or kNone32.
  uint32_t launch_of(uint32_t device_slice) const;
  // Ascend: each launched task's origin on the host, sorted by slice (launch_origins(),
  // step_windows.h); `with_graphs`: the tasks graph executions launched too. Computed on each
  // call (the module view and the inference facts read it once).
  // Ascend: the tasks graph executions launched (graph_launched_tasks), sorted by task.
  const std::vector<GraphLaunchedTask>& graph_launched() const { return graph_tasks_; }
  std::vector<LaunchOrigin> origins(bool with_graphs = false) const {
    return launch_origins(m_, with_graphs ? &graph_tasks_ : nullptr);
  }
  // The launches the dispatch facts measure and the kind of arrow the timeline draws: one arrow
  // per device task, and one per graph execution (its later tasks' lags say nothing about the
  // host keeping up: graph_calls.h).
  const LaunchFlows& launches() const { return launches_; }

 private:
  void make_steps();

  const RunModel& m_;
  StepAssignment assignment_;
  DeviceTimeline device_;
  std::vector<Step> steps_;
  bool pseudo_ = false;
  std::vector<StepWindow> windows_;
  std::vector<StepWindow> no_windows_;
  std::vector<LaunchedOp> launched_;
  std::vector<std::pair<uint32_t, uint32_t>> arrows_;  // Ascend: (device slice, host slice), sorted
  std::vector<GraphLaunchedTask> graph_tasks_;         // Ascend: graph_launched_tasks, found once
  LaunchFlows launches_;
  std::optional<StepWindowIndex> window_index_;  // over windows_ (GPU steps)
};

}  // namespace npu
