// Graph execution on real inputs: the MindSpore AlexNet PROF_ run (graph mode: GE@Infer and
// Model@ModelExecute calls, no launch flows) and the sglang decode trace (one cudaGraphLaunch
// replaying 544 kernels). Every expected number was computed independently by
// tests/realdata/verify_graph_execution.py (Python json over the raw files), not by our loaders.
#include <map>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

using npu::test::real;
using json = nlohmann::json;

const char* kRank0 = "msprof_PROF/mindinsight_2device/PROF_000001_20230818142704322_COJGGGCANRMICFBC";
const char* kRank1 = "msprof_PROF/mindinsight_2device/PROF_000001_20230818142704567_GQFAMHBKGODKJMLA";
const char* kSglang = "kineto/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz";

std::map<std::string, uint64_t> calls_by_api(const json& g) {
  std::map<std::string, uint64_t> out;
  for (const auto& a : g["apis"]) out[a["name"].get<std::string>()] = a["calls"].get<uint64_t>();
  return out;
}

TEST(RealDataGraphExecution, MindSporeGraphModeRank0) {
  REQUIRE_REALDATA(kRank0);
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(kRank0)));
  ASSERT_TRUE(f.has("graph_execution"));
  const json& g = f.doc["graph_execution"];
  EXPECT_TRUE(g["executes_graphs"].get<bool>());
  EXPECT_EQ(g["kind"], "model_execute");
  // GE@Infer in all 10 iteration files; Model@ModelExecute on the same span in 4 of them.
  EXPECT_EQ(calls_by_api(g), (std::map<std::string, uint64_t>{{"GE@Infer", 10}, {"Model@ModelExecute", 4}}));
  EXPECT_EQ(g["executions"], 10);
  EXPECT_EQ(g["tasks"], 4900);
  EXPECT_EQ(g["task_ns"], 576593377);
  EXPECT_EQ(g["graph_tasks"], 4900);
  EXPECT_EQ(g["graph_task_ns"], 576593377);
  EXPECT_EQ(g["other_tasks"], 0);
  EXPECT_DOUBLE_EQ(g["graph_share_of_time"].get<double>(), 1.0);
  ASSERT_EQ(g["evidence"].size(), 3u);
  EXPECT_EQ(g["evidence"][0]["byte"], 5373);  // the GE@Infer event of msprof_0_2_1.json
  EXPECT_EQ(g["evidence"][0]["what"], "graph execution (GE@Infer) that launched 490 device tasks");
}

// Rank 1's trace kept the calls of 7 of its 10 iterations: the other 1 470 tasks are not tied to
// an execution, and the facts say so rather than guess.
TEST(RealDataGraphExecution, MindSporeGraphModeRank1KeepsWhatTheTraceRecorded) {
  REQUIRE_REALDATA(kRank1);
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(kRank1)));
  const json& g = f.doc["graph_execution"];
  EXPECT_EQ(calls_by_api(g), (std::map<std::string, uint64_t>{{"GE@Infer", 4}, {"Model@ModelExecute", 5}}));
  EXPECT_EQ(g["executions"], 7);
  EXPECT_EQ(g["tasks"], 4900);
  EXPECT_EQ(g["task_ns"], 631610399);
  EXPECT_EQ(g["graph_tasks"], 3430);
  EXPECT_EQ(g["graph_task_ns"], 328287411);
  EXPECT_EQ(g["other_tasks"], 1470);
}

// The launch analysis counts the one cudaGraphLaunch once (its first kernel), not once per kernel
// it replayed: 558 correlated device events, 544 of them from the graph launch, 15 launches kept.
TEST(RealDataGraphExecution, GpuGraphLaunchIsOneLaunch) {
  REQUIRE_REALDATA(kSglang);
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(kSglang)));
  EXPECT_EQ(f.doc["dispatch"]["overall"]["count"], 15);
  EXPECT_EQ(f.doc["gpu"]["graph_replay"]["kernels"], 544);
  EXPECT_TRUE(npu::test::is_unavailable(f.doc, "graph_execution"));
}

}  // namespace
