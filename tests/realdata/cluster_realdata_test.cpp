// The cluster analysis on real data, read in place from ../shared/realdata. Every number here
// was computed independently from the files by tests/realdata/verify_cluster.py (Python
// standard library, Decimal for the ms/us -> ns conversion).
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

using nlohmann::json;

json analyze(const std::string& rel, const std::string& base = "/ascend_torch_npu/") {
  std::string in = npu::test::realdata_dir() + base + rel;
  if (!std::filesystem::exists(in)) return nullptr;
  npu::test::TempDir dir;
  std::string out = (dir.path() / "r.json").string();
  std::string cmd =
      std::string("'") + NPU_ADVISOR_BIN + "' analyze '" + in + "' -q --format json -o '" + out + "' 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream f(out);
  return json::parse(f);
}

const json* group(const json& c, const std::string& id) {
  for (const auto& g : c["communication"]["groups"])
    if (g["group"] == id) return &g;
  return nullptr;
}
const json* transport(const json& c, const std::string& t) {
  for (const auto& b : c["bandwidth"])
    if (b["transport"] == t) return &b;
  return nullptr;
}
const json* finding_in(const json& r, const std::string& rule) {
  for (const auto& f : r["findings"])
    if (f["rule"] == rule) return &f;
  return nullptr;
}
bool fired(const json& r, const std::string& rule, const std::string& text) {
  for (const auto& f : r["findings"])
    if (f["rule"] == rule && f["observed"].get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

TEST(ClusterRealData, MsttClusterAnalysisOutputOnly) {
  json r = analyze("mstt_cluster_4rank");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  const json& c = r["facts"]["cluster"];
  EXPECT_EQ(c["rank_count"], 8);
  EXPECT_EQ(c["rank_steps_source"], "cluster_step_trace_time.csv");
  EXPECT_EQ(c["ranks"][1]["computing_ns"], 80435747);
  EXPECT_EQ(c["ranks"][1]["free_ns"], 1488610059);
  const json& s = c["spread"]["comm_not_overlapped_ns"];
  EXPECT_EQ(s["max_ns"], 756374860);
  EXPECT_EQ(s["max_rank"], 5);
  EXPECT_EQ(s["min_ns"], 133385977);
  EXPECT_EQ(s["min_rank"], 1);
  EXPECT_NEAR(s["ratio"].get<double>(), 0.363527, 1e-6);
  EXPECT_NEAR(c["spread"]["free_ns"]["ratio"].get<double>(), 0.347646, 1e-6);
  EXPECT_NEAR(c["spread"]["computing_ns"]["ratio"].get<double>(), 0.000925, 1e-6);
  // No rank's computing + free is a robust outlier (largest z 1.385, rank 1), and the only
  // collectives have 2 ranks (no Dixon test): no slow-rank verdict, but the imbalance rule fires.
  EXPECT_EQ(c["slow_rank"]["rank"], -1);
  EXPECT_EQ(c["slow_rank"]["judged_ops"], 0);
  EXPECT_TRUE(fired(r, "cluster.imbalance", "Rank 1 has the least exposed communication"));
  const json* g = group(c, "6297232067196334501");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ((*g)["wait_ns"], 143057631);
  EXPECT_EQ((*g)["transit_ns"], 24370);
  EXPECT_EQ((*g)["sync_ns"], 129796683);
  EXPECT_EQ((*g)["elapse_ns"], 187011181);
  EXPECT_TRUE(fired(r, "cluster.wait_dominated", "Group 6297232067196334501"));
  const json* h = transport(c, "HCCS");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ((*h)["ops"], 4);
  EXPECT_EQ((*h)["time_ns"], 65470);
  EXPECT_NEAR((*h)["size_mb"].get<double>(), 0.167984, 1e-9);
  EXPECT_NEAR((*h)["gbps"].get<double>(), 2.565816, 1e-6);
  const json* p = transport(c, "PCIE");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ((*p)["time_ns"], 27810);
}

TEST(ClusterRealData, MsinsightSixteenRanksWithMatrix) {
  json r = analyze("msinsight_cluster_8rank");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  const json& c = r["facts"]["cluster"];
  EXPECT_EQ(c["rank_count"], 16);
  EXPECT_EQ(c["steps"], json::array({2}));
  EXPECT_EQ(c["ranks"][13]["free_ns"], 92698580);
  // Two pipeline stages (the CSV's stage rows): ranks are compared within their stage and
  // communication without receive (Bubble). Stage 1's exposed communication ranges 143.222 ms
  // (rank 5) to 160.813 ms (rank 7): 17590940 ns over the mean row device time 337737625.0625 ns
  // (Python, Decimal us -> ns). Pooled over both stages it was 26.2 % "rank 11".
  EXPECT_EQ(c["spread"]["comm_not_overlapped_ns"]["max_rank"], 7);
  EXPECT_EQ(c["spread"]["comm_not_overlapped_ns"]["min_rank"], 5);
  EXPECT_EQ(c["spread"]["comm_not_overlapped_ns"]["diff_ns"], 17590940);
  EXPECT_NEAR(c["spread"]["comm_not_overlapped_ns"]["ratio"].get<double>(), 17590940 / 337737625.0625, 1e-9);
  EXPECT_EQ(c["slow_rank"]["rank"], -1);
  // The bubble: stage 2 (ranks 8-15) spends 178.320 (rank 8) to 195.498 ms (rank 11) receiving.
  const json& pl = c["pipeline"];
  EXPECT_EQ(pl["stage_count"], 2);
  ASSERT_EQ(pl["stages"].size(), 2u);
  EXPECT_EQ(pl["stages"][1]["ranks"], json::array({8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(pl["stages"][1]["bubble_per_step_min_ns"], 178320265);
  EXPECT_EQ(pl["stages"][1]["bubble_per_step_min_rank"], 8);
  EXPECT_EQ(pl["stages"][1]["bubble_per_step_max_ns"], 195498280);
  EXPECT_EQ(pl["stages"][1]["bubble_per_step_max_rank"], 11);
  EXPECT_EQ(pl["stages"][0]["bubble_per_step_max_ns"], 0);
  EXPECT_TRUE(fired(r, "cluster.pipeline_bubble", "ranks 8-15 (pipeline stage 2 of 2) spend 178.320 to 195.498 ms"));
  EXPECT_EQ(finding_in(r, "cluster.slow_rank"), nullptr);
  for (const auto& f : r["findings"])
    EXPECT_EQ(f["observed"].get<std::string>().find("the others wait for it"), std::string::npos) << f["observed"];
  EXPECT_EQ(c["slow_rank"]["judged_ops"], 0);
  const json* g = group(c, "9350434047717501483");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ((*g)["wait_ns"], 9397136);
  EXPECT_EQ((*g)["transit_ns"], 5080);
  const json* g2 = group(c, "13337953553061386822");
  ASSERT_NE(g2, nullptr);
  EXPECT_EQ((*g2)["wait_ns"], 20);
  EXPECT_EQ((*g2)["transit_ns"], 1727635);
  const json* rdma = transport(c, "RDMA");
  ASSERT_NE(rdma, nullptr);
  EXPECT_EQ((*rdma)["time_ns"], 1727635);
  EXPECT_NEAR((*rdma)["size_mb"].get<double>(), 41.94304, 1e-9);
  EXPECT_NEAR((*rdma)["gbps"].get<double>(), 24.277721, 1e-6);
  // Longest collective: hcom_broadcast__483_0, elapse 8.665280 ms on rank 1, 4.969808 ms on rank 0
  // (send/receive are not collectives and are left out).
  const json& top = c["communication"]["top_ops"];
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0]["name"], "hcom_broadcast__483_0");
  EXPECT_EQ(top[0]["elapse_max_ns"], 8665280);
  EXPECT_EQ(top[0]["elapse_min_ns"], 4969808);
  EXPECT_EQ(top[0]["fastest_rank"], 0);
  EXPECT_EQ(c["links"]["count"], 3);
  EXPECT_EQ(c["links"]["list"][0]["src"], 1);
  EXPECT_EQ(c["links"]["list"][0]["dst"], 0);
  EXPECT_EQ(c["links"]["list"][0]["time_ns"], 1620);
  EXPECT_NEAR(c["links"]["median_gbps"]["RDMA"].get<double>(), 24.277791, 1e-6);
}

TEST(ClusterRealData, MsinsightTwoRankFolders) {
  json r = analyze("msinsight_2rank");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  const json& c = r["facts"]["cluster"];
  EXPECT_EQ(c["rank_count"], 2);
  EXPECT_EQ(c["ranks"][0]["computing_ns"], 75174575);
  EXPECT_EQ(c["ranks"][0]["comm_not_overlapped_ns"], 146614020);
  EXPECT_EQ(c["ranks"][1]["free_ns"], 67860800);
  EXPECT_EQ(c["communication"]["op_records"], 56);
  const json* g = group(c, "368314942532213303");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ((*g)["wait_ns"], 97113920);
  EXPECT_EQ((*g)["transit_ns"], 5373700);
  EXPECT_EQ((*g)["sync_ns"], 97113900);
  const json* h = transport(c, "HCCS");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ((*h)["ops"], 27);
  EXPECT_EQ((*h)["time_ns"], 140634715);
  EXPECT_NEAR((*h)["size_mb"].get<double>(), 2643.150156, 1e-6);
  EXPECT_NEAR((*h)["gbps"].get<double>(), 18.794436, 1e-6);
  const json* rdma = transport(c, "RDMA");
  ASSERT_NE(rdma, nullptr);
  EXPECT_EQ((*rdma)["ops"], 9);
  EXPECT_EQ((*rdma)["time_ns"], 12521388);
  EXPECT_EQ(c["links"]["count"], 17);
  EXPECT_NEAR(c["links"]["median_gbps"]["HCCS"].get<double>(), 19.106946, 1e-6);
  EXPECT_EQ(c["links"]["list"][0]["src"], 1);
  EXPECT_EQ(c["links"]["list"][0]["dst"], 7);
  EXPECT_EQ(c["links"]["list"][0]["time_ns"], 10635940);
  // Both ranks wait ~94% in group 13337953553061386822 (their peers are not in this 2-rank
  // excerpt of a 16-rank job): no rank of the group is blamed.
  EXPECT_TRUE(fired(r, "cluster.wait_dominated",
                    "Group 13337953553061386822 (ranks 0,1, 5 operators): wait 27.682 ms vs transit 1.778 ms"));
  EXPECT_TRUE(fired(r, "cluster.wait_dominated", "every rank of the group waits alike (wait ratio 94% to 94%)"));
  EXPECT_FALSE(fired(r, "cluster.wait_dominated", "is the one the others wait for"));
  // 17.75 GB/s is 0.93x the HCCS median: no slow link.
  EXPECT_FALSE(fired(r, "cluster.slow_link", ""));
}

}  // namespace

namespace {

// Several Kineto traces: the rank comes from each trace's distributedInfo.rank (HTA's sampled
// ranks 0 and 1 of a 128-rank job). They hold no device tasks, so there is no step breakdown.
TEST(ClusterRealData, KinetoTracesTakeTheirRankFromDistributedInfo) {
  json r = analyze("trace_filter", "/kineto/hta/");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  const json& c = r["facts"]["cluster"];
  ASSERT_EQ(c["rank_count"], 2);
  EXPECT_EQ(c["ranks"][0]["rank"], 0);
  EXPECT_NE(c["ranks"][0]["path"].get<std::string>().find("sampled_rank-0.json.gz"), std::string::npos);
  EXPECT_EQ(c["ranks"][1]["rank"], 1);
  EXPECT_NE(c["ranks"][1]["path"].get<std::string>().find("sampled_rank-1.json.gz"), std::string::npos);
  EXPECT_TRUE(c["warnings"].empty());
  // Each rank's GPU breakdown (Kineto facts, verified by tests/realdata/verify_kineto.py) feeds
  // the rank x step table: step 551 of rank 0 and of rank 1.
  ASSERT_EQ(c["rank_steps"].size(), 4u);
  const json& r0 = c["rank_steps"][0];
  EXPECT_EQ(r0["rank"], 0);
  EXPECT_EQ(r0["step"], 551);
  EXPECT_EQ(r0["computing_ns"], 106252000);
  EXPECT_EQ(r0["comm_not_overlapped_ns"], 172259000);
  EXPECT_EQ(r0["free_ns"], 328632000);
  const json& r1 = c["rank_steps"][1];
  EXPECT_EQ(r1["rank"], 1);
  EXPECT_EQ(r1["computing_ns"], 135548000);
  EXPECT_EQ(r1["comm_not_overlapped_ns"], 134336000);
  EXPECT_EQ(r1["free_ns"], 335901000);
}

}  // namespace

namespace {

bool any_cluster_finding(const json& list) {
  for (const auto& run : list["runs"])
    for (const auto& f : run["findings"])
      if (f["rule"].get<std::string>().rfind("cluster.", 0) == 0) return true;
  return false;
}

// Three unrelated models side by side, no rank ids: a list of three runs, never a cluster
// (main used to report "a slow rank makes the others wait ~35.8 ms/step").
TEST(ClusterRealData, UnrelatedKinetoTracesAreRunsNotRanks) {
  json r = analyze("mi300", "/kineto/tracelens/");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  EXPECT_EQ(r["schema"], "npu-advisor.run-list");
  ASSERT_EQ(r["runs"].size(), 3u);
  EXPECT_NE(r["runs"][1]["input"]["path"].get<std::string>().find("Qwen_Qwen1.5-0.5B-Chat"), std::string::npos);
  EXPECT_FALSE(any_cluster_finding(r));
}

// Two successive captures of worker0 by tensorboard_trace_handler: two runs of one worker,
// each with its own #1 finding, the dataloader (69.299 and 45.462 ms per step).
TEST(ClusterRealData, TwoCapturesOfOneWorkerShowTheDataloader) {
  json r = analyze("resnet50_num_workers_0", "/kineto/tb_plugin_samples/");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  EXPECT_EQ(r["schema"], "npu-advisor.run-list");
  EXPECT_NE(r["why"].get<std::string>().find("2 captures of one worker (worker0)"), std::string::npos);
  ASSERT_EQ(r["runs"].size(), 2u);
  EXPECT_FALSE(any_cluster_finding(r));
  EXPECT_TRUE(fired(r["runs"][0], "schedule.dataloader", "69.299 ms per step"));
  EXPECT_TRUE(fired(r["runs"][1], "schedule.dataloader", "45.462 ms per step"));
  EXPECT_EQ(r["runs"][0]["findings"][0]["rule"], "schedule.dataloader");
}

}  // namespace

namespace {

const json* finding_of(const json& r, const std::string& rule) {
  for (const auto& f : r["findings"])
    if (f["rule"] == rule) return &f;
  return nullptr;
}

// The 2-rank DDP job (exposed communication, 19 online compiles per rank): the cluster
// report carries each rank's own causes, merged, with the savings each rank's own analysis gives.
TEST(ClusterRealData, TwoRankTextClusterCarriesThePerRankCauses) {
  json r = analyze("msinsight_pytorch_2rank/text");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  json r0 = analyze("msinsight_pytorch_2rank/text/rank0_ascend_pt"),
       r1 = analyze("msinsight_pytorch_2rank/text/rank1_ascend_pt");
  const json& merged = r["facts"]["cluster"]["rank_findings"];
  for (const char* rule : {"dispatch.op_compile", "communication.long_collective", "schedule.dataloader"}) {
    const json* a = finding_of(r0, rule);
    const json* b = finding_of(r1, rule);
    ASSERT_TRUE(a && b) << rule;
    int64_t s0 = (*a)["saving_ns"], s1 = (*b)["saving_ns"];
    const json* m = nullptr;
    for (const auto& x : merged)
      if (x["rule"] == rule) m = &x;
    ASSERT_NE(m, nullptr) << rule;
    EXPECT_EQ((*m)["ranks"], json::array({0, 1}));
    EXPECT_EQ((*m)["saving_min_ns"], std::min(s0, s1));
    EXPECT_EQ((*m)["saving_max_ns"], std::max(s0, s1));
    EXPECT_EQ((*m)["saving_median_ns"], (s0 + s1 + 1) / 2);  // median of two, rounded
  }
  EXPECT_TRUE(fired(r, "cluster.rank_causes", "on rank 1: 19 AscendCL@aclopCompileAndExecute"));
  bool titled = false;
  for (const auto& f : r["findings"]) titled |= f["title"].get<std::string>().rfind("On 2 of 2 ranks: ", 0) == 0;
  EXPECT_TRUE(titled);
}

}  // namespace

namespace {

// The same job's SQLite export: analysis.db's CommAnalyzer* tables are its communication.json.
// Sums of wait / transit over both ranks' CommAnalyzerTime rows (Python sqlite3 + Decimal:
// rank 0 3689573 / 3985660 ns, rank 1 3841537 / 4021761 ns).
TEST(ClusterRealData, TwoRankDbClusterReadsTheCommAnalyzerTables) {
  json r = analyze("msinsight_pytorch_2rank/db");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  const json& c = r["facts"]["cluster"];
  ASSERT_TRUE(c.contains("communication"));
  EXPECT_NE(c["communication"]["source"].get<std::string>().find("CommAnalyzer"), std::string::npos);
  EXPECT_EQ(c["communication"]["op_records"], 8);
  const json* g = group(c, "17148521525495523210");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ((*g)["wait_ns"], 3689573 + 3841537);
  EXPECT_EQ((*g)["transit_ns"], 3985660 + 4021761);
  ASSERT_TRUE(c.contains("links"));
  EXPECT_NE(c["links"]["source"].get<std::string>().find("CommAnalyzerMatrix"), std::string::npos);
  EXPECT_NE(transport(c, "HCCS"), nullptr);
  // And the per-rank causes, as for the text export.
  EXPECT_TRUE(fired(r, "cluster.rank_causes", "19 AscendCL@aclopCompileAndExecute"));
}

}  // namespace

namespace {

// Two devices of one MindSpore job, iterations 1-10: iteration 1 is the warm-up. Pooled over
// rank x step rows, main read "116.9% of a step" of imbalance (a warm-up iteration against
// steady ones); step by step the two devices are within 5 %.
TEST(ClusterRealData, MsprofTwoDevicesAreComparedStepByStep) {
  json r = analyze("mindinsight_2device", "/msprof_PROF/");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  const json& c = r["facts"]["cluster"];
  EXPECT_EQ(c["rank_count"], 2);
  EXPECT_EQ(c["alignment"]["warmup_step"], 1);
  EXPECT_EQ(c["alignment"]["steps_compared"], 9);
  EXPECT_EQ(c["alignment"]["partial_steps"], 0);
  for (const char* m : {"computing_ns", "comm_not_overlapped_ns", "free_ns"})
    EXPECT_LT(c["spread"][m]["ratio"].get<double>(), 0.05) << m;
  EXPECT_EQ(finding_in(r, "cluster.imbalance"), nullptr);
  EXPECT_EQ(finding_in(r, "cluster.slow_rank"), nullptr);
  // A MindSpore job gets MindSpore's knobs: nothing of torch_npu or PyTorch DDP in any finding
  // (the per-rank causes merged into the cluster's included).
  const std::string text = r["findings"].dump();
  for (const char* word : {"TASK_QUEUE_ENABLE", "torch", "DDP", ".item()", "ZeRO", "bucket_cap_mb"})
    EXPECT_EQ(text.find(word), std::string::npos) << word;
}

}  // namespace

// Every renderer on the 16-rank PP job: the terminal summary read a stage list through a pointer
// into a temporary (an internal error on this input), so the text formats are run too.
TEST(ClusterRealData, SixteenRankPipelineRendersInEveryFormat) {
  const std::string in = npu::test::real("ascend_torch_npu/msinsight_cluster_8rank");
  if (!std::filesystem::exists(in)) GTEST_SKIP() << "realdata not available";
  for (const char* format : {"text", "md", "html"}) {
    npu::test::TempDir dir;
    const std::string out = (dir.path() / "r").string();
    const std::string cmd = std::string("'") + NPU_ADVISOR_BIN + "' analyze '" + in + "' -q --format " + format +
                            " -o '" + out + "' 2>/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream f(out);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("ranks 8-15"), std::string::npos) << format;
    // The cluster's step split opens every format, as one rank's does.
    EXPECT_NE(text.find("Where the time of a step goes (the mean over 16 ranks"), std::string::npos) << format;
    EXPECT_NE(text.find("pipeline bubble 90.791 ms"), std::string::npos) << format;
  }
}

namespace {

// The 16-rank pipeline job known only from cluster_analysis_output: the cluster's step split
// comes from cluster_step_trace_time.csv's rank rows (Python csv: the mean over the 16 rows of
// Computing 77.699800 ms, Communication(Not Overlapped) - Bubble 92.546159 ms, Bubble
// 90.791263 ms, Free 76.700403 ms), and the bubble finding's saving is drawn from the bubble.
TEST(ClusterRealData, SixteenRankSplitComesFromTheProfilersRows) {
  json r = analyze("msinsight_cluster_8rank");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  const json& s = r["facts"]["cluster"]["step_split"];
  EXPECT_EQ(s["source"], "cluster_step_trace_time.csv");
  EXPECT_NEAR(s["computing_ns"].get<double>(), 77699800, 1000);
  EXPECT_NEAR(s["communication_ns"].get<double>(), 92546159, 1000);
  EXPECT_NEAR(s["bubble_ns"].get<double>(), 90791263, 1000);
  EXPECT_NEAR(s["idle_ns"].get<double>(), 76700403, 1000);
  EXPECT_TRUE(s["causes"].empty());
  const json* bubble = finding_in(r, "cluster.pipeline_bubble");
  ASSERT_NE(bubble, nullptr);
  EXPECT_LE((*bubble)["saving_ns"].get<int64_t>(),
            s["bubble_ns"].get<int64_t>() + s["communication_ns"].get<int64_t>());
  EXPECT_LE(r["attribution"]["explained_ns"].get<int64_t>(), r["attribution"]["step_ns"].get<int64_t>());
}

}  // namespace

namespace {

// Two rank folders without a trace (msinsight_2rank: the breakdown is each rank's
// step_trace_time.csv): the cluster's split is the mean of the two ranks' breakdowns (Python csv,
// one step each: Computing 75.298397 ms, Communication(Not Overlapped) 148.958780 ms, Free
// 68.885152 ms; no Preparing column), with no idle causes.
TEST(ClusterRealData, RanksWithoutATimelineSplitTheirBreakdown) {
  json r = analyze("msinsight_2rank");
  if (r.is_null()) GTEST_SKIP() << "realdata not available";
  const json& s = r["facts"]["cluster"]["step_split"];
  EXPECT_NE(s["source"].get<std::string>().find("facts.overall"), std::string::npos) << s["source"];
  EXPECT_NEAR(s["computing_ns"].get<double>(), 75298397, 1000);
  EXPECT_NEAR(s["communication_ns"].get<double>() + s["bubble_ns"].get<double>(), 148958780, 1000);
  EXPECT_NEAR(s["idle_ns"].get<double>(), 68885152, 1000);
  EXPECT_TRUE(s["causes"].empty());
  EXPECT_EQ(r["attribution"]["step_ns"], s["per_step_ns"]);
}

}  // namespace
