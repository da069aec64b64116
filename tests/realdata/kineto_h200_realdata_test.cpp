// Real Kineto traces from an NVIDIA H200 (../shared/realdata/kineto_h200, MANIFEST.md): one
// planted cause per workload, where the host runs ahead of the GPU (healthy, compiled, pageable)
// or the GPU waits on the host (launch, sync, dataloader, decode). A step lasts until the device
// work it launched ends (the TensorBoard plugin's rule, docs/overlap.md); every number below is
// checked against tests/realdata/verify_kineto.py, which computes the rule on its own.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "compare/compare.h"
#include "facts/diagnostics/diagnostics.h"
#include "kineto_verifier.h"
#include "pipeline/compare_side.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string h200(const std::string& workload) { return npu::test::real("kineto_h200/" + workload); }

// The one trace of a workload folder.
std::string trace_of(const std::string& workload) {
  for (const auto& e : fs::directory_iterator(h200(workload)))
    if (e.path().extension() == ".gz") return e.path().string();
  return "";
}

#define REQUIRE_H200() REQUIRE_REALDATA("kineto_h200/healthy")

TEST(KinetoH200, EveryTraceFollowsTheLaunchedWorkStepRule) {
  REQUIRE_H200();
  int traces = 0;
  for (const auto& e : fs::directory_iterator(h200(""))) {
    if (!e.is_directory() || e.path().filename() == "workloads") continue;
    const std::string trace = trace_of(e.path().filename().string());
    SCOPED_TRACE(trace);
    expect_matches_verifier(trace);
    npu::Facts f = npu::compute_facts(npu::test::load_path(trace));
    EXPECT_EQ(f.doc["overall"]["step_time_rule"], "launched_work");
    EXPECT_EQ(f.doc["overall"]["self_check"]["ok"], true) << f.doc["overall"]["self_check"].dump();
    // The split and the step statistics describe the same steps: the split's step is the mean.
    EXPECT_NEAR(f.doc["idle_attribution"]["per_step_ns"].get<double>(),
                f.doc["overall"]["step_time"]["mean_ns"].get<double>(), 1.0);
    ++traces;
  }
  EXPECT_GE(traces, 9);
}

// A GPU-bound step is the GPU's time, not the host's: the host of `healthy` runs ~35 ms ahead and
// spends 3-4 ms per step; the kernels it launched take ~40 ms (39.8 ms per step unprofiled).
TEST(KinetoH200, AGpuBoundStepLastsUntilItsKernelsEnd) {
  REQUIRE_H200();
  npu::Facts f = npu::compute_facts(npu::test::load_path(trace_of("healthy")));
  for (const json& s : f.doc["steps"]) {
    EXPECT_GT(s["device_time_ns"].get<int64_t>(), 38'000'000);
    EXPECT_LT(s["host_dur_ns"].get<int64_t>(), 4'000'000);
    EXPECT_EQ(s["device_window"]["launched_tasks"], 115);
  }
  // Every launch of the steps is inside a step (dispatch groups device starts by the windows).
  EXPECT_EQ(f.doc["dispatch"]["overall"]["flows_outside_steps"], 0);
}

// compare judges the device step: the ratio of the medians of the steps the rule gives.
void expect_ratio(const std::string& base, const std::string& next) {
  SCOPED_TRACE(base + " -> " + next);
  const auto b = verifier_step_times(trace_of(base)), n = verifier_step_times(trace_of(next));
  ASSERT_EQ(b.size(), 3u);
  ASSERT_EQ(n.size(), 3u);
  auto median = [](std::vector<long long> v) {
    std::sort(v.begin(), v.end());
    return static_cast<double>(v[1]);
  };
  npu::compare::CompareSide sb = npu::pipeline::load_compare_side(h200(base), {}, {});
  npu::compare::CompareSide sn = npu::pipeline::load_compare_side(h200(next), {}, {});
  const json doc = npu::compare::build_compare(sb, sn);
  const json& st = doc["step_time"];
  EXPECT_NE(st["basis"].get<std::string>().find("device step"), std::string::npos) << st["basis"];
  EXPECT_EQ(st["base"]["median_ns"].get<double>(), median(b));
  EXPECT_EQ(st["new"]["median_ns"].get<double>(), median(n));
  EXPECT_NEAR(st["delta_ratio"].get<double>(), median(n) / median(b) - 1.0, 1e-9);
}

TEST(KinetoH200, CompareGivesTheRatioOfTheSteps) {
  REQUIRE_H200();
  expect_ratio("launch", "compiled");              // 52.8 ms -> 3.09 ms: a 17x speed-up, not a slowdown
  expect_ratio("dataloader", "dataloader_fixed");  // 68.8 ms -> 2.2 ms
  expect_ratio("compiled", "launch");              // and the regression the other way
}

// gate judges the same step: the CUDA-graph fix of `launch` passes a 5% budget, and going back
// from it fails (exit 1); before, the host span made the speed-up fail and the regression pass.
int gate_exit(const std::string& base, const std::string& next) {
  const std::string cmd = std::string(NPU_ADVISOR_BIN) + " gate --baseline '" + h200(base) + "' '" + h200(next) +
                          "' --max-regression step_time=5% > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(KinetoH200, GateJudgesTheDeviceStep) {
  REQUIRE_H200();
  EXPECT_EQ(gate_exit("launch", "compiled"), 0);
  EXPECT_EQ(gate_exit("compiled", "launch"), 1);
  EXPECT_EQ(gate_exit("dataloader_fixed", "dataloader"), 1);
}

