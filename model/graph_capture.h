// Graph captures and the replays paired with them (docs/facts-inference.md, "Graph replays opened
// up"). A CUDA/HIP graph replay is one host call (cudaGraphLaunch / hipGraphLaunch) whose kernels
// carry no operator of their own: the operators, modules and kernel order were recorded once, when
// the graph was captured (StreamBeginCapture .. StreamEndCapture, the launch calls in between ran
// nothing). A capture is read from the replay trace itself or from a capture trace beside it (a
// loader reads those: loaders/chrome_trace/capture_traces.cpp); the model pairs each replay with
// one capture once (pair_graph_replays), and the facts ask it (GraphReplays::launch_of).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/types.h"
#include "model/string_pool.h"

namespace npu {

struct RunModel;

// One launch a capture recorded: the kernel (the launch call's "kernel" arg; the call's own
// name for a copy or memset) and the host operators around the call.
struct CapturedLaunch {
  StrId kernel = kEmptyStr;
  StrId call = kEmptyStr;    // the runtime call (hipLaunchKernel, hipMemcpyAsync, ...)
  StrId op = kEmptyStr;      // outermost host operator (cpu_op) around the call
  StrId leaf_op = kEmptyStr;  // innermost host operator around it
  // Every nn.Module frame around it (with_stack traces), outermost first, their names joined by
  // '\n' (kEmptyStr: none): where in the model the replayed kernel runs (facts-modules.md).
  StrId module_path = kEmptyStr;
  // The innermost operator's recorded inputs (record_shapes=True: "Input Dims", "Input type";
  // kEmptyStr: none recorded), what the roofline models a replayed kernel by, and that
  // operator's event: its byte offset in the capture's file (RunModel::files index; -1: the
  // trace itself, `leaf_loc` then a location of the trace).
  StrId dims = kEmptyStr, types = kEmptyStr;
  uint64_t leaf_loc = 0;
  int32_t file = -1;
};

// One stream capture (StreamBeginCapture .. StreamEndCapture on one host thread): a graph.
struct CapturedGraph {
  uint32_t begin = 0, end = 0;  // its launches: [begin, end) in GraphReplays::launches
};

// One capture of a batch size and mode: the graphs recorded for it, in order (a FULL capture
// records one graph, a PIECEWISE one a graph per piece).
struct GraphCapture {
  int64_t batch = -1;  // -1: not known
  std::string mode;    // FULL, PIECEWISE, DECODE, or "" when not known
  int32_t file = -1;   // RunModel::files index of the capture trace; -1: in the trace itself
  uint64_t loc = 0;    // the capture annotation (or its first StreamBeginCapture) in that file
  std::vector<CapturedGraph> graphs;
};

// A device op a replay ran, paired with the launch its capture recorded at the same place.
struct ReplayedOp {
  uint32_t slice = 0;   // the device op
  uint32_t launch = 0;  // index into GraphReplays::launches
};

struct GraphReplays {
  std::vector<GraphCapture> captures;
  std::vector<CapturedLaunch> launches;
  // One graph launch call and what it was paired with.
  struct Replay {
    uint32_t call = 0;      // the host call (slice)
    int32_t capture = -1;   // index into captures; -1: not paired
    int32_t graph = -1;     // index into that capture's graphs
    uint32_t ops = 0, paired_ops = 0;  // device ops it ran; those paired with a captured launch
    const char* why = "";   // when not paired (or paired in part): why, in words
  };
  std::vector<Replay> replays;  // by call slice
  std::vector<ReplayedOp> ops;  // sorted by slice
  // The launch a replayed op was paired with, or null.
  const CapturedLaunch* launch_of(uint32_t slice) const;
  bool empty() const { return captures.empty(); }
};

// Appends the graphs `src` captured (its stream captures, each with its launches and the host
// operators around them) to `dst`'s captures, names interned in dst's pool. Captures are grouped
// by the capture annotation around them (capture_32_FULL: batch and mode); `batch` and `mode`
// (>= 0 / non-empty), where a loader knows them, override what an annotation says. `file` is
// dst's index of src's trace (-1: src is dst).
void add_graph_captures(RunModel& dst, const RunModel& src, int32_t file, int64_t batch, const std::string& mode);

// Pairs each graph launch of the run's engine iterations with the capture of the smallest batch
// size at least the iteration's (tokens where the name says them, else requests), of the mode its
// launch count says (one launch: FULL, several: PIECEWISE, the k-th launch the k-th graph), and
// each replayed op with the captured launch at its place (kernel order per stream, by name).
// Collects the trace's own captures first. Fills m.graph_replays.
void pair_graph_replays(RunModel& m);

// The host operators around each of `calls` (slice indexes on host tracks, any order): for each,
// the outermost and innermost cpu_op, in one pass per track.
struct HostOpsAround {
  StrId op = kEmptyStr, leaf_op = kEmptyStr;
  uint32_t leaf_slice = kNone32;  // the innermost cpu_op's slice
};
std::vector<HostOpsAround> host_ops_around(const RunModel& m, const std::vector<uint32_t>& calls);

}  // namespace npu
