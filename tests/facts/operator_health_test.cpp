// diagnose_operator_health ("operator_health" and "memory" facts): known answers on the sample
// (testdata/sample/expected.json, docs/sample.md), on hand-built runs (edges of the
// reference's thresholds) and on the real files in ../shared/realdata.
#include <algorithm>
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

// A run folder holding only the given trace (and optionally a kernel table).
json run_with(const std::string& trace, const std::string& kernels = "", const npu::FactsOptions& options = {}) {
  npu::test::TempDir d;
  if (!trace.empty()) d.write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", trace);
  if (!kernels.empty()) d.write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", kernels);
  return npu::compute_facts(npu::test::load_path((d.path() / "r_ascend_pt").string()), nullptr, options).doc;
}

const json* find_by(const json& arr, const char* key, const std::string& value) {
  for (const auto& e : arr)
    if (e[key] == value) return &e;
  return nullptr;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// The sample
// ---------------------------------------------------------------------------------------

class OperatorHealthSample : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { doc_ = new json(facts_of(npu::test::sample_run())); }
  static void TearDownTestSuite() { delete doc_; }
  static const json& health() { return (*doc_)["operator_health"]; }
  static json* doc_;
};
json* OperatorHealthSample::doc_ = nullptr;

TEST_F(OperatorHealthSample, AiCpu) {
  const json& a = health()["ai_cpu"];
  auto e = npu::test::sample_expected()["kernel_details"]["ai_cpu"];
  EXPECT_EQ(a["count"], e["count"]);
  EXPECT_EQ(a["total_ns"], e["total_duration_ns"]);
  EXPECT_DOUBLE_EQ(a["share_of_compute"].get<double>(),
                   e["total_duration_ns"].get<double>() /
                       npu::test::sample_expected()["kernel_details"]["total_compute_duration_ns"].get<double>());
  ASSERT_EQ(a["by_type"].size(), 2u);
  const json* ip = find_by(a["by_type"], "type", "IndexPut");
  const json* nz = find_by(a["by_type"], "type", "NonZero");
  ASSERT_TRUE(ip && nz);
  EXPECT_EQ((*ip)["count"], e["by_type"]["IndexPut"]);
  EXPECT_EQ((*nz)["count"], e["by_type"]["NonZero"]);
  EXPECT_TRUE((*ip)["has_int64"].get<bool>());
  EXPECT_FALSE((*ip)["has_double"].get<bool>());
  EXPECT_EQ((*ip)["input_dtypes"], json::array({"INT64;INT64"}));
  EXPECT_EQ((*ip)["evidence"].size(), 3u);
  // Tasks of 40-120 us: the reference's 20 us gate (compute.aicpu_ops's min_task_ns) is passed.
  EXPECT_FALSE(a.contains("reference_triggered"));  // the rule's call, not the facts'
  EXPECT_GE(a["max_task_ns_all_ops"].get<int64_t>(), 20000);
}

TEST_F(OperatorHealthSample, DynamicShape) {
  const json& d = health()["dynamic_shape"];
  EXPECT_EQ(d["dynamic"], 275);
  EXPECT_EQ(d["static"], 15);
  EXPECT_EQ(d["no_state"], 5);  // the HCCL rows: N/A
  EXPECT_EQ(d["other"], 0);
  EXPECT_FALSE(d["all_dynamic"].get<bool>());
  EXPECT_DOUBLE_EQ(d["dynamic_ratio"].get<double>(), 275.0 / 290.0);
}