// The profiler's own host cost (profiler_overhead) against the same workloads' step times
// measured without the profiler (workloads/wall_times.txt, median of 10 steps): the estimated
// unprofiled step is within 10% on the host-bound workloads. (dataloader_fixed, whose profiled
// step loses ~1 ms that its few recorded operators do not explain, is the known miss: docs.)
double wall_ms(const std::string& script) {
  std::ifstream in(h200("workloads/wall_times.txt"));
  std::string word, name, line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    double ms = 0;
    if (l >> word >> name >> word >> ms && name == script) return ms;
  }
  return 0;
}

TEST(KinetoH200, ProfilerOverheadEstimateMatchesTheUnprofiledSteps) {
  REQUIRE_H200();
  const std::pair<const char*, const char*> cases[] = {{"launch", "w_launch.py"},         {"sync", "w_sync.py"},
                                                       {"collector_sync", "w_sync.py"},   {"decode", "w_decode.py"},
                                                       {"dataloader", "w_dataloader.py"}, {"healthy", "w_healthy.py"}};
  for (const auto& [workload, script] : cases) {
    npu::Facts f = npu::compute_facts(npu::test::load_path(trace_of(workload)));
    const double estimated = f.doc["profiler_overhead"]["step_without_profiler_ns"].get<double>() / 1e6;
    const double wall = wall_ms(script);
    ASSERT_GT(wall, 0) << script;
    EXPECT_NEAR(estimated, wall, 0.1 * wall) << workload;
  }
}

// w_sync.py: six .item() checks in the forward, loss.item() and a .cpu(): 8 blocking waits per
// step, each an .item()'s copy plus the sync call it waits in (or the .cpu()'s blocking copy and
// its sync), counted once. The same script under `npu-advisor capture` (collector_sync) too.
TEST(KinetoH200, EachSyncPointIsCountedOnce) {
  REQUIRE_H200();
  for (const char* w : {"sync", "collector_sync"}) {
    npu::Facts f = npu::compute_facts(npu::test::load_path(trace_of(w)));
    ASSERT_EQ(f.doc["gpu"]["steps"].size(), 3u) << w;
    for (const json& s : f.doc["gpu"]["steps"]) {
      EXPECT_EQ(s["sync_points"], 8) << w;
      EXPECT_EQ(s["sync_calls"], 8) << w;
      EXPECT_LE(s["sync_wait_ns"].get<int64_t>(),
                s["sync_ns"].get<int64_t>() + s["blocking_d2h_wait_ns"].get<int64_t>());
    }
  }
}

// w_pageable.py: a 256 MB pageable tensor copied to the GPU each step (~33 ms). The copy is device
// work (the copy engine), not idle; the idle after it began while the host sat in the blocking
// copy call, so no idle is the host's launching and no launch-bound finding appears.
TEST(KinetoH200, APageableCopyIsDeviceWorkNotHostLaunchIdle) {
  REQUIRE_H200();
  npu::Facts f = npu::compute_facts(npu::test::load_path(trace_of("pageable")));
  for (const json& s : f.doc["steps"]) EXPECT_GT(s["copies_ns"].get<int64_t>(), 29'000'000);
  EXPECT_EQ(f.doc["idle_attribution"]["causes"]["host_launch"]["ns"], 0);
  EXPECT_GT(f.doc["idle_attribution"]["copies_ns"].get<int64_t>(), 90'000'000);
  const json report = npu::test::analyze_json(h200("pageable"));
  ASSERT_TRUE(report.is_object());
  for (const json& finding : report["findings"]) EXPECT_NE(finding["rule"], "dispatch.launch_bound");
  ASSERT_FALSE(report["findings"].empty());
  EXPECT_EQ(report["findings"][0]["rule"], "memory.pageable_copy");
  // w_pageable.py has no DataLoader: it is told to pin the tensor it copies.
  const std::string commands = report["findings"][0]["commands"].dump();
  EXPECT_NE(commands.find("src.pin_memory()"), std::string::npos) << commands;
  EXPECT_EQ(commands.find("DataLoader"), std::string::npos) << commands;
}

}  // namespace

namespace {

// Commands fit the job (facts.job): decode (GPT-2 generate(), no optimizer, no backward) is told
// nothing about losses, optimizers, DataLoaders or Ascend variables; the training jobs get the
// fused version of the optimizer they step, not another one.
TEST(KinetoH200, InferenceGetsNoTrainingAdvice) {
  REQUIRE_H200();
  const nlohmann::json d = npu::test::analyze_json(trace_of("decode"));
  EXPECT_EQ(d["facts"]["job"]["training"], false);
  ASSERT_FALSE(d["findings"].empty());
  for (const auto& f : d["findings"])
    for (const char* no : {"loss", "optim.", "DataLoader", "TASK_QUEUE_ENABLE", "CPU_AFFINITY_CONF"})
      EXPECT_EQ(f.dump().find(no), std::string::npos) << f["rule"] << " mentions " << no;
  const nlohmann::json l = npu::test::analyze_json(trace_of("launch"));
  EXPECT_EQ(l["facts"]["job"]["optimizer"], "SGD");
  for (const auto& f : l["findings"]) EXPECT_EQ(f.dump().find("AdamW"), std::string::npos) << f["rule"];
}

}  // namespace
