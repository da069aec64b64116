// facts.graph_execution (facts/diagnostics/graph_execution.cpp) and the graph calls the launch
// analysis shares (facts/graph_calls.h): a hand-built ACL graph trace with known answers.
#include <string>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "facts/graph_calls.h"
#include "test_support.h"
#include "trace_builder.h"

using nlohmann::json;

namespace {

TEST(GraphCalls, NamesTheGraphExecutionApis) {
  using npu::GraphCallKind;
  EXPECT_EQ(npu::graph_call_kind("Model@ModelExecute"), GraphCallKind::ModelExecute);
  EXPECT_EQ(npu::graph_call_kind("GE@Infer"), GraphCallKind::ModelExecute);
  EXPECT_EQ(npu::graph_call_kind("AscendCL@aclmdlExecuteAsync"), GraphCallKind::ModelExecute);
  EXPECT_EQ(npu::graph_call_kind("AscendCL@aclmdlExecute"), GraphCallKind::ModelExecute);
  EXPECT_EQ(npu::graph_call_kind("AscendCL@aclmdlRIExecuteAsync"), GraphCallKind::AclGraph);
  EXPECT_EQ(npu::graph_call_kind("AscendCL@aclmdlRICaptureBegin"), GraphCallKind::Capture);
  EXPECT_EQ(npu::graph_call_kind("AscendCL@aclmdlRICaptureEnd"), GraphCallKind::None);
  EXPECT_EQ(npu::graph_call_kind("cudaGraphLaunch"), GraphCallKind::GpuGraph);
  EXPECT_EQ(npu::graph_call_kind("Node@launch"), GraphCallKind::None);
  EXPECT_EQ(npu::graph_call_kind("AscendCL@aclmdlLoadFromFile"), GraphCallKind::None);
  EXPECT_TRUE(npu::graph_call_is_async("AscendCL@aclmdlRIExecuteAsync"));
  EXPECT_FALSE(npu::graph_call_is_async("Model@ModelExecute"));
}

// One capture, two ACL graph replays (the second with a Model@ModelExecute nested in it and
// launch arrows drawn from inside it to its two tasks), one operator launched by Node@launch
// between them, while the first replay's tasks may still run, and a model execution that launches
// its node by Node@launch (as GE runs a dynamic-shape graph): a per-operator launch.
std::string acl_graph_trace() {
  npu::test::TraceBuilder t;
  auto arrow = [&](int id, double from, double to) {
    t.flow_point("HostToDevice", std::to_string(id), 's', 2, 2, from);
    t.flow_point("HostToDevice", std::to_string(id), 'f', 3, 3, to);
  };
  t.step(1, 0, 1000);
  t.cann("AscendCL@aclmdlRICaptureBegin", 1, 2);
  t.cann("AscendCL@aclmdlRIExecuteAsync", 10, 5);
  t.task("graph_a1", 20, 8), t.task("graph_a2", 30, 8), t.task("graph_a3", 40, 8);
  t.cann("Node@launch", 299, 2), t.task("eager", 305, 10), arrow(1, 300, 305);
  t.cann("AscendCL@aclmdlRIExecuteAsync", 500, 5), t.cann("Model@ModelExecute", 501, 3);
  t.task("graph_b1", 510, 6), arrow(2, 502, 510);
  t.task("graph_b2", 520, 6), arrow(3, 503, 520);
  t.cann("Model@ModelExecute", 700, 50), t.cann("Node@launch", 709, 2);
  t.task("dynamic_node", 715, 4), arrow(4, 710, 715);
  return t.json();
}

TEST(GraphExecution, CountsExecutionsAndTheTasksTheyLaunched) {
  npu::Facts f = npu::compute_facts(npu::test::load_trace_text(acl_graph_trace()));
  ASSERT_TRUE(f.has("graph_execution")) << f.doc["unavailable"].dump();
  const json& g = f.doc["graph_execution"];
  EXPECT_TRUE(g["executes_graphs"].get<bool>());
  EXPECT_EQ(g["kind"], "acl_graph");
  EXPECT_EQ(g["executions"], 3);  // the nested Model@ModelExecute is part of the second replay
  EXPECT_EQ(g["captures"], 1);
  EXPECT_EQ(g["apis"][0]["name"], "AscendCL@aclmdlRIExecuteAsync");
  EXPECT_EQ(g["apis"][0]["calls"], 2);
  EXPECT_EQ(g["apis"].size(), 3u);
  EXPECT_EQ(g["tasks"], 7);
  // Five graph tasks (the first replay's run after it returned); the eager one and the dynamic
  // node have their own per-operator arrows.
  EXPECT_EQ(g["graph_tasks"], 5);
  EXPECT_EQ(g["graph_task_ns"], 3 * 8000 + 2 * 6000);
  EXPECT_EQ(g["other_tasks"], 2);
  EXPECT_EQ(g["other_task_ns"], 10000 + 4000);
  ASSERT_EQ(g["evidence"].size(), 2u);
  EXPECT_EQ(g["evidence"][0]["what"], "graph execution (AscendCL@aclmdlRIExecuteAsync) that launched 3 device tasks");
}

// The launch analysis sees the eager launch, one launch for the second replay (its first task),
// not one per task the replay started, and the dynamic node's own launch.
TEST(GraphExecution, DispatchCountsAGraphReplayAsOneLaunch) {
  npu::Facts f = npu::compute_facts(npu::test::load_trace_text(acl_graph_trace()));
  EXPECT_EQ(f.doc["dispatch"]["overall"]["count"], 3);
  EXPECT_EQ(f.doc["dispatch"]["overall"]["lag_max_ns"], 8000);  // graph_b1, 8 us after its arrow
}

TEST(GraphExecution, AscendRunWithoutGraphsSaysSo) {
  npu::Facts f = npu::compute_facts(npu::test::load_path(npu::test::sample_run()));
  const json& g = f.doc["graph_execution"];
  EXPECT_FALSE(g["executes_graphs"].get<bool>());
  EXPECT_EQ(g["executions"], 0);
  EXPECT_EQ(g["graph_tasks"], 0);
  EXPECT_EQ(g["other_tasks"], g["tasks"]);
  EXPECT_TRUE(g["kind"].is_null());
}

}  // namespace