TEST_F(OperatorHealthSample, CompileAndSync) {
  const json& c = health()["compile"];
  auto t = npu::test::sample_expected()["trace"];
  EXPECT_EQ(c["count"], t["acl_op_compile_and_execute"]["count"]);
  ASSERT_EQ(c["by_step"].size(), 1u);
  EXPECT_EQ(c["by_step"][0]["step"], 1);
  EXPECT_EQ(c["by_step"][0]["count"], 25);
  EXPECT_EQ(c["max_step_count"], 25);
  EXPECT_EQ(c["longest"].size(), 10u);

  const json& s = health()["sync"];
  EXPECT_EQ(s["count"], t["aclrt_synchronize_stream"]["count"]);
  ASSERT_EQ(s["by_step"].size(), 5u);
  std::set<int> steps;
  for (const auto& b : s["by_step"]) {
    steps.insert(b["step"].get<int>());
    EXPECT_EQ(b["count"], 1);
  }
  EXPECT_EQ(steps, (std::set<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(s["by_step"][4]["step"], 3);  // the host-bound step: the device is idle, the sync is short
  EXPECT_EQ(s["per_step"]["steps_with_calls"], 5);
  EXPECT_EQ(s["per_step"]["min_step_count"], 1);
  EXPECT_EQ(s["per_step"]["max_step_count"], 1);
  EXPECT_EQ(c["per_step"]["steps_with_calls"], 1);
  EXPECT_EQ(c["per_step"]["min_step_count"], 0);
  EXPECT_EQ(s["node_launch_count"], t["node_launch"]);
  // The sync runs on CANN thread 4242, the launches on 4259: never back to back on one thread.
  EXPECT_EQ(s["co_occur_same_thread"], 0);
  EXPECT_LT(s["co_occur_ratio"].get<double>(), 0.5);
}

TEST_F(OperatorHealthSample, OtherTraceChecks) {
  EXPECT_FALSE(health()["gc"]["detected"].get<bool>());
  EXPECT_EQ(health()["gc"]["conjectured"]["gaps_over_min"], 0);  // the longest free gap is ~9 ms
  const json& dl = health()["dataloader"];
  EXPECT_EQ(dl["count"], 5);  // one enumerate(DataLoader)#...__next__ per step
  EXPECT_EQ(dl["slow_count"], 0);
  EXPECT_EQ(health()["syncbn"]["count"], 0);
  for (const auto& api : health()["memory_api"]["by_api"]) EXPECT_EQ(api["count"], 0);
}

TEST_F(OperatorHealthSample, BlockDimAndPmu) {
  const json& b = health()["block_dim"];
  EXPECT_FALSE(b["core_count_known"].get<bool>());
  EXPECT_EQ(b["kernels"], 120 + 140 + 20);  // AI_CORE + AI_VECTOR_CORE + MIX_AIC rows
  EXPECT_EQ(b["by_core"]["AI_CORE"]["kernels"], 120);
  const json& p = health()["pmu"];
  ASSERT_FALSE(p["by_type"].empty());
  EXPECT_EQ(p["by_type"][0]["type"], "MatMulV3");
  EXPECT_LE(p["by_type"].size(), 10u);
  for (const auto& t : p["by_type"]) {
    double mx = t["max_ratio"].get<double>();
    EXPECT_EQ(t["bound"] == "none", mx < 0.8) << t.dump();
  }
}

TEST_F(OperatorHealthSample, MemoryPeak) {
  const json& m = (*doc_)["memory"];
  auto e = npu::test::sample_expected()["memory"];
  EXPECT_EQ(m["records"], e["record_rows"]);
  // PTA + GE summed at each timestamp equals the profiler's own PTA+GE rows on the sample.
  EXPECT_EQ(m["overall"]["method"], "framework components summed at each timestamp");
  EXPECT_DOUBLE_EQ(m["components"]["PTA+GE"]["peak_allocated"]["value_mb"].get<double>(),
                   e["peak_total_allocated_mb"].get<double>());
  EXPECT_DOUBLE_EQ(m["peak_allocated_mb"].get<double>(), e["peak_total_allocated_mb"].get<double>());
  EXPECT_EQ(m["overall"]["peak_allocated"]["ts_ns"], e["peak_timestamp_ns"]);
  EXPECT_EQ(m["overall"]["peak_allocated"]["step"], e["peak_step"]);
  EXPECT_DOUBLE_EQ(m["peak_reserved_mb"].get<double>(), e["max_total_reserved_mb"].get<double>());
  EXPECT_EQ(m["overall"]["peak_reserved"]["ts_ns"], e["max_total_reserved_first_timestamp_ns"]);
  EXPECT_DOUBLE_EQ(m["components"]["PTA"]["peak_allocated"]["value_mb"].get<double>(),
                   e["pta_peak_total_allocated_mb"].get<double>());
  EXPECT_EQ(m["components"]["PTA"]["peak_allocated"]["ts_ns"], e["pta_peak_timestamp_ns"]);
  EXPECT_EQ(m["operator_allocations"], e["operator_memory_rows"]);
  ASSERT_EQ(m["top_allocations"].size(), 10u);
  for (size_t i = 1; i < m["top_allocations"].size(); ++i)
    EXPECT_GE(m["top_allocations"][i - 1]["size_mb"].get<double>(), m["top_allocations"][i]["size_mb"].get<double>());
  EXPECT_EQ(m["top_allocations"][0]["step"], 2);  // all 12 allocations are in step 2
}

// ---------------------------------------------------------------------------------------
// Hand-built runs
// ---------------------------------------------------------------------------------------

const char* kGcTrace = R"([
{"name": "process_name", "pid": 10, "tid": 0, "args": {"name": "Python"}, "ph": "M"},
{"name": "process_name", "pid": 11, "tid": 0, "args": {"name": "Python GC"}, "ph": "M"},
{"ph": "X", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": "1000.000", "dur": 100000, "cat": "cpu_op"},
{"ph": "X", "name": "GC", "pid": 11, "tid": 10, "ts": "2000.000", "dur": 500.0, "cat": "GC"},
{"ph": "X", "name": "GC", "pid": 11, "tid": 10, "ts": "5000.000", "dur": 1000.0, "cat": "GC"},
{"ph": "X", "name": "GC", "pid": 11, "tid": 10, "ts": "9000.000", "dur": 2500.0, "cat": "GC"}
])";

TEST(OperatorHealth, GcEvents) {
  json doc = run_with(kGcTrace);
  const json& gc = doc["operator_health"]["gc"];
  EXPECT_TRUE(gc["detected"].get<bool>());
  EXPECT_EQ(gc["count"], 3);
  EXPECT_EQ(gc["total_ns"], 4000000);
  EXPECT_EQ(gc["count_ge_min"], 2);  // 1 ms exactly counts (>=)
  EXPECT_EQ(gc["total_ge_min_ns"], 3500000);
  ASSERT_EQ(gc["longest"].size(), 3u);
  EXPECT_EQ(gc["longest"][0]["dur_ns"], 2500000);
  EXPECT_EQ(gc["longest"][0]["step"], 1);
  EXPECT_EQ(gc["longest"][0]["evidence"][0].count("byte"), 1u);
  EXPECT_FALSE(gc.contains("conjectured"));
}

// The cut-off is schedule.gc.min_ns (FactsOptions::gc_min_ns): at 0.5 ms all three count, at 2 ms
// only the 2.5 ms one.
TEST(OperatorHealth, GcCutOffIsTheRuleParameter) {
  npu::FactsOptions o;
  o.gc_min_ns = 500'000;
  json gc = run_with(kGcTrace, "", o)["operator_health"]["gc"];
  EXPECT_EQ(gc["count_ge_min"], 3);
  EXPECT_EQ(gc["total_ge_min_ns"], 4000000);
  EXPECT_EQ(gc["reference_min_ns"], 500000);
  o.gc_min_ns = 2'000'000;
  gc = run_with(kGcTrace, "", o)["operator_health"]["gc"];
  EXPECT_EQ(gc["count_ge_min"], 1);
  EXPECT_EQ(gc["total_ge_min_ns"], 2500000);
}

const char* kDataloaderTrace = R"([
{"name": "process_name", "pid": 10, "tid": 0, "args": {"name": "Python"}, "ph": "M"},
{"ph": "X", "name": "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "pid": 10, "tid": 10, "ts": "1000.000", "dur": 10000.000, "cat": "cpu_op"},
{"ph": "X", "name": "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "pid": 10, "tid": 10, "ts": "20000.000", "dur": 9999.999, "cat": "cpu_op"},
{"ph": "X", "name": "MyDATALOADER.fetch", "pid": 10, "tid": 10, "ts": "40000.000", "dur": 25000.0, "cat": "python_function"},
{"ph": "X", "name": "aten::add", "pid": 10, "tid": 10, "ts": "70000.000", "dur": 50000.0, "cat": "cpu_op"}
])";

TEST(OperatorHealth, DataloaderThresholdIsInclusive) {
  json doc = run_with(kDataloaderTrace);
  const json& dl = doc["operator_health"]["dataloader"];
  EXPECT_EQ(dl["count"], 3);
  EXPECT_EQ(dl["max_ns"], 25000000);
  EXPECT_EQ(dl["slow_count"], 2);  // exactly 10 ms counts, 9.999999 ms does not
  EXPECT_EQ(dl["slow_total_ns"], 35000000);
  ASSERT_EQ(dl["slow"].size(), 2u);
  EXPECT_EQ(dl["slow"][0]["name"], "MyDATALOADER.fetch");  // worst first
  EXPECT_EQ(dl["slow"][1]["dur_ns"], 10000000);
  EXPECT_EQ(dl["first_slow"]["ts_ns"], 1000000);  // the one the reference would quote
  EXPECT_EQ(dl["reference_slow_ns"], 10000000);
}

// The cut-off is schedule.dataloader.slow_ns (FactsOptions::dataloader_slow_ns): at 20 ms only the
// 25 ms fetch is slow, at 9.999999 ms all three.
TEST(OperatorHealth, DataloaderCutOffIsTheRuleParameter) {
  npu::FactsOptions o;
  o.dataloader_slow_ns = 20'000'000;
  json dl = run_with(kDataloaderTrace, "", o)["operator_health"]["dataloader"];
  EXPECT_EQ(dl["slow_count"], 1);
  EXPECT_EQ(dl["slow_total_ns"], 25000000);
  EXPECT_EQ(dl["first_slow"]["ts_ns"], 40000000);
  EXPECT_EQ(dl["reference_slow_ns"], 20000000);
  o.dataloader_slow_ns = 9'999'999;
  dl = run_with(kDataloaderTrace, "", o)["operator_health"]["dataloader"];
  EXPECT_EQ(dl["slow_count"], 3);
  EXPECT_EQ(dl["slow_total_ns"], 44999999);
}

TEST(OperatorHealth, SyncCoOccurrenceAndMemoryApis) {
  // CANN thread 1: launch, sync, launch, sync, launch; thread 2: a sync right after thread 1's
  // last launch in time (the reference's global order counts it, the same-thread count does not).
  json doc = run_with(R"([
{"name": "process_name", "pid": 10, "tid": 0, "args": {"name": "Python"}, "ph": "M"},
{"name": "process_name", "pid": 20, "tid": 0, "args": {"name": "CANN"}, "ph": "M"},
{"ph": "X", "name": "ProfilerStep#4", "pid": 10, "tid": 10, "ts": "0.000", "dur": 35.0, "cat": "cpu_op"},
{"ph": "X", "name": "SyncBatchNorm", "pid": 10, "tid": 10, "ts": "1.000", "dur": 3.0, "cat": "cpu_op"},
{"ph": "X", "name": "SyncBatchNormBackward", "pid": 10, "tid": 10, "ts": "5.000", "dur": 3.0, "cat": "cpu_op"},
{"ph": "X", "name": "Node@launch", "pid": 20, "tid": 1, "ts": "0.000", "dur": 2.0},
{"ph": "X", "name": "AscendCL@aclrtSynchronizeStream", "pid": 20, "tid": 1, "ts": "10.000", "dur": 5.0},
{"ph": "X", "name": "Node@launch", "pid": 20, "tid": 1, "ts": "20.000", "dur": 2.0},
{"ph": "X", "name": "AscendCL@aclrtSynchronizeStreamWithTimeout", "pid": 20, "tid": 1, "ts": "30.000", "dur": 4.0},
{"ph": "X", "name": "Node@launch", "pid": 20, "tid": 1, "ts": "40.000", "dur": 2.0},
{"ph": "X", "name": "AscendCL@aclrtSynchronizeStream", "pid": 20, "tid": 2, "ts": "45.000", "dur": 1.0},
{"ph": "X", "name": "AscendCL@aclrtSynchronizeDevice", "pid": 20, "tid": 2, "ts": "50.000", "dur": 7.0},
{"ph": "X", "name": "AscendCL@aclrtFree", "pid": 20, "tid": 2, "ts": "60.000", "dur": 6000.0},
{"ph": "X", "name": "AscendCL@aclrtFree", "pid": 20, "tid": 2, "ts": "7000.000", "dur": 4000.0},
{"ph": "X", "name": "AscendCL@aclrtFreeHost", "pid": 20, "tid": 2, "ts": "12000.000", "dur": 4000.0},
{"ph": "X", "name": "AscendCL@aclopCompileAndExecute", "pid": 20, "tid": 1, "ts": "3.000", "dur": 1.0}
])");
  const json& s = doc["operator_health"]["sync"];
  EXPECT_EQ(s["count"], 4);
  EXPECT_EQ(s["sync_stream_count"], 3);
  EXPECT_EQ(s["total_ns"], 17000);
  EXPECT_EQ(s["by_api"]["AscendCL@aclrtSynchronizeDevice"]["count"], 1);
  EXPECT_EQ(s["node_launch_count"], 3);
  EXPECT_EQ(s["co_occur"], 3);
  EXPECT_DOUBLE_EQ(s["co_occur_ratio"].get<double>(), 1.0);
  EXPECT_EQ(s["co_occur_same_thread"], 2);
  EXPECT_DOUBLE_EQ(s["co_occur_same_thread_ratio"].get<double>(), 2.0 / 3.0);
  ASSERT_EQ(s["by_step"].size(), 2u);  // most time first
  EXPECT_EQ(s["by_step"][0]["step"], 4);
  EXPECT_EQ(s["by_step"][0]["count"], 2);
  EXPECT_EQ(s["by_step"][0]["total_ns"], 9000);
  EXPECT_TRUE(s["by_step"][1]["step"].is_null());  // the two syncs after the step
  EXPECT_EQ(s["by_step"][1]["count"], 2);
  EXPECT_EQ(s["per_step"]["outside_steps_count"], 2);

  const json* fr = find_by(doc["operator_health"]["memory_api"]["by_api"], "api", "AscendCL@aclrtFree");
  ASSERT_TRUE(fr);
  EXPECT_EQ((*fr)["count"], 2);  // aclrtFreeHost is not aclrtFree
  EXPECT_EQ((*fr)["total_ns"], 10000000);
  EXPECT_EQ((*fr)["max_ns"], 6000000);

  EXPECT_EQ(doc["operator_health"]["syncbn"]["count"], 1);  // exact name only
  EXPECT_EQ(doc["operator_health"]["compile"]["count"], 1);
  EXPECT_EQ(doc["operator_health"]["compile"]["by_step"][0]["step"], 4);
}

