// diagnose_operators ("operators" facts): known answers on the sample (testdata/sample/
// expected.json), on hand-built runs and on the real files in ../shared/realdata.
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

using nlohmann::json;
using npu::test::real;

json facts_of(const std::string& path) { return npu::compute_facts(npu::test::load_path(path)).doc; }

const char* kHeader =
    "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
    "Wait Time(us),Block Dim,Mix Block Dim,Input Shapes,Input Data Types\n";

}  // namespace

class OperatorsSample : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { doc_ = new json(facts_of(npu::test::sample_run())); }
  static void TearDownTestSuite() { delete doc_; }
  static json* doc_;
};
json* OperatorsSample::doc_ = nullptr;

TEST_F(OperatorsSample, TopTypeMatchesOpStatistic) {
  const json& ops = (*doc_)["operators"];
  auto top = npu::test::sample_expected()["op_statistic"]["top"];
  EXPECT_EQ(ops["source"], "kernel_details.csv");
  ASSERT_FALSE(ops["by_type"].empty());
  const json& first = ops["by_type"][0];
  EXPECT_EQ(first["type"], top["op_type"]);
  EXPECT_EQ(first["accelerator_core"], top["core_type"]);
  EXPECT_EQ(first["count"], top["count"]);
  EXPECT_EQ(first["total_ns"], top["total_ns"]);
  EXPECT_EQ(first["max_ns"], top["max_ns"]);
  EXPECT_EQ(first["mean_ns"].get<int64_t>(), top["total_ns"].get<int64_t>() / top["count"].get<int64_t>());
  ASSERT_EQ(first["evidence"].size(), 1u);
  EXPECT_GT(first["evidence"][0]["line"].get<int>(), 1);
  // Every op_statistic row appears with its exact total (the sample has 19 types, under the cap).
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& e : ops["by_type"])
    seen.insert({e["type"].get<std::string>(), e["accelerator_core"].get<std::string>()});
  const json all = npu::test::sample_expected()["op_statistic"]["all"];
  for (const auto& row : all) {
    if (row["core_type"] == "HCCL") continue;
    EXPECT_TRUE(seen.count({row["op_type"].get<std::string>(), row["core_type"].get<std::string>()})) << row.dump();
  }
}

TEST_F(OperatorsSample, TotalsAndShares) {
  const json& ops = (*doc_)["operators"];
  auto e = npu::test::sample_expected()["kernel_details"];
  const json& t = ops["totals"];
  EXPECT_EQ(t["kernels"], e["rows"]);
  EXPECT_EQ(t["compute_ns"], e["total_compute_duration_ns"]);
  EXPECT_EQ(t["communication_kernels"], 5);
  EXPECT_EQ(t["communication_ns"], npu::test::sample_expected()["trace"]["overlap_totals_ns"]["Communication"]);
  for (auto& [core, n] : e["by_accelerator_core"].items())
    EXPECT_EQ(t["by_accelerator_core"][core]["count"], n) << core;
  EXPECT_EQ(t["by_accelerator_core"]["AI_CPU"]["total_ns"], e["ai_cpu"]["total_duration_ns"]);
  // Shares: total / compute and total / sum of step device time.
  const json& first = ops["by_type"][0];
  double compute = t["compute_ns"].get<double>();
  EXPECT_DOUBLE_EQ(first["share_of_compute"].get<double>(), first["total_ns"].get<double>() / compute);
  double step = (*doc_)["overall"]["device_time_ns"].get<double>();
  EXPECT_DOUBLE_EQ(first["share_of_step"].get<double>(), first["total_ns"].get<double>() / step);
  double sum = 0;
  for (const auto& x : ops["by_type"]) sum += x["share_of_compute"].get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-9);  // 19 types < the cap of 20: all compute time is listed
}

TEST_F(OperatorsSample, CommunicationAndHost) {
  const json& ops = (*doc_)["operators"];
  ASSERT_EQ(ops["communication"].size(), 5u);  // hcom_allReduce__424_{0..4}_1
  for (const auto& c : ops["communication"]) {
    EXPECT_EQ(c["accelerator_core"], "HCCL");
    EXPECT_EQ(c["name"].get<std::string>().rfind("hcom_allReduce__424_", 0), 0u);
  }
  EXPECT_EQ(ops["communication"][0]["total_ns"], 800000);  // step 3's allreduce (docs/sample.md)
  for (const auto& x : ops["by_type"]) EXPECT_NE(x["accelerator_core"], "HCCL");

  const json& host = ops["host"];
  EXPECT_EQ(host["time"], "inclusive");
  ASSERT_FALSE(host["by_name"].empty());
  for (const auto& h : host["by_name"]) {
    EXPECT_NE(h["name"].get<std::string>().rfind("ProfilerStep#", 0), 0u);
    EXPECT_EQ(h["evidence"][0].count("byte"), 1u);
  }
  // aten::item holds the step's aclrtSynchronizeStream: the longest host op of every step.
  EXPECT_EQ(host["by_name"][0]["name"], "aten::item");
  EXPECT_EQ(host["by_name"][0]["count"], 5);
}

