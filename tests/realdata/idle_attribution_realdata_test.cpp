// facts.idle_attribution on real 2-rank torch_npu text exports, against the profiler's own
// step_trace_time.csv (one step each): the split's idle time is the profiler's Free + Preparing,
// its computing and communication the profiler's, and the causes add up to the idle time.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

// The profiler's single row: column name -> value (µs).
std::map<std::string, double> step_trace_row(const std::string& csv) {
  std::ifstream in(csv);
  std::string header, row, cell;
  std::getline(in, header);
  std::getline(in, row);
  for (std::string* line : {&header, &row})
    if (!line->empty() && line->back() == '\r') line->pop_back();
  std::vector<std::string> names;
  std::stringstream h(header), r(row);
  while (std::getline(h, cell, ',')) names.push_back(cell);
  std::map<std::string, double> out;
  for (size_t i = 0; std::getline(r, cell, ',') && i < names.size(); ++i) out[names[i]] = std::stod(cell);
  return out;
}

}  // namespace

TEST(IdleAttributionRealdata, TwoRankTextExportSplitsTheProfilersStep) {
  for (const char* rank : {"rank0_ascend_pt", "rank1_ascend_pt"}) {
    const std::string rel = std::string("ascend_torch_npu/msinsight_pytorch_2rank/text/") + rank;
    REQUIRE_REALDATA(rel);
    const std::string dir = npu::test::real(rel);
    auto csv = step_trace_row(dir + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
    ASSERT_EQ(csv.size(), 10u) << rank;
    const nlohmann::json f = npu::test::analyze_json(dir)["facts"];
    const nlohmann::json& a = f["idle_attribution"];
    const double us = 1000;
    EXPECT_NEAR(a["idle_ns"].get<double>(), (csv["Free"] + csv["Preparing"]) * us, 1000) << rank;
    EXPECT_NEAR(a["computing_ns"].get<double>(), csv["Computing"] * us, 1000) << rank;
    EXPECT_NEAR(a["communication_ns"].get<double>() + a["bubble_ns"].get<double>(),
                csv["Communication(Not Overlapped)"] * us, 1000)
        << rank;
    int64_t sum = 0;
    for (const auto& [name, c] : a["causes"].items()) sum += c["ns"].get<int64_t>();
    EXPECT_EQ(sum, a["idle_ns"].get<int64_t>()) << rank;
    EXPECT_EQ(a["step_ns"].get<int64_t>(), a["computing_ns"].get<int64_t>() + a["communication_ns"].get<int64_t>() +
                                               a["bubble_ns"].get<int64_t>() + a["idle_ns"].get<int64_t>())
        << rank;
  }
}

// Every step semantics (docs/overlap.md): the split's idle time is the breakdown's Free (plus
// Preparing where the profiler writes it), never the time between msprof iterations (the PROF_
// run's profiler says 0.6 % Free; this split once said 47 % before it took the breakdown's own
// intervals).
TEST(IdleAttributionRealdata, IdleIsTheBreakdownsFreeUnderEveryStepSemantics) {
  for (const char* rel : {"msprof_PROF/mindinsight_2device/PROF_000001_20230818142704322_COJGGGCANRMICFBC",
                          "ascend_db/msinsight_full_db/msprof_0.db", "ascend_torch_npu/mstt_timeline_advice",
                          "ascend_torch_npu/msinsight_pytorch_2rank/db/rank0_ascend_pt"}) {
    REQUIRE_REALDATA(rel);
    const nlohmann::json f = npu::test::analyze_json(npu::test::real(rel))["facts"];
    const nlohmann::json& o = f["overall"];
    const int64_t preparing = o["preparing_ns"].is_number() ? o["preparing_ns"].get<int64_t>() : 0;
    ASSERT_TRUE(o["steps"] == 1 || preparing == 0) << rel << ": Preparing may overlap an earlier step's Free";
    EXPECT_EQ(f["idle_attribution"]["idle_ns"].get<int64_t>(), o["free_ns"].get<int64_t>() + preparing) << rel;
    EXPECT_EQ(f["idle_attribution"]["computing_ns"], o["computing_ns"]) << rel;
  }
}

// The cluster of the same two ranks: its split is the mean of the two ranks' (one step each), so
// against the two CSVs: idle = mean(Free + Preparing), computing = mean(Computing), communication
// = mean(Communication(Not Overlapped)); the parts add up to the step the findings' savings are
// shares of, and the savings never exceed it.
TEST(IdleAttributionRealdata, TwoRankClusterSplitIsTheMeanOfTheRanks) {
  const std::string rel = "ascend_torch_npu/msinsight_pytorch_2rank/text";
  REQUIRE_REALDATA(rel);
  const std::string dir = npu::test::real(rel);
  double idle = 0, computing = 0, comm = 0;
  for (const char* rank : {"rank0_ascend_pt", "rank1_ascend_pt"}) {
    auto csv = step_trace_row(dir + "/" + rank + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
    idle += (csv["Free"] + csv["Preparing"]) * 1000 / 2;
    computing += csv["Computing"] * 1000 / 2;
    comm += csv["Communication(Not Overlapped)"] * 1000 / 2;
  }
  const nlohmann::json r = npu::test::analyze_json(dir);
  const nlohmann::json& s = r["facts"]["cluster"]["step_split"];
  EXPECT_NEAR(s["idle_ns"].get<double>(), idle, 1000);  // 45.377537 ms
  EXPECT_NEAR(s["computing_ns"].get<double>(), computing, 1000);
  EXPECT_NEAR(s["communication_ns"].get<double>() + s["bubble_ns"].get<double>(), comm, 1000);
  EXPECT_EQ(s["per_step_ns"].get<int64_t>(), s["computing_ns"].get<int64_t>() + s["communication_ns"].get<int64_t>() +
                                                 s["bubble_ns"].get<int64_t>() + s["idle_ns"].get<int64_t>());
  EXPECT_EQ(s["over"], "the mean over 2 ranks of each rank's mean step");
  const nlohmann::json& a = r["attribution"];
  ASSERT_TRUE(a["available"].get<bool>());
  EXPECT_EQ(a["step_ns"], s["per_step_ns"]);
  EXPECT_LE(a["explained_ns"].get<int64_t>(), a["step_ns"].get<int64_t>());
  // The merged online-compile cause draws on the compile idle time, as on each rank.
  bool compile = false;
  for (const auto& f : r["findings"])
    if (f["rule"] == "cluster.rank_causes" && f["data"]["rule"] == "dispatch.op_compile") {
      compile = true;
      EXPECT_EQ(f["pool"], "idle.compile");
    }
  EXPECT_TRUE(compile);
}
