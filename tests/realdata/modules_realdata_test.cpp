// Device time per module on real traces: every module path's device time equals what
// tests/realdata/verify_modules.py (an independent reading of the raw JSON with the Python standard
// library) sums, to the nanosecond; the modules and the rest add up to the step's device work; the
// 24 identical blocks of kineto_h200/sync are one repeated layer; a CUDA-graph replay states its
// coverage. docs/facts-modules.md.
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

using npu::test::real;
using json = nlohmann::json;

const char* kSync = "kineto_h200/sync/sync.1795674322159131132.pt.trace.json.gz";
const char* kCompiled = "kineto_h200/compiled";
const char* kRank[2] = {"ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt",
                        "ascend_torch_npu/msinsight_pytorch_2rank/text/rank1_ascend_pt"};

struct Reference {
  std::map<std::string, long long> total;
  long long in_modules = -1;
};

Reference run_script(const std::string& trace) {
  Reference r;
  const std::string cmd =
      "/usr/bin/python3 " + npu::test::source_dir() + "/tests/realdata/verify_modules.py '" + trace + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  if (pclose(p) != 0) return r;
  std::istringstream lines(out);
  std::string line;
  const std::string sep = " total_device_ns ";
  while (std::getline(lines, line)) {
    if (line.rfind("module ", 0) == 0) {
      const size_t at = line.rfind(sep);
      r.total[line.substr(7, at - 7)] = std::stoll(line.substr(at + sep.size()));
    } else if (line.rfind("in_modules_ns ", 0) == 0) {
      r.in_modules = std::stoll(line.substr(14));
    }
  }
  return r;
}

// Every path the facts list has the script's device time (paths with none are absent there).
void expect_matches_script(const json& m, const std::string& trace, size_t min_paths) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const Reference ref = run_script(trace);
  ASSERT_GE(ref.total.size(), min_paths) << "verify_modules.py failed on " << trace;
  size_t compared = 0;
  for (const auto& n : m["tree"]) {
    const std::string path = n["path"];
    auto it = ref.total.find(path);
    const long long want = it == ref.total.end() ? 0 : it->second;
    EXPECT_EQ(n["total_device_ns"].get<long long>(), want) << path;
    compared += it != ref.total.end();
  }
  EXPECT_EQ(compared, ref.total.size());
  long long top = 0;
  for (const auto& n : m["tree"])
    if (n["parent"] == -1) top += n["total_device_ns"].get<long long>();
  EXPECT_EQ(top, ref.in_modules);
}

void expect_adds_up(const json& m) {
  EXPECT_EQ(m["in_modules_ns"].get<long long>() + m["outside_ns"].get<long long>(),
            m["step_device_ns"].get<long long>());
  long long top = 0;
  for (const auto& n : m["tree"]) {
    if (n["parent"] == -1) top += n["total_device_ns"].get<long long>();
    EXPECT_EQ(
        n["computing_ns"].get<long long>() + n["communication_ns"].get<long long>() + n["copies_ns"].get<long long>(),
        n["device_ns"].get<long long>())
        << n["path"];
  }
  const long long steps = std::max<long long>(1, m["steps"].get<long long>());
  EXPECT_NEAR(static_cast<double>(top) / static_cast<double>(steps), m["in_modules_ns"].get<double>(), 1.0);
}

TEST(RealDataModules, SyncEveryModuleEqualsTheScriptAndTheBlocksAreOneLayer) {
  REQUIRE_REALDATA(kSync);
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(kSync)));
  ASSERT_TRUE(f.has("modules"));
  const json& m = f.doc["modules"];
  expect_matches_script(m, real(kSync), 70);
  expect_adds_up(m);
  EXPECT_EQ(m["steps"], 3);
  EXPECT_EQ(m["ranges"], 222);  // 24 x (Sequential, Linear, GELU) + zero_grad + step, in 3 steps
  // The 24 Sequential(Linear, GELU) blocks: one repeated layer at the top level, with its spread.
  ASSERT_FALSE(m["repeated"].empty());
  const json& r = m["repeated"][0];
  EXPECT_EQ(r["class"], "Sequential");
  EXPECT_EQ(r["parent"], nullptr);
  EXPECT_EQ(r["count"], 24);
  EXPECT_EQ(r["members"][0]["path"], "Sequential_0");
  EXPECT_EQ(r["members"][23]["path"], "Sequential_23");
  EXPECT_LT(r["mad_ns"].get<double>(), 0.05 * r["median_ns"].get<double>());  // identical blocks agree
  EXPECT_DOUBLE_EQ(m["graph"]["share"].get<double>(), 0.0);
}

TEST(RealDataModules, TorchNpuTextBothRanksEqualTheScript) {
  for (const char* rank : kRank) {
    REQUIRE_REALDATA(rank);
    npu::Facts f = npu::compute_facts(npu::test::load_path(real(rank)));
    ASSERT_TRUE(f.has("modules")) << rank;
    const json& m = f.doc["modules"];
    expect_matches_script(m, real(rank) + "/ASCEND_PROFILER_OUTPUT/trace_view.json", 25);
    expect_adds_up(m);
    EXPECT_EQ(m["tree"][0]["path"], "DistributedDataParallel_0");
    EXPECT_EQ(m["tree"][1]["path"], "DistributedDataParallel_0/AlexNet_0");
    // The allreduce of the gradients runs outside the forward's modules and joins no launch arrow.
    EXPECT_GT(m["unjoined_ns"].get<long long>(), 100'000'000) << rank;
  }
}

// The compiled workload replays one CUDA graph per step and records no module ranges: the facts say
// that all of its device work is behind the replay and that the module rankings cover none of it.
TEST(RealDataModules, CompiledStatesItsGraphCoverage) {
  REQUIRE_REALDATA(kCompiled);
  npu::Facts f = npu::compute_facts(npu::test::load_path(real(kCompiled)));
  ASSERT_TRUE(f.has("modules"));
  const json& m = f.doc["modules"];
  EXPECT_TRUE(m["tree"].empty());
  EXPECT_DOUBLE_EQ(m["coverage"].get<double>(), 0.0);
  EXPECT_GT(m["graph"]["share"].get<double>(), 0.99);
  EXPECT_FALSE(m["graph"]["mapped"].get<bool>());
  bool said = false;
  for (const auto& u : f.doc["unavailable"]) said |= u["fact"] == "modules.tree" || u["fact"] == "modules.graph";
  EXPECT_TRUE(said);
}

}  // namespace