TEST(Operators, EmptyKernelTableAndNoTrace) {
  npu::test::TempDir d;
  d.write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", kHeader);
  json doc = facts_of((d.path() / "r_ascend_pt").string());
  EXPECT_FALSE(doc.contains("operators"));
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operators"));
}

TEST(Operators, FallsBackToTraceDeviceTasks) {
  npu::test::TempDir d;
  d.write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", R"([
{"name": "process_name", "pid": 30, "tid": 0, "args": {"name": "Ascend Hardware"}, "ph": "M"},
{"name": "process_name", "pid": 40, "tid": 0, "args": {"name": "HCCL"}, "ph": "M"},
{"name": "thread_name", "pid": 40, "tid": 0, "args": {"name": "Group hccl_world_group Communication"}, "ph": "M"},
{"name": "mm_kernel", "pid": 30, "tid": 2, "ts": "1000.000", "dur": 10.0, "args": {"Task Type": "AI_CORE"}, "ph": "X"},
{"name": "mm_kernel", "pid": 30, "tid": 2, "ts": "1020.000", "dur": 30.0, "args": {"Task Type": "AI_CORE"}, "ph": "X"},
{"name": "add_kernel", "pid": 30, "tid": 2, "ts": "1060.000", "dur": 5.0, "args": {"Task Type": "AI_VECTOR_CORE"}, "ph": "X"},
{"name": "MEMCPY_ASYNC", "pid": 30, "tid": 2, "ts": "1070.000", "dur": 50.0, "args": {"Task Type": "MEMCPY_ASYNC"}, "ph": "X"},
{"name": "hcom_allReduce__1", "pid": 40, "tid": 0, "ts": "1100.000", "dur": 20.0, "ph": "X"}
])");
  json doc = facts_of((d.path() / "r_ascend_pt").string());
  const json& ops = doc["operators"];
  EXPECT_EQ(ops["source"], "trace device tasks");
  EXPECT_TRUE(ops["by_type"].empty());
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operators.by_type"));
  ASSERT_EQ(ops["by_name"].size(), 2u);  // MEMCPY_ASYNC is a runtime task, not an operator
  EXPECT_EQ(ops["by_name"][0]["name"], "mm_kernel");
  EXPECT_EQ(ops["by_name"][0]["accelerator_core"], "AI_CORE");
  EXPECT_EQ(ops["by_name"][0]["count"], 2);
  EXPECT_EQ(ops["by_name"][0]["total_ns"], 40000);
  EXPECT_EQ(ops["by_name"][0]["max_ns"], 30000);
  EXPECT_EQ(ops["by_name"][0]["mean_ns"], 20000);
  EXPECT_DOUBLE_EQ(ops["by_name"][0]["share_of_compute"].get<double>(), 40.0 / 45.0);
  EXPECT_EQ(ops["by_name"][0]["evidence"][0].count("byte"), 1u);
  EXPECT_EQ(ops["totals"]["compute_ns"], 45000);
  ASSERT_EQ(ops["communication"].size(), 1u);
  EXPECT_EQ(ops["communication"][0]["name"], "hcom_allReduce__1");
  EXPECT_EQ(ops["totals"]["communication_ns"], 20000);
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operators.host"));
}

// mstt_compute_advice kernel_details.csv (29 rows, no trace). Independently with Python csv +
// decimal: MatMulV3/AI_CORE is the top type, 8 rows, 4122342 ns; then FlashAttentionScoreGrad/
// MIX_AIC 3038440 ns (4 rows); all rows together 10061159 ns.
TEST(OperatorsRealData, MsttComputeAdvice) {
  REQUIRE_REALDATA("ascend_torch_npu/mstt_compute_advice");
  json doc = facts_of(real("ascend_torch_npu/mstt_compute_advice"));
  const json& ops = doc["operators"];
  ASSERT_GE(ops["by_type"].size(), 2u);
  EXPECT_EQ(ops["by_type"][0]["type"], "MatMulV3");
  EXPECT_EQ(ops["by_type"][0]["accelerator_core"], "AI_CORE");
  EXPECT_EQ(ops["by_type"][0]["count"], 8);
  EXPECT_EQ(ops["by_type"][0]["total_ns"], 4122342);
  EXPECT_EQ(ops["by_type"][1]["type"], "FlashAttentionScoreGrad");
  EXPECT_EQ(ops["by_type"][1]["total_ns"], 3038440);
  EXPECT_EQ(ops["totals"]["kernels"], 29);
  EXPECT_EQ(ops["totals"]["compute_ns"], 10061159);
  EXPECT_TRUE(ops["by_type"][0]["share_of_step"].is_null());  // no trace, no step_trace_time.csv
}

