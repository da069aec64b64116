// The facts of every real input under ../shared/realdata (the inputs scripts/golden-outputs.sh
// covers: folders up to depth 3 and every .json/.gz/.db file; cluster folders give cluster facts),
// and the cluster facts `analyze --facts` reduces from per-rank facts files, validate against the
// facts schema, required keys included.
#include <algorithm>
#include <filesystem>
#include <future>

#include <gtest/gtest.h>

#include "base/json_file.h"
#include "facts/facts_schema.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> real_inputs() {
  std::vector<std::string> out;
  const fs::path root = npu::test::realdata_dir();
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    std::string ext = it->path().extension().string();
    if (it->is_directory() ? it.depth() < 3 : ext == ".json" || ext == ".gz" || ext == ".db")
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The facts of `analyze PATH --format json`; null when analyze refuses the input.
nlohmann::json facts_of(const std::string& path) {
  nlohmann::json report = npu::test::analyze_json(path);
  return report.is_object() && report.contains("facts") ? report["facts"] : nlohmann::json();
}

TEST(FactsSchemaRealdata, EveryRealInputValidates) {
  if (!fs::is_directory(npu::test::realdata_dir())) GTEST_SKIP() << "no ../shared/realdata";
  std::vector<std::string> inputs = real_inputs();
  // Two at a time: each is a separate `npu-advisor analyze` process.
  std::vector<nlohmann::json> facts(inputs.size());
  for (size_t i = 0; i < inputs.size(); i += 2) {
    auto second = std::async(std::launch::async, [&, i] {
      if (i + 1 < inputs.size()) facts[i + 1] = facts_of(inputs[i + 1]);
    });
    facts[i] = facts_of(inputs[i]);
    second.get();
  }
  size_t validated = 0, clusters = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (facts[i].is_null()) continue;  // not an input analyze accepts (a communication.json alone, ...)
    ++validated;
    clusters += facts[i].contains("cluster");
    for (const auto& p : npu::validate_facts(facts[i], npu::FactsSchema::builtin(), true))
      ADD_FAILURE() << inputs[i] << ": " << p;
  }
  EXPECT_GT(validated, 100u);
  EXPECT_GT(clusters, 3u);
}

// The map/reduce path: `facts` on each rank, then `analyze --facts DIR` reduces the files to
// cluster facts, which validate too.
TEST(FactsSchemaRealdata, ClusterFactsFromFactsFilesValidate) {
  const fs::path job = fs::path(npu::test::realdata_dir()) / "ascend_torch_npu/msinsight_2rank";
  if (!fs::is_directory(job)) GTEST_SKIP() << "no ../shared/realdata/ascend_torch_npu/msinsight_2rank";
  npu::test::TempDir dir;
  const std::string bin = NPU_ADVISOR_BIN;
  for (const char* rank : {"test_rank_0", "test_rank_1"}) {
    std::string cmd =
        bin + " facts -q '" + (job / rank).string() + "' -o '" + (dir.path() / rank).string() + ".facts.json'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  std::string out = (dir.path() / "cluster.json").string();
  std::string cmd = bin + " analyze -q --facts '" + dir.path().string() + "' --format json -o '" + out + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  nlohmann::json report = npu::read_json_file(out);
  ASSERT_TRUE(report["facts"].contains("cluster"));
  for (const auto& p : npu::validate_facts(report["facts"], npu::FactsSchema::builtin(), true)) ADD_FAILURE() << p;
}

}  // namespace
