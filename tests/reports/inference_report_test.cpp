// The terminal summary of a serving or generate run (reports/terminal_report.cpp): its
// iterations per phase come first, in the words of the facts (docs/facts-inference.md), from
// hand-written inference sections whose figures are worked out below.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/report_document.h"
#include "test_support.h"

namespace {

using nlohmann::json;

std::string terminal_of(const json& inference) {
  return npu::render_terminal(
      npu::test::report_around(
          {{"run", {{"framework", "PyTorch"}}}, {"unavailable", json::array()}, {"inference", inference}}),
      {});
}

json iteration(const char* phase, int64_t requests, int64_t tokens, int64_t own_ns, int64_t hole_ns = 0) {
  return {{"phase", phase},          {"requests", requests}, {"tokens", tokens},
          {"own_window_ns", own_ns}, {"hole_ns", hole_ns},   {"busy_ns", own_ns}};
}

// Two decode iterations of 32 and 30 requests (31 on average), 10 and 12 ms: 11 ms per
// iteration, 62 tokens in 22 ms = 2818 tokens/s; one prefill of 15 requests and 15,360 tokens in
// 494 ms after a 463 ms hole (31,093 tokens/s).
TEST(InferenceReport, ServingSaysEachPhaseAndTheHole) {
  const json inf = {
      {"kind", "serving"},
      {"engine", "sglang"},
      {"iterations", json::array({iteration("decode", 32, 32, 10'000'000), iteration("decode", 30, 30, 12'000'000),
                                  iteration("prefill", 15, 15'360, 494'000'000, 463'000'000)})}};
  const std::string t = terminal_of(inf);
  EXPECT_NE(t.find("Serving (sglang): 1 prefill iteration, 15 requests each: 494.000 ms per iteration (own window), "
                   "31093 tokens/s"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\n  2 decode iterations, 31 requests each: 11.000 ms per iteration (own window), 2818 "
                   "tokens/s"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("463.000 ms of device idle before the iterations' own work is a hole"), std::string::npos) << t;
}

// A generate() loop makes its 32 tokens one after another: 263.706 ms / 32 = 8.241 ms per token.
// Its requests are not known (null): no "requests each".
TEST(InferenceReport, AGenerateLoopSaysTimePerToken) {
  json it = iteration("unknown", 0, 32, 263'706'000);
  it["requests"] = nullptr;
  const std::string t = terminal_of({{"kind", "generate_loop"}, {"engine", "hf_generate"}, {"iterations", {it}}});
  EXPECT_NE(t.find("generate() loop (hf_generate): 1 iteration: 263.706 ms per iteration (own window), 8.241 ms per "
                   "token, 121 tokens/s"),
            std::string::npos)
      << t;
}

TEST(InferenceReport, AStartUpCaptureSaysItIsNotServing) {
  const json inf = {{"kind", "graph_capture"},
                    {"engine", "vllm"},
                    {"iterations", json::array()},
                    {"capture", {{"graphs", json::array({{{"batch_size", 32}, {"mode", "FULL"}}})}}}};
  EXPECT_NE(terminal_of(inf).find("Graph capture (vllm): start-up, not serving: graphs 32 FULL"), std::string::npos);
}

}  // namespace
