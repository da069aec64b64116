// The what-if replay (docs/whatif.md) on the real traces of ../shared/realdata: the unmodified
// replay gives every measured step back on every run that has launch links, and on the H200
// before/after pairs the replayed saving of the planted cause is within -25 % / +33 % of what the
// real fix realised, and ranks first.
#include <filesystem>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json whatif_of(const std::string& rel) {
  return npu::compute_facts(npu::test::load_path(npu::test::real(rel))).doc["whatif"];
}

TEST(WhatIfRealData, TheUnmodifiedReplayReproducesEveryRunWithLaunchLinks) {
  REQUIRE_REALDATA("kineto_h200/healthy");
  std::vector<std::string> runs;
  for (const char* w : {"healthy", "compiled", "launch", "sync", "dataloader", "dataloader_fixed", "pageable", "decode",
                        "collector_sync"})
    runs.push_back(std::string("kineto_h200/") + w);
  for (const char* r :
       {"kineto/hta/amd_trace", "kineto/hta/df_index_resolver", "kineto/hta/nccl_parser_config",
        "kineto/hta/negative_queue_length_values_check", "kineto/hta/trace_file_list",
        "kineto/hta/with_gpu_user_annotation", "kineto/tb_plugin_samples/resnet50_num_workers_4",
        "ascend_torch_npu/mstt_timeline_advice", "ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt",
        "ascend_torch_npu/msinsight_pytorch_2rank/text/rank1_ascend_pt",
        "ascend_torch_npu/msinsight_pytorch_2rank/db/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
        "ascend_pytorch_profiler_0.db"})
    if (fs::exists(npu::test::real(r))) runs.push_back(r);
  for (const auto& r : runs) {
    SCOPED_TRACE(r);
    const json w = whatif_of(r);
    ASSERT_EQ(w["available"], true) << w.dump();
    EXPECT_EQ(w["reproduces"], true) << w.dump();
    EXPECT_LE(std::abs(w["deviation"].get<double>()), 0.01);
    EXPECT_GT(w["joined"].get<int64_t>(), 0);
    // No fix the replay applies makes the steps longer together.
    EXPECT_GE(w["combined"]["saving_ns"].get<int64_t>(), 0);
  }
}

