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

// The facts' phases (their median and rate, as facts/diagnostics/inference.cpp writes them) with
// the iterations' requests: two decode iterations of 32 and 30 requests, 10 and 12 ms (median 11
// ms as written here), 62 tokens in 22 ms = 2818 tokens/s, one per batch size; one prefill of 15
// requests and 15,360 tokens in 494 ms after a 463 ms hole (31,093 tokens/s).
json phase(const char* name, int64_t n, int64_t median_ns, int64_t tokens, double tps, json batches) {
  return {{"phase", name},   {"iterations", n},     {"own_window_median_ns", median_ns},
          {"tokens", tokens}, {"tokens_per_s", tps}, {"by_batch_size", std::move(batches)}};
}

TEST(InferenceReport, ServingSaysEachPhaseAndTheHole) {
  const json inf = {
      {"kind", "serving"},
      {"engine", "sglang"},
      {"iterations", json::array({iteration("decode", 32, 32, 10'000'000), iteration("decode", 30, 30, 12'000'000),
                                  iteration("prefill", 15, 15'360, 494'000'000, 463'000'000)})},
      {"phases",
       json::array({phase("prefill", 1, 494'000'000, 15'360, 15'360 / 0.494, json::array()),
                    phase("decode", 2, 11'000'000, 62, 62 / 0.022,
                          json::array({{{"requests", 30}, {"iterations", 1}, {"own_window_median_ns", 12'000'000}},
                                       {{"requests", 32}, {"iterations", 1}, {"own_window_median_ns", 10'000'000}}}))})},
      {"steady_state", {{"first", 2}, {"last", 4}, {"excluded", json::array({{{"iteration", 1}, {"why", "warm-up"}}})}}}};
  const std::string t = terminal_of(inf);
  EXPECT_NE(t.find("Serving (sglang): 1 prefill iteration, 15 requests each: 494.000 ms per iteration (own window, "
                   "median), 31093 tokens/s"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\n  2 decode iterations, 30-32 requests: 11.000 ms per iteration (own window, median), 2818 "
                   "tokens/s"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("by batch size (requests: median own window): 30: 12.000 ms, 32: 10.000 ms"), std::string::npos)
      << t;
  EXPECT_NE(t.find("steady state: iterations 2-4 (1 warm-up iteration left out)"), std::string::npos) << t;
  EXPECT_NE(t.find("463.000 ms of device idle before the iterations' own work is a hole"), std::string::npos) << t;
}

// A generate() loop makes its 32 tokens one after another: 263.706 ms / 32 = 8.241 ms per token
// (32 / 0.263706 s = 121 tokens/s). Its requests are not known (null): no "requests each". Its
// prefill (9.4 ms) and the 31 tokens after it (8.215 ms each) are said apart.
TEST(InferenceReport, AGenerateLoopSaysTimePerToken) {
  json it = iteration("unknown", 0, 32, 263'706'000);
  it["requests"] = nullptr;
  it["prefill_ns"] = 9'400'000;
  it["decode_ns_per_token"] = 8'215'000.0;
  const std::string t =
      terminal_of({{"kind", "generate_loop"},
                   {"engine", "hf_generate"},
                   {"iterations", {it}},
                   {"phases", json::array({phase("unknown", 1, 263'706'000, 32, 32 / 0.263706, json::array())})}});
  EXPECT_NE(t.find("generate() loop (hf_generate): 1 iteration: 263.706 ms per iteration (own window, median), 8.241 "
                   "ms per token, 121 tokens/s"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("each call (median): prefill to the first token 9.400 ms, then 8.215 ms per token"),
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
