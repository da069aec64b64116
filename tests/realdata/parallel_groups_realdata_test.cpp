// The framework's names of the communication groups on the one real input that carries them,
// ascend_torch_npu/msinsight_misc (rank 0 of an 8-rank job, TP 2 x PP 2 x DP 2): its
// profiler_metadata.json (parallel_group_info, 21 groups of rank 0) and the job's
// communication_group.json (comm_group_parallel_info, 21 named groups + the p2p row). The
// expected values were read by hand from the two files.
#include <gtest/gtest.h>

#include "base/json_file.h"
#include "loaders/parallel_groups.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "test_support.h"

namespace {

constexpr const char* kDir = "ascend_torch_npu/msinsight_misc";

const npu::ParallelGroup* find(const std::vector<npu::ParallelGroup>& groups, const std::string& hccl_name) {
  for (const auto& g : groups)
    if (g.hccl_name == hccl_name) return &g;
  return nullptr;
}

TEST(ParallelGroupsRealdata, CommunicationGroupJsonNamesEveryCollectiveGroup) {
  REQUIRE_REALDATA(kDir);
  auto groups =
      npu::parse_comm_group_parallel_info(npu::read_json_file(npu::test::real(kDir) + "/communication_group.json"));
  EXPECT_EQ(groups.size(), 21u);  // 22 rows, the p2p one names nothing
  const auto* world = find(groups, "212011646445595226");
  ASSERT_NE(world, nullptr);
  EXPECT_EQ(world->name, "default_group");
  EXPECT_EQ(world->ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(world->id, "10.174.216.241%enp189s0f1_55000_0_1738895486152654");
  const auto* tp = find(groups, "6960437680420871035");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->name, "tp");
  EXPECT_EQ(tp->ranks, (std::vector<int>{0, 1}));
  const auto* pp = find(groups, "9609979115979062393");
  ASSERT_NE(pp, nullptr);
  EXPECT_EQ(pp->name, "pp");
  EXPECT_EQ(pp->ranks, (std::vector<int>{0, 4}));
  // Each row's group_name is the hash of its group_id: the join the loader relies on.
  for (const auto& g : groups) EXPECT_EQ(npu::hccl_group_name(g.id), g.hccl_name) << g.id;
}

TEST(ParallelGroupsRealdata, ProfilerMetadataGivesTheSameNamesByHash) {
  REQUIRE_REALDATA(kDir);
  npu::RunModel m;
  npu::load_profiler_metadata(npu::test::real(kDir) + "/profiler_metadata.json", m);
  const auto& groups = m.meta.parallel_groups;
  EXPECT_EQ(groups.size(), 21u);  // rank 0's groups
  const auto* world = find(groups, "212011646445595226");
  ASSERT_NE(world, nullptr);
  EXPECT_EQ(world->name, "default_group");
  EXPECT_EQ(world->ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  const auto* tp = find(groups, "6960437680420871035");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->name, "tp");
  EXPECT_EQ(tp->ranks, (std::vector<int>{0, 1}));
  // Every group of rank 0 that communication_group.json names gets the same name and ranks
  // from the metadata: the hash computed here matches msprof-analyze's.
  auto reference =
      npu::parse_comm_group_parallel_info(npu::read_json_file(npu::test::real(kDir) + "/communication_group.json"));
  int matched = 0;
  for (const auto& r : reference)
    if (const auto* g = find(groups, r.hccl_name)) {
      ++matched;
      EXPECT_EQ(g->name, r.name) << r.hccl_name;
      EXPECT_EQ(g->ranks, r.ranks) << r.hccl_name;
    }
  // Rank 0's rows of communication_group.json: tp, default_group, pp, dp_cp, embd, mp.
  EXPECT_EQ(matched, 6);
}

}  // namespace
