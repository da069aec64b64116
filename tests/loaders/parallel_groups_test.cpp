// The framework's names of the communication groups (tp, dp, ...): read from
// profiler_metadata.json, META_DATA and communication_group.json (testdata/parallel_groups,
// README there), joined to the communication records by the HCCL hash of the group id, carried
// into the cluster facts and shown by the reports and rules as "tp (ranks 0,1)".
#include "loaders/parallel_groups.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "base/json_file.h"
#include "facts/cluster/cluster_facts.h"
#include "loaders/db/db_export.h"
#include "loaders/db/format.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "reports/report_document.h"
#include "test_support.h"

namespace {

using nlohmann::json;
using npu::test::TempDir;

std::string fixture(const char* name) { return npu::test::source_dir() + "/testdata/parallel_groups/" + name; }

// What testdata/parallel_groups/README.md lists: the hash of each fixture group id.
constexpr const char* kDefaultGroup = "12398864890700037239";  // ..._1700000000000001
constexpr const char* kTp = "12398864894995004536";            // ..._1700000000000002
constexpr const char* kDp = "12398864899289971833";            // ..._1700000000000003

TEST(ParallelGroups, HcclGroupNameIsTheHashOfTheGroupId) {
  // A pair from a real communication_group.json (group_id -> group_name, msinsight_misc).
  EXPECT_EQ(npu::hccl_group_name("10.174.216.241%enp189s0f1_55000_0_1738895506630464"), "6960437680420871035");
  EXPECT_EQ(npu::hccl_group_name("127.0.0.1%lo_60000_0_1700000000000002"), kTp);
  EXPECT_EQ(npu::hccl_group_name(""), "0");
}

TEST(ParallelGroups, ProfilerMetadataNamesTheRanksGroups) {
  npu::RunModel m;
  npu::load_profiler_metadata(fixture("profiler_metadata.json"), m);
  EXPECT_EQ(m.meta.distributed["world_size"], "4");
  const auto& g = m.meta.parallel_groups;
  ASSERT_EQ(g.size(), 3u);  // the group without a name is skipped
  // Sorted by the hash.
  EXPECT_EQ(g[0].hccl_name, kDefaultGroup);
  EXPECT_EQ(g[0].name, "default_group");
  EXPECT_EQ(g[0].ranks, (std::vector<int>{0, 1, 2, 3}));  // written unsorted
  EXPECT_EQ(g[0].id, "127.0.0.1%lo_60000_0_1700000000000001");
  EXPECT_EQ(g[1].hccl_name, kTp);
  EXPECT_EQ(g[1].name, "tp");
  EXPECT_EQ(g[1].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(g[2].hccl_name, kDp);
  EXPECT_EQ(g[2].ranks, (std::vector<int>{0, 2}));  // -1 and "x" are no rank ids
  // The facts' run section carries them.
  json run = npu::run_metadata_json(m);
  ASSERT_EQ(run["parallel_groups"].size(), 3u);
  EXPECT_EQ(run["parallel_groups"][1],
            json({{"group", kTp}, {"name", "tp"}, {"ranks", {0, 1}}, {"id", "127.0.0.1%lo_60000_0_1700000000000002"}}));
}

TEST(ParallelGroups, CommunicationGroupJsonNamesTheGroups) {
  auto g = npu::parse_comm_group_parallel_info(npu::read_json_file(fixture("communication_group.json")));
  ASSERT_EQ(g.size(), 2u);                   // the p2p row names nothing
  EXPECT_EQ(g[0].hccl_name, kDefaultGroup);  // computed from group_id: group_name is empty
  EXPECT_EQ(g[0].name, "default_group");
  EXPECT_EQ(g[0].ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(g[1].hccl_name, kTp);
  EXPECT_EQ(g[1].name, "tp");
}

TEST(ParallelGroups, MetaDataTableOfADbExportNamesTheGroups) {
  TempDir dir;
  std::string p = (dir.path() / "ascend_pytorch_profiler_0.db").string();
  npu::test::make_db(p, R"sql(
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalPid INTEGER,
  taskType TEXT, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER,
  globalTaskId INTEGER PRIMARY KEY);
INSERT INTO TASK VALUES (100, 300, 0, 1, 0, 'AI_CORE', 0, 5, 1, 0, 0);
CREATE TABLE META_DATA (name TEXT, value TEXT);
INSERT INTO META_DATA VALUES ('parallel_group_info',
  '{"127.0.0.1%lo_60000_0_1700000000000002": {"group_name": "tp", "group_rank": 1, "global_ranks": [0, 1]}}');
)sql");
  npu::RunModel m;
  npu::load_profiler_db(p, m, npu::db_producer(p));
  ASSERT_EQ(m.meta.parallel_groups.size(), 1u);
  EXPECT_EQ(m.meta.parallel_groups[0].hccl_name, kTp);
  EXPECT_EQ(m.meta.parallel_groups[0].name, "tp");
  EXPECT_FALSE(m.meta.config.count("parallel_group_info"));  // a name map, not a capture option
}

// One collective of group `group` on `rank`, as a rank's communication facts hold it.
json op(int rank, const std::string& group, int64_t elapse_ns) {
  return {{"step", 1},
          {"kind", "collective"},
          {"name", "hcom_allReduce__1"},
          {"group", group},
          {"rank", rank},
          {"elapse_ns", elapse_ns},
          {"transit_ns", 1000},
          {"wait_ns", elapse_ns - 1000},
          {"sync_ns", 0},
          {"idle_ns", 0}};
}

TEST(ParallelGroups, ClusterFactsPutTheNameBesideEachGroupId) {
  // Two ranks; rank 0 names tp (its profiler_metadata.json), nobody names the other group, and
  // the reference's communication_group.json names default_group.
  std::vector<npu::cluster::RankFacts> ranks;
  for (int r = 0; r < 2; ++r) {
    json facts = {
        {"run", {{"rank", r}}},
        {"communication", {{"ops", {op(r, kTp, 5000 + r), op(r, "999", 7000 + r), op(r, kDefaultGroup, 9000)}}}}};
    if (r == 0) facts["run"]["parallel_groups"] = {{{"group", kTp}, {"name", "tp"}, {"ranks", {0, 1}}, {"id", "x"}}};
    ranks.push_back(npu::cluster::rank_facts_from(r, "/job/rank" + std::to_string(r), facts));
  }
  npu::ClusterReference ref;
  ref.parallel_groups = {{kDefaultGroup, "", "default_group", {0, 1, 2, 3}}};
  json c = npu::cluster::build_cluster_facts(ranks, ref, {}, "/job").doc["cluster"];

  ASSERT_EQ(c["parallel_groups"].size(), 2u);  // sorted by name
  EXPECT_EQ(c["parallel_groups"][0]["name"], "default_group");
  EXPECT_EQ(c["parallel_groups"][0]["source"], "communication_group.json");
  EXPECT_EQ(c["parallel_groups"][1]["name"], "tp");
  EXPECT_EQ(c["parallel_groups"][1]["source"], "parallel_group_info of rank 0");
  std::map<std::string, json> groups;
  for (const auto& g : c["communication"]["groups"]) groups[g["group"]] = g;
  EXPECT_EQ(groups[kTp]["name"], "tp");
  EXPECT_EQ(groups[kDefaultGroup]["name"], "default_group");
  EXPECT_FALSE(groups["999"].contains("name"));  // unknown: the id alone
  for (const auto& o : c["communication"]["top_ops"])
    EXPECT_EQ(o.value("group_name", ""), o["group"] == kTp ? "tp" : o["group"] == "999" ? "" : "default_group");

  // Reports: the name and ranks where known, the id where not.
  EXPECT_EQ(npu::group_label(c, kTp), "tp (ranks 0,1)");
  EXPECT_EQ(npu::group_label(c, kDefaultGroup), "default_group (ranks 0-3)");
  EXPECT_EQ(npu::group_label(c, "999"), "999");
  std::string md = npu::render_cluster_markdown(c);
  EXPECT_NE(md.find("| tp (ranks 0,1) | [0,1] |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 999 | [0,1] |"), std::string::npos) << md;
}

TEST(ParallelGroups, ARunNamesTheGroupsOfItsCollectives) {
  // The sample's profiler_metadata.json names its world group by the id its trace thread uses
  // ("Group hccl_world_group Communication"), not by a hash: matched by the id.
  json r = npu::test::analyze_json(npu::test::sample_run());
  const json& run = r["facts"]["run"];
  ASSERT_EQ(run["parallel_groups"].size(), 1u);
  EXPECT_EQ(run["parallel_groups"][0]["name"], "default_group");
  EXPECT_EQ(run["parallel_groups"][0]["id"], "hccl_world_group");
  ASSERT_FALSE(r["facts"]["collectives"]["ops"].empty());
  for (const auto& o : r["facts"]["collectives"]["ops"]) {
    EXPECT_EQ(o["group"], "Group hccl_world_group Communication");
    EXPECT_EQ(o["group_name"], "default_group");
  }
}

TEST(ParallelGroups, RankRanges) {
  EXPECT_EQ(npu::rank_ranges(json({0, 1, 2, 3, 8})), "0-3,8");
  EXPECT_EQ(npu::rank_ranges(json({0, 1})), "0,1");
  EXPECT_EQ(npu::rank_ranges(json({0, 2, 4, 5, 6})), "0,2,4-6");
  EXPECT_EQ(npu::rank_ranges(json::array()), "");
}

TEST(ParallelGroups, ANamedClusterSaysTheNameInItsFindings) {
  // tools/gen_cluster.py --group-name writes each rank's profiler_metadata.json and names the
  // group in communication.json by the hash of its id, as torch_npu does.
  TempDir dir;
  std::string c = (dir.path() / "job").string();
  std::string cmd = "/usr/bin/python3 '" + npu::test::source_dir() + "/tools/gen_cluster.py' '" + c +
                    "' --ranks 4 --steps 3 --slow-rank 2 --group-name dp >/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  json report = npu::test::analyze_json(c);
  const json& cl = report["facts"]["cluster"];
  ASSERT_EQ(cl["parallel_groups"].size(), 1u);
  EXPECT_EQ(cl["parallel_groups"][0]["name"], "dp");
  EXPECT_EQ(cl["parallel_groups"][0]["ranks"], json({0, 1, 2, 3}));
  EXPECT_EQ(cl["communication"]["groups"][0]["name"], "dp");
  std::string slow, wait;
  for (const auto& f : report["findings"]) {
    if (f["rule"] == "cluster.slow_rank") slow = f["observed"];
    if (f["rule"] == "cluster.wait_dominated") wait = f["observed"];
  }
  EXPECT_NE(slow.find("groups that wait for it: dp (ranks 0-3) with wait ratio"), std::string::npos) << slow;
  EXPECT_EQ(wait.rfind("Group dp (ranks 0-3), 18 operators: wait", 0), 0u) << wait;
  // The terminal lists the groups by name under the cluster's header.
  const std::string out = (dir.path() / "r.txt").string();
  ASSERT_EQ(std::system((std::string(NPU_ADVISOR_BIN) + " analyze '" + c + "' -q -o '" + out + "'").c_str()), 0);
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\n  groups: dp (ranks 0-3)\n"), std::string::npos) << text;
}

}  // namespace