// torch_npu runs with the task queue's arrows: the steps replayed as two host stages (the
// enqueuing threads, the queue's thread) give the measured step back too, exactly (every Dequeue
// keeps its measured wait for its Enqueue or its thread). Links: the runs' async_task_queue pairs
// (148 in mstt's trace_view.json, 159 in each msinsight rank: counted from the files).
TEST(WhatIfRealData, TheTwoStageReplayReproducesEveryRunWithTheTaskQueue) {
  REQUIRE_REALDATA("ascend_torch_npu/mstt_timeline_advice");
  const std::vector<std::pair<std::string, int>> runs = {
      {"ascend_torch_npu/mstt_timeline_advice", 148},
      {"ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt", 159},
      {"ascend_torch_npu/msinsight_pytorch_2rank/text/rank1_ascend_pt", 159},
      {"ascend_torch_npu/msinsight_pytorch_2rank/db/rank0_ascend_pt", 159},
      {"ascend_torch_npu/msinsight_pytorch_2rank/db/rank1_ascend_pt", 159}};
  for (const auto& [r, links] : runs) {
    if (!fs::exists(npu::test::real(r))) continue;
    SCOPED_TRACE(r);
    const json w = whatif_of(r);
    ASSERT_TRUE(w.contains("two_stage")) << w.dump();
    const json& q = w["two_stage"];
    EXPECT_EQ(q["queue_links"], links);
    EXPECT_EQ(q["reproduces"], true);
    EXPECT_EQ(q["replayed_step_ns"], w["measured_step_ns"]);
    // The queue thread wakes a few microseconds after an Enqueue.
    EXPECT_GT(q["queue_lag_ns"].get<int64_t>(), 1'000);
    EXPECT_LT(q["queue_lag_ns"].get<int64_t>(), 10'000);
    EXPECT_EQ(w["transforms"]["task_queue"]["applicable"], true) << w["transforms"]["task_queue"].dump();
  }
  // mstt: its queue thread runs ~2.4 ms behind (online compilation in its Dequeues): moving the
  // workspace calls there makes the step longer, so the level-2 advice is replayed at no saving.
  const json r = npu::test::analyze_json(npu::test::real("ascend_torch_npu/mstt_timeline_advice"));
  bool seen = false;
  for (const auto& f : r["findings"])
    if (f["rule"] == "dispatch.host_bound") {
      seen = true;
      EXPECT_EQ(f["saving_method"], "replay") << f.dump();
      EXPECT_EQ(f["whatif"], "task_queue");
      EXPECT_EQ(f["saving_ns"], 0);
      EXPECT_LT(whatif_of("ascend_torch_npu/mstt_timeline_advice")["transforms"]["task_queue"]["saving_ns"], 0);
    }
  EXPECT_TRUE(seen);
  // msinsight db rank0: the CPU-binding finding (its long host gaps) has no slow stretch to replay:
  // it keeps its formula and says why.
  const std::string db0 = "ascend_torch_npu/msinsight_pytorch_2rank/db/rank0_ascend_pt";
  if (!fs::exists(npu::test::real(db0))) return;
  seen = false;
  const json d = npu::test::analyze_json(npu::test::real(db0));
  for (const auto& f : d["findings"])
    if (f["rule"] == "dispatch.cpu_affinity") {
      seen = true;
      EXPECT_EQ(f["saving_method"], "formula") << f.dump();
      EXPECT_NE(f["saving_note"].get<std::string>().find("cannot apply 'cpu_binding'"), std::string::npos) << f.dump();
    }
  EXPECT_TRUE(seen);
}

// Without launch links (MindSpore timelines) there is nothing to replay, and the facts say so.
TEST(WhatIfRealData, WithoutLaunchLinksTheReplayIsUnavailable) {
  REQUIRE_REALDATA("mindspore_legacy/mindinsight_run_2");
  const json w = whatif_of("mindspore_legacy/mindinsight_run_2");
  EXPECT_EQ(w["available"], false);
  EXPECT_NE(w["why"].get<std::string>().find("is joined to the host call that launched it"), std::string::npos)
      << w.dump();
}

// The realised saving of a real fix: the measured step before less the measured step after.
void expect_predicts(const char* before, const char* after, const char* transform) {
  const json b = whatif_of(std::string("kineto_h200/") + before), a = whatif_of(std::string("kineto_h200/") + after);
  const double realised = b["measured_step_ns"].get<double>() - a["measured_step_ns"].get<double>();
  const double predicted = b["transforms"][transform]["saving_ns"].get<double>();
  EXPECT_GE(predicted, 0.75 * realised) << before << ": predicted " << predicted << " realised " << realised;
  EXPECT_LE(predicted, 1.33 * realised) << before << ": predicted " << predicted << " realised " << realised;
}

TEST(WhatIfRealData, ReplayedSavingsMatchTheRealFixes) {
  REQUIRE_REALDATA("kineto_h200/dataloader_fixed");
  expect_predicts("dataloader", "dataloader_fixed", "dataloader");  // 60.6 ms vs 66.6 ms
  expect_predicts("launch", "compiled", "graphs");                  // 48.8 ms vs 50.0 ms
}

TEST(WhatIfRealData, ThePlantedCauseRanksFirstWithItsReplayedSaving) {
  REQUIRE_REALDATA("kineto_h200/pageable");
  for (const auto& [workload, rule] :
       std::vector<std::pair<std::string, std::string>>{{"dataloader", "schedule.dataloader"},
                                                        {"launch", "dispatch.launch_bound"},
                                                        {"pageable", "memory.pageable_copy"}}) {
    SCOPED_TRACE(workload);
    const json r = npu::test::analyze_json(npu::test::real("kineto_h200/" + workload));
    ASSERT_FALSE(r["findings"].empty());
    const json& top = r["findings"][0];
    EXPECT_EQ(top["rule"], rule);
    EXPECT_EQ(top["saving_method"], "replay") << top.dump();
    // The step with the findings' fixes together is said (each of its fixes is a finding's).
    ASSERT_TRUE(r["attribution"].contains("replay")) << r["attribution"].dump();
    EXPECT_FALSE(r["attribution"]["replay"]["transforms"].empty());
  }
  // pageable's fp32 GEMMs: the precision finding comes second, replayed (bf16 autocast); the
  // launch-bound step's tiny GEMMs get none (the replay says they would save nothing).
  const json p = npu::test::analyze_json(npu::test::real("kineto_h200/pageable"));
  ASSERT_GE(p["findings"].size(), 2u);
  EXPECT_EQ(p["findings"][1]["rule"], "compute.precision");
  EXPECT_EQ(p["findings"][1]["saving_method"], "replay");
  for (const char* w : {"launch", "sync"})
    for (const auto& f : npu::test::analyze_json(npu::test::real(std::string("kineto_h200/") + w))["findings"])
      EXPECT_NE(f["rule"], "compute.precision") << w;
  // healthy and compiled: nothing the replay can give is worth a finding.
  for (const char* w : {"healthy", "compiled"}) {
    const json r = npu::test::analyze_json(npu::test::real(std::string("kineto_h200/") + w));
    for (const auto& f : r["findings"]) EXPECT_LT(f["saving_ratio"].get<double>(), 0.05) << w << ": " << f.dump();
  }
}

}  // namespace
