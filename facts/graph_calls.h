// Graph execution: one host call that makes the device run a whole captured or compiled graph
// of tasks, instead of one launch per operator. Ascend: a CANN model execution (MindSpore graph
// / dataset sink mode, GE, offline models: Model@ModelExecute, GE@Infer, AscendCL@aclmdlExecute*)
// or an ACL graph replay (torch_npu NPUGraph / torch.npu.graph, torchair reduce-overhead:
// AscendCL@aclmdlRIExecute*); GPU: cudaGraphLaunch / hipGraphLaunch. The launch analysis
// (dispatch) and the graph_execution facts both find the calls here. docs/facts-dispatch.md.
#pragma once
#include <string_view>
#include <unordered_set>
#include <vector>

#include "model/model.h"

namespace npu {

enum class GraphCallKind : uint8_t {
  None,
  ModelExecute,  // CANN model / GE graph execution (MindSpore graph mode, torchair GE, offline models)
  AclGraph,      // ACL graph replay (aclmdlRI*: NPUGraph, torch.npu.graph, reduce-overhead)
  GpuGraph,      // CUDA/HIP graph launch
  Capture,       // the start of an ACL graph capture (aclmdlRICaptureBegin): records, executes nothing
};
GraphCallKind graph_call_kind(std::string_view call_name);
const char* to_string(GraphCallKind k);
// Whether a graph call returns before the device has run the graph (its tasks then run after
// the call, until the next call), as opposed to one that waits for the graph to finish.
bool graph_call_is_async(std::string_view call_name);

// The outermost graph-execution calls of every host track (a call nested in another, such as
// Model@ModelExecute inside AscendCL@aclmdlExecute or an identical GE@Infer span, is part of it).
class GraphCalls {
 public:
  explicit GraphCalls(const RunModel& m);
  bool empty() const { return calls_.empty(); }
  // Slice indexes of the outermost calls, by track then start.
  const std::vector<uint32_t>& calls() const { return calls_; }
  // The outermost call on `track` whose span holds `ts` (start <= ts <= end), or kNone32.
  uint32_t call_at(uint32_t track, Ns ts) const;
  // The outermost graph call a launch arrow was drawn from: its start lies directly in a graph
  // execution call (no other slice nested between), else kNone32. A Node@launch inside a model
  // execution is the host launching the graph's nodes one by one (GE runs dynamic-shape graphs
  // that way): a per-operator launch.
  uint32_t launched_by(const Flow& f) const;
  // Every graph-execution and capture call (nested ones too): for counts per API.
  const std::vector<uint32_t>& all_calls() const { return all_; }

 private:
  const RunModel& m_;
  std::vector<uint32_t> calls_, all_;
};

// A device task a graph execution launched, and the execution call (the outermost one).
struct GraphLaunchedTask {
  uint32_t task = 0, call = 0;  // slice indexes
};
// The device tasks (markers aside) graph executions launched, sorted by task: a task counts when
// no per-operator launch arrow ends at it and it starts inside an execution's window: the call's
// own span for a call that waits for the graph (Model@ModelExecute, aclmdlExecute), up to the next
// graph call on the same thread for an asynchronous one (aclmdlRIExecuteAsync, aclmdlExecuteAsync),
// whose tasks run after it returns; of overlapping windows, the latest-starting one.
// docs/facts-dispatch.md; graph_execution and the frame's launch origins read it.
std::vector<GraphLaunchedTask> graph_launched_tasks(const RunModel& m, const GraphCalls& calls);

// Of the launches drawn from one graph call (GraphCalls::launched_by of `flow_of(launch)`), keeps
// the first in the vector's order and erases the others: a graph execution starts all its tasks
// with one host call, so it is one launch, not one per task (the later tasks' lags say nothing
// about the host keeping up).
template <class Launch, class FlowOf>
void keep_first_launch_per_graph(const GraphCalls& calls, std::vector<Launch>& launches, FlowOf flow_of) {
  if (calls.empty()) return;
  std::unordered_set<uint32_t> seen;
  std::erase_if(launches, [&](const Launch& l) {
    uint32_t c = calls.launched_by(flow_of(l));
    return c != kNone32 && !seen.insert(c).second;
  });
}

}  // namespace npu
