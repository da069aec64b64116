// `analyze` on the vLLM-Ascend decode fixture (testdata/ascend_serving/make_vllm_ascend_decode.py,
// built from the formats' documentation: no public vLLM-Ascend profile exists), as a user runs it:
// the iterations are the steps, the turn between them is advised with vLLM-Ascend's own command,
// and no other engine's command is printed. Answers worked out in the script's docstring.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compare/compare.h"
#include "pipeline/analysis.h"
#include "test_support.h"

namespace {

using nlohmann::json;

const std::string kRun = npu::test::source_dir() + "/testdata/ascend_serving/vllm_ascend_decode_ascend_pt";

TEST(AscendServingRun, AdvisesTheEnginesAsyncSchedulingForTheTurnBetweenIterations) {
  const npu::pipeline::Analysis a = npu::pipeline::analyze(kRun, npu::pipeline::AnalysisOptions{});
  const json& r = a.report;
  const json& facts = r["facts"];
  EXPECT_EQ(facts["inference"]["engine"], "vllm_ascend");
  EXPECT_EQ(facts["inference"]["iterations"].size(), 8u);
  EXPECT_EQ(facts["run"]["step_source"], "engine iteration");
  EXPECT_EQ(facts["overall"]["step_semantics"], "engine iterations, each clipped to its own window (Ascend)");
  // 7 turns of 360 us; each window 640 us (b+60 -> b+700).
  EXPECT_EQ(facts["idle_attribution"]["turns_ns"], 7 * 360'000);
  bool async = false;
  for (const json& f : r["findings"]) {
    for (const json& c : f["commands"]) {
      const std::string cmd = c.get<std::string>();
      EXPECT_EQ(cmd.find("generation_config"), std::string::npos) << f["rule"];  // no Hugging Face command
      for (const char* gpu : {"torch.cuda", "--cuda-graph", "FULL_AND_PIECEWISE"})  // GPU engines' commands
        EXPECT_EQ(cmd.find(gpu), std::string::npos) << f["rule"] << ": " << cmd;
    }
    if (f["rule"] != "dispatch.async_scheduling") continue;
    async = true;
    EXPECT_EQ(f["commands"][0], "--async-scheduling   # add to the vllm serve command");
  }
  EXPECT_TRUE(async) << r["findings"].dump().substr(0, 600);
}

// compare judges each iteration by its own window (0.640 ms), not its host span (0.700 ms).
TEST(AscendServingRun, CompareTimesTheIterationsByTheirOwnWindows) {
  npu::pipeline::AnalysisOptions o;
  o.stop = npu::pipeline::StopAfter::Facts;
  npu::compare::CompareSide side;
  side.path = kRun;
  side.kind = "run folder";
  side.facts = npu::pipeline::analyze(kRun, o).facts;
  const json c = npu::compare::build_compare(side, side);
  const json& st = c["step_time"];
  EXPECT_EQ(st["basis"].get<std::string>().rfind("device step: each engine iteration's own window", 0), 0u) << st;
  EXPECT_EQ(st["base"]["median_ns"], 640'000) << st;
}

}  // namespace
