// Where each step lies on the device, as the profiler that wrote the input defines it
// (docs/overlap.md). torch_npu does not use the host ProfilerStep#N span for the device: a
// step's device window starts at the first device task that the step launched and ends at
// the later of its last launched task's end and the host step's end. The time between the host
// step's start and that first task is the step's "Preparing"; it is not device Free.
#pragma once
#include <algorithm>
#include <vector>

#include "facts/device_tasks.h"
#include "facts/graph_calls.h"
#include "model/model.h"

namespace npu {

struct StepWindow {
  // A device segment whose start lies in [start, end) belongs to the step.
  Ns start = 0, end = 0;
  // The host ProfilerStep#N span the window was derived from (the step's own span when the
  // step is device-side, as msprof's "Iteration N").
  Ns host_start = 0, host_end = 0;
  // How many device tasks the step launched (0: the window is the step's own span).
  uint64_t launched_tasks = 0;
  // GPU (LaunchedWork): the end of the last device op the step launched (kNoId: none).
  Ns launched_end = kNoId;
  // A serving engine's iteration (RunMetadata::engine_iteration_steps): the holes its window leaves
  // out (own_window), and its first launched op after them, where the window starts (else kNone32).
  Ns hole = 0;
  uint32_t hole_end_slice = kNone32;
};

// A serving engine's iterations: the device idle between one's window (ending at `end`) and the
// next one's (starting at `next_start`, after its hole `next_hole`): the host's turn between them,
// in no step (the hole, work the trace does not hold, is not the turn's).
inline Ns turn_between(Ns end, Ns next_start, Ns next_hole) { return std::max<Ns>(0, next_start - end - next_hole); }
// The turns between consecutive windows (windows of a serving engine's iterations), summed.
Ns turns_between(const std::vector<StepWindow>& windows);

// An op a step launched: its device span and when its launch call returned.
struct OwnOp {
  Ns start = 0, end = 0, ready = 0;
  uint32_t slice = kNone32;
};
// The own window of one iteration's launched ops (sorted in place by start): from the first op
// after the last hole to the last op's end. A hole is at least kHoleNs during which an op had
// been launched, the device was free of the iteration's earlier work (and, from `not_before`, of
// what came before it: -1 when unknown) and none of its ops ran: the stream waited on work the
// trace does not hold (the previous batch that a window cut from a serving trace drops). Not idle.
struct OwnWindow {
  Ns start = -1, end = -1, hole = 0;
  uint32_t first_slice = kNone32;  // the op the window starts at
};
constexpr Ns kHoleNs = 1'000'000;
OwnWindow own_window(std::vector<OwnOp>& ops, Ns not_before = -1);

// One window per step, in the order of `steps` (sorted by start). GPU (Kineto) traces follow
// the TensorBoard plugin's rule (StepSemantics::LaunchedWork, step_windows.cpp): launches are
// joined to device ops by correlation id, and windows follow each other without overlap.
// Ascend: launches are read from the
// HostToDevice arrows; with torch_npu's task queue (async_task_queue arrows, text export only)
// a launch inside a Dequeue belongs to the step of its Enqueue, and a launch outside every
// Dequeue is not counted, as torch_npu does. Steps with no launched task keep their own span.
// A serving engine's iterations on Ascend (no profiler rule for them) are windowed by their
// launched tasks, graph executions' included, after the holes (step_windows.cpp).
// GPU (LaunchedWork): each device op of the run's GPU (markers aside) with the step whose host
// span wholly holds the runtime call that launched it (joined by correlation id), -1 for none.
// The one place that decides which step launched what; the windows and the self-check read it.
struct LaunchedOp {
  uint32_t slice = 0;
  int32_t step = -1;
  uint32_t call = kNone32;  // the runtime call that launched it (joined by correlation id), if any
};
std::vector<LaunchedOp> launched_ops(const RunModel& m, const std::vector<Step>& steps);

// torch_npu's task queue: operators are enqueued on the Python thread and launched later from a
// Dequeue on the queue's thread; each Dequeue knows its Enqueue through the async_task_queue arrow.
// A launch inside a Dequeue belongs where its Enqueue was (the step windows, the module view).
class TaskQueue {
 public:
  struct Dequeue {
    Ns start = 0, end = 0;
    Ns enqueued = 0;             // when its Enqueue was
    uint32_t enqueue_track = 0;  // where
  };
  explicit TaskQueue(const RunModel& m);
  bool active() const { return !dequeues_.empty(); }
  // The Dequeue holding a launch at ts, or nullptr.
  const Dequeue* holding(Ns ts) const;

 private:
  std::vector<Dequeue> dequeues_;  // sorted by start
};

// Ascend: where a device task came from on the host: the thread and time of the framework
// operator (or the launch) that issued it, and the host call its arrow starts at.
struct LaunchOrigin {
  uint32_t slice = 0;  // the device task
  int64_t tid = 0;
  Ns ts = 0;
  uint32_t call = kNone32;  // the arrow's host slice, or the graph execution call
  bool graph = false;       // a graph execution launched it (graph_launched_tasks)
};
// Each launched task's origin, sorted by slice: from the async_npu arrow (the framework
// operator), else the HostToDevice arrow (through torch_npu's task queue, to its Enqueue), else,
// with `graphs` (the run's graph_launched_tasks, facts/graph_calls.h), the graph execution that
// launched it (through the queue likewise when the call was made from a Dequeue).
std::vector<LaunchOrigin> launch_origins(const RunModel& m, const std::vector<GraphLaunchedTask>* graphs);

// The step whose host span holds ts, or -1: [start, end] (end inclusive, as torch_npu matches
// launches), or [start, end) with `end_inclusive` false (the profiler's rule for a segment).
// `steps` sorted by start.
int step_holding(const std::vector<Step>& steps, Ns ts, bool end_inclusive = true);

// `launched`: GPU runs' launched_ops(m, steps), and `graphs`: Ascend runs' graph_launched_tasks,
// when the caller has them (else computed here).
std::vector<StepWindow> device_step_windows(const RunModel& m, const std::vector<Step>& steps,
                                            const std::vector<LaunchedOp>* launched = nullptr,
                                            const std::vector<GraphLaunchedTask>* graphs = nullptr);

// Index of the first window (in step order) whose [start, end) holds ts, or -1. Windows may
// overlap (a window ends at the host step's end or later); the profiler takes the first match.
class StepWindowIndex {
 public:
  explicit StepWindowIndex(const std::vector<StepWindow>& w);
  int at(Ns ts) const;

 private:
  const std::vector<StepWindow>& w_;
  std::vector<uint32_t> by_start_;  // window indexes sorted by start
  std::vector<Ns> max_end_;         // running max of end along by_start_
};

}  // namespace npu
