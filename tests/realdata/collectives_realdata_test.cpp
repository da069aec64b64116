// Why collectives take their time, on real runs: facts.collectives against the profiler's own
// per-operator split (communication.json "Communication Time Info"; analysis.db
// CommAnalyzerTime for the SQLite export; values read from those files by hand), and the
// finding that names the longest collective and its cause among the top three
// (docs/facts-collectives.md).
#include <filesystem>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "reports/report_document.h"
#include "rules/rule_engine.h"
#include "test_support.h"

namespace {

using npu::test::real;

nlohmann::json top_findings(const npu::Facts& f, size_t n) {
  npu::RuleEngine engine;
  engine.add_builtin_rules();
  nlohmann::json report = npu::build_report(nlohmann::json::object(), f, engine.run(f, {}));
  nlohmann::json out = nlohmann::json::array();
  for (const auto& x : report["findings"]) {
    if (out.size() == n) break;
    out.push_back(x);
  }
  return out;
}

void expect_top3_names(const npu::Facts& f, const std::string& op, const std::string& cause_words) {
  bool found = false;
  for (const auto& x : top_findings(f, 3)) {
    if (x["rule"] != "communication.long_collective") {
      EXPECT_NE(x["rule"], "communication.dominates") << "traffic advice for a collective that is not moving data";
      continue;
    }
    found = true;
    EXPECT_NE(x["title"].get<std::string>().find(op), std::string::npos) << x["title"];
    EXPECT_NE(x["title"].get<std::string>().find(cause_words), std::string::npos) << x["title"];
    EXPECT_EQ(x["observed"].get<std::string>().find("bf16"), std::string::npos);
  }
  EXPECT_TRUE(found) << "no long_collective finding in the top three";
}

// Level1 text export, rank 0: hcom_allReduce__586_0_1 lasts 79.090 ms, 73.204 ms of it idle,
// transit 0.239 ms (communication.json); one HCCL plane sits in a 78.8 ms Notify Wait while the
// host blocks in aclrtSynchronizeStreamWithTimeout from aten::item (_local_scalar_dense).
TEST(CollectivesRealData, TextExportLongestCollectiveIsIdle) {
  const std::string rel = "ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt";
  if (!std::filesystem::exists(real(rel))) GTEST_SKIP();
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
  const auto& c = f.doc["collectives"];
  EXPECT_EQ(c["count"], 4);
  const auto& op = c["ops"][0];
  EXPECT_EQ(op["name"], "hcom_allReduce__586_0_1");
  EXPECT_EQ(op["step"], 50);
  EXPECT_EQ(op["elapse_ns"], 79089520);  // trace dur 79089.52021875 us
  EXPECT_EQ(op["idle_ns"], 73203703);    // Idle Time(ms) 73.20370259375
  EXPECT_EQ(op["transit_ns"], 239185);   // Transit Time(ms) 0.23918478124999998
  EXPECT_EQ(op["cause"], "idle");
  EXPECT_EQ(op["notify_wait"]["plane"], "Plane 5");
  EXPECT_GT(op["notify_wait"]["dur_ns"].get<int64_t>(), 78000000);
  EXPECT_EQ(op["host_blocked"]["name"], "AscendCL@aclrtSynchronizeStreamWithTimeout");
  EXPECT_EQ(op["host_blocked"]["caller"], "aten::_local_scalar_dense");
  EXPECT_LE(op["exposed_ns"].get<int64_t>(), op["elapse_ns"].get<int64_t>());
  EXPECT_EQ(c["total"]["cause"], "idle");
  expect_top3_names(f, "hcom_allReduce__586_0_1", "idle");
  // Byte alignment: msprof-analyze reports 2 operators not aligned on this rank. Their SDMA
  // transfers of 1937312 B and 1162496 B (HCCS) are not multiples of 512 B.
  EXPECT_EQ(c["alignment"]["ops_checked"], 4);
  EXPECT_EQ(c["alignment"]["ops_unaligned"], 2);
  EXPECT_EQ(op["alignment"]["unaligned_tasks"], 2);
  EXPECT_EQ(op["alignment"]["checked_tasks"], 14);
  EXPECT_EQ(op["alignment"]["example_size_bytes"], 1937312);
}

// The SQLite export of the same job: the split comes from analysis.db CommAnalyzerTime
// (hcom_allReduce__210_0_1: elapse 88.75099321875 ms, idle 84.95353734375 ms).
TEST(CollectivesRealData, DbExportReadsCommAnalyzerTime) {
  const std::string rel = "ascend_torch_npu/msinsight_pytorch_2rank/db/rank0_ascend_pt";
  if (!std::filesystem::exists(real(rel))) GTEST_SKIP();
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
  const auto& op = f.doc["collectives"]["ops"][0];
  EXPECT_EQ(op["name"], "hcom_allReduce__210_0_1");
  EXPECT_EQ(op["idle_ns"], 84953537);
  EXPECT_EQ(op["cause"], "idle");
  EXPECT_EQ(f.doc["communication"]["ops"][0]["evidence"][0]["table"], "CommAnalyzerTime");
  expect_top3_names(f, "hcom_allReduce__210_0_1", "idle");
}

// CSVs and communication.json only: hcom_allReduce__459_0 takes 102.7 ms, 96.9 ms of it waiting.
TEST(CollectivesRealData, CommunicationJsonOnlyLongestCollectiveWaits) {
  const std::string rel = "ascend_torch_npu/msinsight_2rank/test_rank_0";
  if (!std::filesystem::exists(real(rel))) GTEST_SKIP();
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(rel)));
  const auto& op = f.doc["collectives"]["ops"][0];
  EXPECT_EQ(op["name"], "hcom_allReduce__459_0");
  EXPECT_EQ(op["elapse_ns"], 102721612);
  EXPECT_EQ(op["wait_ns"], 96880451);
  EXPECT_EQ(op["cause"], "wait");
  EXPECT_TRUE(op["exposed_ns"].is_null());
  expect_top3_names(f, "hcom_allReduce__459_0", "waiting for a peer");
}

}  // namespace