TEST(OperatorHealth, ConjecturedGcFromDeviceFreeGaps) {
  // Device tasks at 0 and 300 ms: one 299.99 ms free gap (> 200 ms) with two short AscendCL
  // calls inside it; the 150 ms gap after it is under the threshold.
  json doc = run_with(R"([
{"name": "process_name", "pid": 20, "tid": 0, "args": {"name": "CANN"}, "ph": "M"},
{"name": "process_name", "pid": 30, "tid": 0, "args": {"name": "Ascend Hardware"}, "ph": "M"},
{"name": "k", "pid": 30, "tid": 2, "ts": "0.000", "dur": 10.0, "args": {"Task Type": "AI_CORE"}, "ph": "X"},
{"name": "k", "pid": 30, "tid": 2, "ts": "300000.000", "dur": 10.0, "args": {"Task Type": "AI_CORE"}, "ph": "X"},
{"name": "k", "pid": 30, "tid": 2, "ts": "450010.000", "dur": 10.0, "args": {"Task Type": "AI_CORE"}, "ph": "X"},
{"ph": "X", "name": "AscendCL@aclnnAdd", "pid": 20, "tid": 1, "ts": "5.000", "dur": 1.0},
{"ph": "X", "name": "AscendCL@aclnnAdd", "pid": 20, "tid": 1, "ts": "100000.000", "dur": 1.0},
{"ph": "X", "name": "AscendCL@aclnnMul", "pid": 20, "tid": 1, "ts": "299999.500", "dur": 1.0},
{"ph": "X", "name": "Node@launch", "pid": 20, "tid": 1, "ts": "200000.000", "dur": 1.0}
])");
  const json& gc = doc["operator_health"]["gc"];
  EXPECT_FALSE(gc["detected"].get<bool>());
  const json& c = gc["conjectured"];
  EXPECT_EQ(c["gaps_over_min"], 1);
  ASSERT_EQ(c["gaps"].size(), 1u);
  const json& g = c["gaps"][0];
  EXPECT_EQ(g["start_ns"], 10000);
  EXPECT_EQ(g["end_ns"], 300000000);
  EXPECT_EQ(g["dur_ns"], 299990000);
  // The call at 5 us lies inside a kernel; 100 ms is fully inside; 299999.5 us half inside.
  EXPECT_EQ(g["acl_count"], 2);
  EXPECT_EQ(g["acl_ns"], 1500);
  // GC-like by schedule.gc's defaults (AscendCL time < 1% of the gap, < 1e-4 calls per us): the
  // rule decides; the facts give the figures.
  EXPECT_NEAR(g["acl_time_ratio"].get<double>(), 1500.0 / 299990000.0, 1e-15);
  EXPECT_NEAR(g["acl_per_us"].get<double>(), 2.0 / 299990.0, 1e-15);
  EXPECT_FALSE(g.contains("reference_like"));
  EXPECT_TRUE(c["acl_counted"].get<bool>());
}