// msinsight_2rank/test_rank_0: older header, 20 rows of which 4 are HCCL.
TEST(OperatorsRealData, Msinsight2RankRank0) {
  REQUIRE_REALDATA("ascend_torch_npu/msinsight_2rank/test_rank_0");
  json doc = facts_of(real("ascend_torch_npu/msinsight_2rank/test_rank_0"));
  const json& ops = doc["operators"];
  EXPECT_EQ(ops["totals"]["communication_kernels"], 4);
  EXPECT_EQ(ops["totals"]["by_accelerator_core"]["AI_CPU"]["count"], 2);
  EXPECT_EQ(ops["totals"]["by_accelerator_core"]["AI_CPU"]["total_ns"], 145022);
  EXPECT_EQ(ops["by_type"][0]["type"], "FlashAttentionScore");
  for (const auto& c : ops["communication"]) EXPECT_EQ(c["accelerator_core"], "HCCL");
}

// mstt_timeline_advice: a trace without kernel_details; the two AI_CPU tasks of its device
// timeline (Python json: aclnnReduceSum_CastAiCpu_Cast 188.148 us, aclnnCast_CastAiCpu_Cast
// 139.419 us) are the two longest device operators.
TEST(OperatorsRealData, MsttTimelineAdviceFallback) {
  REQUIRE_REALDATA("ascend_torch_npu/mstt_timeline_advice");
  json doc = facts_of(real("ascend_torch_npu/mstt_timeline_advice"));
  const json& ops = doc["operators"];
  EXPECT_EQ(ops["source"], "trace device tasks");
  ASSERT_GE(ops["by_name"].size(), 2u);
  EXPECT_EQ(ops["by_name"][0]["name"], "aclnnReduceSum_CastAiCpu_Cast");
  EXPECT_EQ(ops["by_name"][0]["total_ns"], 188148);
  EXPECT_EQ(ops["by_name"][1]["name"], "aclnnCast_CastAiCpu_Cast");
  EXPECT_EQ(ops["by_name"][1]["total_ns"], 139419);
  EXPECT_EQ(ops["totals"]["compute_kernels"], 274);
  EXPECT_FALSE(ops["host"]["by_name"].empty());
}

TEST(Operators, HostOnlyTrace) {
  npu::test::TempDir d;
  d.write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", R"([
{"name": "process_name", "pid": 10, "tid": 0, "args": {"name": "Python"}, "ph": "M"},
{"ph": "X", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": "0.000", "dur": 100.0, "cat": "cpu_op"},
{"ph": "X", "name": "aten::linear", "pid": 10, "tid": 10, "ts": "1.000", "dur": 20.0, "cat": "cpu_op"},
{"ph": "X", "name": "aten::mm", "pid": 10, "tid": 10, "ts": "2.000", "dur": 15.0, "cat": "cpu_op"},
{"ph": "X", "name": "aten::linear", "pid": 10, "tid": 10, "ts": "30.000", "dur": 40.0, "cat": "cpu_op"},
{"ph": "X", "name": "Enqueue", "pid": 10, "tid": 10, "ts": "31.000", "dur": 1.0, "cat": "enqueue"}
])");
  json doc = facts_of((d.path() / "r_ascend_pt").string());
  ASSERT_TRUE(doc.contains("operators"));
  EXPECT_TRUE(doc["operators"]["source"].is_null());
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operators.device"));
  const json& h = doc["operators"]["host"];
  EXPECT_EQ(h["operators"], 3);  // ProfilerStep# and the enqueue slice are not host operators
  ASSERT_EQ(h["by_name"].size(), 2u);
  EXPECT_EQ(h["by_name"][0]["name"], "aten::linear");
  EXPECT_EQ(h["by_name"][0]["total_ns"], 60000);  // inclusive: aten::mm inside is counted again below
  EXPECT_EQ(h["by_name"][0]["max_ns"], 40000);
  EXPECT_EQ(h["by_name"][1]["total_ns"], 15000);
}
