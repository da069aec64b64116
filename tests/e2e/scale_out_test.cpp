// scripts/scale-out/map.sh and reduce.sh run by hand (no scheduler: --index), on a generated
// cluster with one rank whose trace is not JSON: the map records why (NAME.facts.missing), the
// reduce reports that rank skipped, exactly as the direct analysis of the same folder does, and
// both exit 2. The same scripts through a real Slurm: tests/slurm/slurm_test.sh.
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

using nlohmann::json;
using npu::test::TempDir;

int exit_code(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

json read_json(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A temp folder with prof/ (tools/gen_cluster.py ARGS) and where work/ goes.
struct Cluster {
  TempDir dir;
  std::string d = dir.path().string(), prof = d + "/prof", work = d + "/work";
  std::string scripts = npu::test::source_dir() + "/scripts/scale-out/", bin = NPU_ADVISOR_BIN;
  bool generate(const std::string& args) {
    return exit_code("/usr/bin/python3 '" + npu::test::source_dir() + "/tools/gen_cluster.py' '" + prof + "' " + args +
                     " >/dev/null") == 0;
  }
};

TEST(ScaleOut, BrokenRankIsReportedAsTheDirectAnalysisReportsIt) {
  Cluster c;
  const std::string &d = c.d, &prof = c.prof, &work = c.work, &scripts = c.scripts, &bin = c.bin;
  ASSERT_TRUE(c.generate("--ranks 4 --steps 2 --slow-rank 3"));
  std::string broken = prof + "/node0_10001_20261122093000001_ascend_pt";
  std::ofstream(broken + "/ASCEND_PROFILER_OUTPUT/trace_view.json") << "garbage";

  // 2 ranks per task: task 0 has the broken rank 1 (and still does rank 0), task 1 ranks 2-3.
  std::string opts = " --ranks-per-task 2 --bin '" + bin + "' '" + prof + "' '" + work + "'";
  EXPECT_EQ(exit_code("bash '" + scripts + "map.sh' --index 0" + opts + " >/dev/null 2>&1"), 2);
  EXPECT_EQ(exit_code("bash '" + scripts + "map.sh' --index 1" + opts + " >/dev/null 2>&1"), 0);
  EXPECT_EQ(exit_code("bash '" + scripts + "map.sh' --index 2" + opts + " >/dev/null 2>&1"), 2);  // past the end
  EXPECT_EQ(exit_code("bash '" + scripts + "reduce.sh' --format json" + opts + " >/dev/null 2>&1"), 2);
  EXPECT_EQ(exit_code("'" + bin + "' analyze '" + prof + "' -q --format json -o '" + d + "/direct.json' 2>/dev/null"),
            2);

  std::string why =
      broken + "/ASCEND_PROFILER_OUTPUT/trace_view.json: byte 0: not a JSON trace: expected '[' or '{', found 'g'";
  EXPECT_EQ(read_text(work + "/missing.txt"), why + "\n");
  json reduced = read_json(work + "/report.json"), direct = read_json(d + "/direct.json");
  json a = direct["facts"]["cluster"], b = reduced["facts"]["cluster"];
  EXPECT_EQ(b["rank_count"], 3);
  ASSERT_EQ(b["warnings"].size(), 1u);
  EXPECT_EQ(b["warnings"][0], "rank folder skipped: " + why);
  a.erase("input"), b.erase("input");
  EXPECT_EQ(a.dump(1), b.dump(1));
  EXPECT_EQ(direct["findings"], reduced["findings"]);
}

TEST(ScaleOut, TaskThatDiedIsNamedByTheReduce) {
  Cluster c;
  const std::string &prof = c.prof, &work = c.work, &scripts = c.scripts, &bin = c.bin;
  ASSERT_TRUE(c.generate("--ranks 3 --steps 2"));
  std::string opts = " --bin '" + bin + "' '" + prof + "' '" + work + "'";
  // Task 1 never runs (killed before it could write anything): only 0 and 2 do.
  ASSERT_EQ(exit_code("bash '" + scripts + "map.sh' --index 0" + opts + " >/dev/null"), 0);
  ASSERT_EQ(exit_code("bash '" + scripts + "map.sh' --index 2" + opts + " >/dev/null"), 0);
  EXPECT_EQ(exit_code("bash '" + scripts + "reduce.sh' --format json" + opts + " >/dev/null 2>&1"), 2);
  EXPECT_EQ(read_text(work + "/missing.txt"),
            prof +
                "/node0_10001_20261122093000001_ascend_pt: no facts: map task 1 did not finish "
                "(killed for time or memory, or not run: see its log)\n");
  EXPECT_EQ(read_json(work + "/report.json")["facts"]["cluster"]["rank_count"], 2);
}

}  // namespace