TEST(OperatorHealth, NoOpStateColumnIsUnavailable) {
  // Older header: no OP State, no PMU columns.
  std::string csv =
      "Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),"
      "Block Dim,Mix Block Dim,Input Shapes,Input Data Types\n"
      "1,1,1,2,mm,MatMul,AI_CORE,1000.000,30.0,0,24,0,\"\"\"8,8\"\"\",FLOAT16\n"
      "1,1,2,2,idx,IndexPut,AI_CPU,1040.000,25.5,0,1,0,\"\"\"8;8\"\"\",DOUBLE;INT64\n"
      "1,1,3,2,add,Add,AI_CORE,1070.000,5.0,0,4,0,\"\"\"8\"\"\",FLOAT16\n"
      "1,N/A,N/A,N/A,hcom_allReduce_1,hcom_allReduce_,HCCL,1100.000,50.0,0,N/A,N/A,N/A,N/A\n";
  json doc = run_with("", csv);
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operator_health.dynamic_shape"));
  EXPECT_FALSE(doc["operator_health"].contains("dynamic_shape"));
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operator_health.pmu"));
  const json& a = doc["operator_health"]["ai_cpu"];
  EXPECT_EQ(a["count"], 1);
  EXPECT_EQ(a["total_ns"], 25500);
  EXPECT_TRUE(a["by_type"][0]["has_double"].get<bool>());
  EXPECT_TRUE(a["by_type"][0]["has_int64"].get<bool>());
  EXPECT_EQ(a["by_type"][0]["names"], json::array({"idx"}));
  EXPECT_EQ(a["max_task_ns_all_ops"], 50000);  // the HCCL row counts, as in the reference
  EXPECT_DOUBLE_EQ(a["share_of_compute"].get<double>(), 25.5 / 60.5);
  EXPECT_DOUBLE_EQ(a["share_of_all_tasks"].get<double>(), 25.5 / 110.5);
  EXPECT_EQ(a["by_type"][0]["evidence"][0]["line"], 3);
  const json& b = doc["operator_health"]["block_dim"]["by_core"]["AI_CORE"];
  EXPECT_EQ(b["max_block_dim"], 24);
  EXPECT_EQ(b["below_half_max"]["count"], 1);  // Add with 4 < 24 / 2
  EXPECT_EQ(b["below_half_max"]["total_ns"], 5000);
  EXPECT_EQ(b["below_half_max"]["by_name"][0]["name"], "add");
  // No trace: the trace checks say so.
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operator_health.compile"));
  EXPECT_TRUE(npu::test::is_unavailable(doc, "memory"));
}

