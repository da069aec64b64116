// The what-if replay (docs/whatif.md): a run's steps as a dependency graph that can be
// re-simulated after a fix is applied to it, in the manner of Daydream (Zhu et al., USENIX ATC
// 2020). The graph holds
//   - host items in host order: every call that launched device work (Kineto runtime calls
//     joined by correlation id, Ascend HostToDevice arrows), every call that blocked until the
//     device finished (synchronize calls, copy calls that returned after their copy), and the
//     host step spans' ends (marks);
//   - device tasks per stream in stream order, each gated by its stream predecessor and by the
//     host item that launched it (or, unlaunched, the host item running when it started).
// Durations come from the trace. Simulating the graph unchanged reproduces the measured steps
// (the facts check it: whatif.reproduces); a transformation (transforms.h) edits the graph
// and the simulation says what the step would become.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "base/intervals.h"
#include "facts/device_tasks.h"
#include "facts/frame/run_frame.h"
#include "model/model.h"

namespace npu::whatif {

enum class ItemKind : uint8_t {
  Launch,        // launched device work and returned
  Sync,          // waited for the device (synchronize)
  BlockingCopy,  // launched a copy and returned only after it ended (pageable, synchronous)
  Mark,          // a host step span's start or end
  Queue,         // torch_npu's task queue: an Enqueue (stage 1) or a Dequeue (stage 2) slice
};

// Fields ordered widest first: a run holds one per launch (a 1 GB trace, about a million).
struct HostItem {
  Ns s = 0, e = 0;
  // Blocking items: the measured time after the awaited work ended (tail) and the call's own
  // cost when there is nothing to wait for.
  Ns tail = 0, cost = 0;
  uint32_t slice = kNone32;     // the host slice (kNone32 for marks)
  int32_t step = -1;            // the step whose host span holds it
  uint32_t own_task = kNone32;  // a blocking copy: its copy
  uint32_t tasks = 0;           // device tasks it launched
  ItemKind kind = ItemKind::Launch;
  bool end_mark = false;  // a mark: the span's end (else its start)
};

// Fields ordered widest first (72 bytes, not 80): a run holds one per device task.
struct DeviceTask {
  Ns s = 0, dur = 0;
  Ns lambda = 0;  // start - launcher's start when launch-gated, else the typical latency
  Ns gap = 0;     // minimal gap after its stream predecessor
  Ns dep_gap = 0;
  uint32_t slice = 0;
  uint32_t stream = 0;
  uint32_t launcher = 0;  // the host item that gates its start
  uint32_t order = 0;     // the item after which it can be computed: max(launcher, stream predecessor's)
  int32_t step = -1;      // the step that owns it (GPU: launched it; Ascend: its window holds its start)
  // Another stream's task it waited for (an event: it started right after that one ended, long
  // after its launch and not right after its own predecessor), and how long after (dep_gap);
  // kNone32: none.
  uint32_t dep = kNone32;
  bool launched = false;  // joined to its launch (else anchored to the host item running when it started)
  TaskClass cls = TaskClass::Compute;
  Ns end() const { return s + dur; }
};
static_assert(sizeof(DeviceTask) <= 72 && sizeof(HostItem) <= 56, "the replay's graph holds millions of these");

struct StepRef {
  uint32_t start_mark = 0, end_mark = 0;    // host items
  Ns measured_start = 0, measured_end = 0;  // the breakdown's window
  uint32_t end_task = kNone32;              // Ascend: the task the window ends at (else the mark)
  Ns overhang = 0;                          // Ascend: how far the tasks its window holds end past the window's end
  // GPU, a serving engine's iteration whose window starts after a hole (StepWindow::hole): the
  // task it starts at (its device slice, then its index in tasks), else kNone32.
  uint32_t hole_end_slice = kNone32, start_task = kNone32;
  // That hole's measured length: the replay keeps the task after it at its measured start (it
  // waited on work the trace does not hold), and the turn before it is the idle less the hole.
  Ns hole = 0;
};

// torch_npu's task queue as a two-stage host pipeline (docs/whatif.md, "The task queue"): a
// Dequeue on the queue's thread starts after its Enqueue on the enqueuing thread, and after the
// queue thread's previous work. Which of the two held it is read from the trace: the nearer one.
struct QueueLink {
  uint32_t dequeue = 0, enqueue = 0;  // items
  Ns lag = 0;  // after its Enqueue's end: measured when the Enqueue held it, else at most the typical lag
  Ns gap = 0;  // held by its Enqueue: after the queue thread's previous work, at most the typical gap
  bool held_by_enqueue = false;
};

// The buffers one replay writes (every item's and task's replayed times): kept with the graph and
// reused by each simulate() of it, so the dozen replays of a run fault their pages in once.
struct SimScratch {
  std::vector<Ns> S, E, TS, TE, PM, unblock, dur_of, owned_end, delay;
  std::vector<uint32_t> done;
};

struct Graph {
  std::vector<HostItem> items;
  std::vector<DeviceTask> tasks;       // grouped by stream, each stream in measured order
  std::vector<uint32_t> stream_begin;  // stream k: tasks [stream_begin[k], stream_begin[k + 1])
  std::vector<uint32_t> by_order;      // task indexes by (order, start): the computation order
  std::vector<Ns> prefix_end;          // per task: the latest measured end on its stream up to it
  std::vector<StepRef> steps;
  size_t first_step = 0;  // the frame's index of steps[0] (a block of the frame's steps: StepBlock)
  // The time the graph's work starts in: a block's, else all of the run (what lies outside is in no item or task).
  Ns span_start = std::numeric_limits<Ns>::min(), span_end = std::numeric_limits<Ns>::max();
  std::vector<uint32_t> warmup_tasks;  // GPU: unowned tasks ending before the first step's first own task
  // The two stages (only with torch_npu's task queue in the trace, else empty: one lane). Lane 0:
  // the enqueuing threads and every other host thread; lane 1: the queue's thread(s). An item
  // follows its own lane's items; a Dequeue also its Enqueue (links).
  std::vector<uint8_t> lane;            // per item
  std::vector<uint32_t> lane_prev;      // per item: the item before it in its lane, kNone32 for none
  std::vector<uint32_t> link_of;        // per item: its index in links, kNone32 for none
  std::vector<QueueLink> links;         // one per Dequeue joined to its Enqueue
  std::vector<uint8_t> queue_track;     // per model track: 1 when it is a queue thread's
  Ns queue_lag = 0;  // Enqueue end -> Dequeue start when the Enqueue held it: median
  Ns queue_gap = 0;  // previous work's end -> Dequeue start when the queue thread held it: median
  bool lanes() const { return !lane.empty(); }
  uint8_t lane_of(uint32_t item) const { return lane.empty() ? 0 : lane[item]; }
  bool chained = false;                // GPU (LaunchedWork): windows follow each other
  // The steps are a serving engine's iterations (RunMetadata::engine_iteration_steps): between two
  // of them lies the host's turn, in no step (Replay::turn_ns). Only on chained (GPU) steps: the
  // replay of an Ascend run does not chain its steps' windows (`iterations` then says why).
  bool serving = false;
  bool iterations = false;  // the steps are a serving engine's iterations, chained or not
  // Measured typical values the transformations use.
  Ns launch_latency = 0;  // launch -> start of launch-gated tasks: lower quartile, at most 50 us
  Ns stream_gap = 0;      // median gap between stream-gated tasks
  Ns launch_cost = 0;     // median duration of a launch call
  uint64_t joined = 0;    // tasks joined to their launch
  std::string why_not;    // empty: the graph can be replayed
  // simulate()'s buffers: one replay of a graph at a time (the what-if pass replays in sequence).
  mutable std::unique_ptr<SimScratch> scratch;
};

// Whether the run has torch_npu's task queue: an async_task_queue arrow with both ends
// (replay_queue.cpp), the condition for the two-stage graph.
bool has_task_queue(const RunModel& m);

// A block of consecutive steps of the frame (the graph's step i is the frame's first + i): the
// two-stage replay of a run of many steps covers a bounded block of them (docs/whatif.md).
struct StepBlock {
  size_t first = 0;
  size_t count = static_cast<size_t>(-1);  // all
};

// The run's steps, windows and launches come from its frame (facts/frame/run_frame.h); `syncs`:
// host slices that wait for the device (HostCause::Sync). Chained (GPU steps, the frame's
// launched work): the windows follow each other and a step owns what it launched; else a step
// owns the tasks its window holds and its ends are anchored to the tasks (or host span ends)
// the window starts and ends at.
// `two_stage`: with torch_npu's task queue's Enqueue and Dequeue slices as items in two lanes
// (replay_queue.cpp; one lane when the trace has no async_task_queue arrows). `block` (windows
// that follow each other only, not chained): the graph holds that block's steps and the host and
// device work between their first start and last end, nothing before or after.
Graph build_graph(const RunFrame& f, const std::vector<uint32_t>& syncs, bool two_stage = false, StepBlock block = {});

// What a transformation changes in the graph.
struct Edit {
  Intervals removed;        // host time taken out of lane 0 (any order; merged by simulate)
  Intervals removed_queue;  // host time taken out of the queue's thread (lane 1)
  // Host work added on an item's lane just before it (work moved there from the other stage).
  struct Delay {
    uint32_t item;
    Ns ns;
  };
  std::vector<Delay> delays;
  struct Unblock {
    uint32_t item;
    Ns cost;  // the call's cost once it no longer waits
  };
  std::vector<Unblock> unblock;
  struct Duration {
    uint32_t task;
    Ns dur;
  };
  std::vector<Duration> durations;
  // Tasks replayed from one graph launch: launched by `item`, started as soon as their stream
  // allows (`gap` after the predecessor).
  struct Relaunch {
    uint32_t task, item;
    Ns gap;
  };
  std::vector<Relaunch> relaunch;
  void add(const Edit& o);
};

struct Replay {
  std::vector<Ns> step_ns;  // per step of the graph: the replayed window's length
  Ns total_ns = 0;          // their sum
  // A serving graph: per iteration, the device idle between its window and the next one's, less
  // the next one's hole (turn_between, step_windows.h); the last iteration's is 0. Their sum.
  std::vector<Ns> turn_ns;
  Ns turns_ns = 0;
  Ns period_ns() const { return total_ns + turns_ns; }  // the iterations' windows and the turns between them
  // With `split`: per step the union of computing, communication and copies in the window.
  std::vector<Ns> computing_ns, communication_ns, copies_ns;
};

Replay simulate(const Graph& g, const Edit* edit = nullptr, bool split = false);

}  // namespace npu::whatif
