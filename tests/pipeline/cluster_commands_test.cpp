// What a cluster report tells the user to run names real folders, never a placeholder
// (RANK_DIR, BALANCED_RANK_DIR, ...): the findings' commands, the reasons single-rank rules do not
// run on a cluster, and the sections left to each rank.
#include <cstdlib>
#include <regex>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

using nlohmann::json;

TEST(ClusterCommands, NameRealRankFoldersNotPlaceholders) {
  npu::test::TempDir dir;
  std::string c = (dir.path() / "job").string();
  std::string gen = "/usr/bin/python3 '" + npu::test::source_dir() + "/tools/gen_cluster.py' '" + c +
                    "' --ranks 4 --steps 3 --slow-rank 2 >/dev/null";
  ASSERT_EQ(std::system(gen.c_str()), 0);
  json r = npu::test::analyze_json(c);
  const json& ranks = r["facts"]["cluster"]["ranks"];
  ASSERT_EQ(ranks.size(), 4u);
  const std::string rank0 = ranks[0]["path"];
  ASSERT_EQ(rank0.rfind(c + "/", 0), 0u);

  const std::regex placeholder("[A-Z][A-Z_]*_(DIR|PATH|FOLDER)\\b|\\bOLDER NEWER\\b");
  size_t commands = 0;
  for (const auto& f : r["findings"])
    for (const auto& cmd : f["commands"]) {
      ++commands;
      EXPECT_FALSE(std::regex_search(cmd.get<std::string>(), placeholder)) << cmd;
    }
  EXPECT_GT(commands, 0u);
  size_t single_rank = 0;
  for (const auto& o : r["rules"])
    if (o["reason"].get<std::string>().rfind("single-rank check", 0) == 0) {
      ++single_rank;
      EXPECT_EQ(o["reason"], "single-rank check: run `npu-advisor analyze " + rank0 + "` on a rank");
    }
  EXPECT_GT(single_rank, 0u);
  std::string steps_why;
  for (const auto& u : r["facts"]["unavailable"])
    if (u["fact"] == "steps") steps_why = u["why"];
  EXPECT_NE(steps_why.find("npu-advisor analyze " + rank0), std::string::npos) << steps_why;
}

}  // namespace