TEST(OperatorHealth, EmptyKernelTable) {
  json doc = run_with("",
                      "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
                      "Duration(us),Wait Time(us),Block Dim\n");
  EXPECT_FALSE(doc.contains("operator_health"));
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operator_health"));
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operator_health.ai_cpu"));
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operator_health.dynamic_shape"));
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operator_health.block_dim"));
}

// Two op types: one with aic_mte2_ratio 0.9 (bound), one whose best ratio is 0.79 (none).
// Time weighting: type B rows 0.5 (30 us) and 0.95 (10 us) -> 0.6125 aiv_vec.
const char* kPmuKernels =
      "Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Block Dim,aic_mac_ratio,aic_mte2_ratio,"
      "aiv_vec_ratio,aiv_mte2_ratio\n"
      "a,A,dynamic,AI_CORE,1000.0,100.0,20,0.5,0.9,0,0\n"
      "b,B,dynamic,AI_VECTOR_CORE,1200.0,30.0,40,0,0,0.5,0.79\n"
      "b,B,dynamic,AI_VECTOR_CORE,1300.0,10.0,40,0,0,0.95,0.79\n"
      "c,C,dynamic,AI_CPU,1400.0,5.0,1,N/A,N/A,N/A,N/A\n";

TEST(OperatorHealth, PmuBoundRule) {
  json doc = run_with("", kPmuKernels);
  const json& p = doc["operator_health"]["pmu"];
  ASSERT_EQ(p["by_type"].size(), 2u);  // the AI_CPU type has no ratios
  EXPECT_EQ(p["by_type"][0]["type"], "A");
  EXPECT_EQ(p["by_type"][0]["bound"], "aic_mte2_ratio");
  EXPECT_EQ(p["by_type"][1]["type"], "B");
  EXPECT_EQ(p["by_type"][1]["bound"], "none");
  EXPECT_NEAR(p["by_type"][1]["ratios"]["aiv_vec_ratio"].get<double>(), 0.6125, 1e-12);
  EXPECT_NEAR(p["by_type"][1]["max_ratio"].get<double>(), 0.79, 1e-12);
  EXPECT_EQ(p["no_bound_types"], 1);
  EXPECT_TRUE(doc["operator_health"]["dynamic_shape"]["all_dynamic"].get<bool>());
}

// The bound ratio is compute.no_bound.bound_ratio (FactsOptions::pmu_bound_ratio): at 0.95 type A
// (0.9) is bound by nothing either, at 0.78 type B (0.79) is bound by aiv_mte2.
TEST(OperatorHealth, PmuBoundRatioIsTheRuleParameter) {
  npu::FactsOptions o;
  o.pmu_bound_ratio = 0.95;
  json p = run_with("", kPmuKernels, o)["operator_health"]["pmu"];
  EXPECT_EQ(p["by_type"][0]["bound"], "none");
  EXPECT_EQ(p["no_bound_types"], 2);
  o.pmu_bound_ratio = 0.78;
  p = run_with("", kPmuKernels, o)["operator_health"]["pmu"];
  EXPECT_EQ(p["by_type"][1]["bound"], "aiv_mte2_ratio");
  EXPECT_EQ(p["no_bound_types"], 0);
}

// ---------------------------------------------------------------------------------------
// Real data
// ---------------------------------------------------------------------------------------

// mstt_compute_advice: 29 rows, OP State "dynamic" on every one (Python csv).
TEST(OperatorHealthRealData, MsttComputeAdviceAllDynamic) {
  REQUIRE_REALDATA("ascend_torch_npu/mstt_compute_advice");
  json doc = facts_of(real("ascend_torch_npu/mstt_compute_advice"));
  const json& d = doc["operator_health"]["dynamic_shape"];
  EXPECT_EQ(d["dynamic"], 29);
  EXPECT_EQ(d["static"], 0);
  EXPECT_TRUE(d["all_dynamic"].get<bool>());
  EXPECT_EQ(doc["operator_health"]["ai_cpu"]["count"], 0);
  EXPECT_FALSE(doc["operator_health"]["pmu"]["by_type"].empty());
}

// msinsight_2rank/test_rank_0 kernel_details.csv (older header, no OP State). Python csv:
// two AI_CPU rows, both Type Cast: trans_Cast_5 72.1612 us and trans_Cast_15 72.8611 us,
// input dtype INT32.
TEST(OperatorHealthRealData, Msinsight2RankRank0AiCpu) {
  REQUIRE_REALDATA("ascend_torch_npu/msinsight_2rank/test_rank_0");
  json doc = facts_of(real("ascend_torch_npu/msinsight_2rank/test_rank_0"));
  const json& a = doc["operator_health"]["ai_cpu"];
  EXPECT_EQ(a["count"], 2);
  EXPECT_EQ(a["total_ns"], 72161 + 72861);
  EXPECT_EQ(a["max_ns"], 72861);
  ASSERT_EQ(a["by_type"].size(), 1u);
  EXPECT_EQ(a["by_type"][0]["type"], "Cast");
  auto names = a["by_type"][0]["names"].get<std::vector<std::string>>();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"trans_Cast_15", "trans_Cast_5"}));
  EXPECT_EQ(a["by_type"][0]["input_dtypes"], json::array({"INT32"}));
  EXPECT_FALSE(a["by_type"][0]["has_int64"].get<bool>());
  EXPECT_TRUE(npu::test::is_unavailable(doc, "operator_health.dynamic_shape"));
  // memory_record.csv (Python csv): PTA+GE rows only while PTA is written (peak reserved
  // 8664 MB); three later GE rows (242 MB reserved, up to 0.25 MB allocated) have no PTA+GE
  // row. PTA + GE summed: 8664 + 242 = 8906 MB reserved and 4599.86572265625 + 0.25 MB
  // allocated, both first reached at the GE row of 1695115378979271.0 us (line 10).
  const json& mem = doc["memory"];
  EXPECT_EQ(mem["overall"]["method"], "framework components summed at each timestamp");
  EXPECT_DOUBLE_EQ(mem["peak_reserved_mb"].get<double>(), 8906.0);
  EXPECT_DOUBLE_EQ(mem["peak_allocated_mb"].get<double>(), 4599.86572265625 + 0.25);
  EXPECT_EQ(mem["overall"]["peak_reserved"]["ts_ns"], 1695115378979271000);
  EXPECT_EQ(mem["overall"]["peak_reserved"]["evidence"][0]["line"], 10);
  EXPECT_DOUBLE_EQ(mem["components"]["PTA+GE"]["peak_reserved"]["value_mb"].get<double>(), 8664.0);
  EXPECT_DOUBLE_EQ(mem["components"]["APP"]["peak_reserved"]["value_mb"].get<double>(), 11224.375);
  EXPECT_TRUE(mem["components"]["APP"]["peak_allocated"].is_null());
}

// mstt_timeline_advice trace, counted independently with Python json (decimal µs, rounded to
// ns): CANN AscendCL@aclopCompileAndExecute x11 totalling 6637096 ns (longest 1099971 ns);
// AscendCL@aclrtSynchronizeStream x4 + aclrtSynchronizeStreamWithTimeout x2 +
// aclrtSynchronizeDevice x2 = 8 calls totalling 397754 ns; no Node@launch events at all.
TEST(OperatorHealthRealData, MsttTimelineAdviceCompileAndSync) {
  REQUIRE_REALDATA("ascend_torch_npu/mstt_timeline_advice");
  json doc = facts_of(real("ascend_torch_npu/mstt_timeline_advice"));
  const json& c = doc["operator_health"]["compile"];
  EXPECT_EQ(c["count"], 11);
  EXPECT_EQ(c["total_ns"], 6637096);
  EXPECT_EQ(c["max_ns"], 1099971);
  const json& s = doc["operator_health"]["sync"];
  EXPECT_EQ(s["count"], 8);
  EXPECT_EQ(s["sync_stream_count"], 6);
  EXPECT_EQ(s["by_api"]["AscendCL@aclrtSynchronizeStream"]["count"], 4);
  EXPECT_EQ(s["by_api"]["AscendCL@aclrtSynchronizeDevice"]["count"], 2);
  EXPECT_EQ(s["total_ns"], 397754);
  EXPECT_EQ(s["node_launch_count"], 0);
  EXPECT_EQ(s["co_occur_ratio"], 0.0);
  // No kernel_details: AI CPU from the device tasks' Task Type (2 tasks, 327567 ns).
  EXPECT_EQ(doc["operator_health"]["ai_cpu"]["count"], 2);
  EXPECT_EQ(doc["operator_health"]["ai_cpu"]["total_ns"], 327567);
  EXPECT_EQ(doc["operator_health"]["dataloader"]["count"], 2);
  EXPECT_EQ(doc["operator_health"]["dataloader"]["max_ns"], 1302013);
}
