// A serving or generate run in the reports (reports/inference_text.cpp, the HTML's
// reports/html/inference_section.cpp): its header per phase comes first, in the words and figures
// of the facts (docs/facts-inference.md), then the steady state, the holes and (Markdown, HTML) the
// iterations' table, from hand-written inference sections whose figures are worked out below.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/inference_text.h"
#include "reports/report_document.h"
#include "test_support.h"

namespace {

using nlohmann::json;

json report_of(const json& inference) {
  return npu::test::report_around(
      {{"run", {{"framework", "PyTorch"}}}, {"unavailable", json::array()}, {"inference", inference}});
}

std::string terminal_of(const json& inference) { return npu::render_terminal(report_of(inference), {}); }

json iteration(const char* phase, int64_t requests, int64_t tokens, int64_t own_ns, int64_t hole_ns = 0) {
  return {{"phase", phase},          {"requests", requests}, {"tokens", tokens},
          {"own_window_ns", own_ns}, {"hole_ns", hole_ns},   {"busy_ns", own_ns}};
}

// The facts' phases (their median and rate, as facts/diagnostics/inference.cpp writes them): two
// decode iterations of 32 and 30 requests, 10 and 12 ms (median 11 ms as written here), 62 tokens
// in 22 ms = 2818 tokens/s ("2.82k"), one per batch size, 97% of their busy time in graphs; one
// prefill of 15 requests and 15,360 tokens in 494 ms after a 463 ms hole (31,093 tokens/s,
// "31.1k"). The first decode iteration was left out of the steady state as a warm-up.
json phase(const char* name, int64_t n, int64_t median_ns, int64_t tokens, double tps, json batches) {
  return {{"phase", name},   {"iterations", n},     {"own_window_median_ns", median_ns},
          {"tokens", tokens}, {"tokens_per_s", tps}, {"by_batch_size", std::move(batches)}};
}

json serving() {
  json decode = phase("decode", 2, 11'000'000, 62, 62 / 0.022,
                      json::array({{{"requests", 30}, {"iterations", 1}, {"own_window_median_ns", 12'000'000}},
                                   {{"requests", 32}, {"iterations", 1}, {"own_window_median_ns", 10'000'000}}}));
  decode["graph_share"] = 0.97;
  json its = json::array({iteration("decode", 32, 32, 10'000'000), iteration("decode", 30, 30, 12'000'000),
                          iteration("prefill", 15, 15'360, 494'000'000, 463'000'000)});
  its[0]["graph_share"] = 0.5;
  return {{"kind", "serving"},
          {"engine", "sglang"},
          {"iterations", its},
          {"phases", json::array({phase("prefill", 1, 494'000'000, 15'360, 15'360 / 0.494,
                                        json::array({{{"requests", 15}, {"iterations", 1},
                                                      {"own_window_median_ns", 494'000'000}}})),
                                  decode})},
          {"steady_state",
           {{"first", 2}, {"last", 3}, {"excluded", json::array({{{"iteration", 1}, {"why", "warm-up: 1.6x"}}})}}}};
}

TEST(InferenceReport, ServingSaysEachPhaseAndTheHole) {
  const std::string t = terminal_of(serving());
  EXPECT_NE(t.find("Serving (sglang): prefill, 15 requests: 494.000 ms/iteration, 31.1k tokens/s (median own window "
                   "of 1 iteration)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\n  decode, 30-32 requests: 11.000 ms/iteration, 2.82k tokens/s, 97.0% in graphs (median own "
                   "window of 2 iterations)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("by batch size (requests: median own window): 30: 12.000 ms, 32: 10.000 ms"), std::string::npos)
      << t;
  EXPECT_NE(t.find("steady state: iterations 2-3 of 3; left out: iteration 1 (warm-up: 1.6x)"), std::string::npos)
      << t;
  EXPECT_NE(t.find("463.000 ms of device idle before the iterations' own work is a hole: work missing from this cut "
                   "trace"),
            std::string::npos)
      << t;
}

// The Markdown report: the same lines, then a row per iteration (own window 494 ms, hole 463 ms,
// busy 494 ms; the first row says why it was left out).
TEST(InferenceReport, MarkdownHasTheHeaderAndTheIterationsTable) {
  const std::string md = npu::render_markdown(report_of(serving()));
  EXPECT_NE(md.find("## Serving (sglang)"), std::string::npos) << md;
  EXPECT_NE(md.find("- **decode, 30-32 requests: 11.000 ms/iteration, 2.82k tokens/s, 97.0% in graphs"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 1 | decode | 32 | 32 | 10.000 | 0.000 | 10.000 | 50.0% | left out: warm-up: 1.6x |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 3 | prefill | 15 | 15360 | 494.000 | 463.000 | 494.000 | - |  |"), std::string::npos) << md;
  EXPECT_LT(md.find("## Serving"), md.find("## Findings"));
}

// The HTML section: a header box per phase coloured by phase, rows coloured by phase, the warm-up
// row marked, and a link to the section in the bar at the top.
TEST(InferenceReport, HtmlHasAPhaseColouredIterationsTable) {
  const std::string html = npu::render_html(report_of(serving()));
  EXPECT_NE(html.find("<section id=\"serving\" class=\"card\">"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#serving\">Serving</a>"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"kpi phase-decode\"><div class=\"kpi-label\">decode, 30-32 requests</div>"
                      "<div class=\"kpi-value\">11.000 ms/iteration</div>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr class=\"phase-decode warmup\">"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"phase-prefill\">"), std::string::npos);
  EXPECT_NE(html.find("work missing from this cut trace"), std::string::npos);
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
  EXPECT_NE(t.find("generate() loop (hf_generate): 263.706 ms/call, 8.241 ms per token, 121 tokens/s (median own "
                   "window of 1 call)"),
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

namespace {

// The host's turn between a serving run's iterations (facts.idle_attribution.turns_ns: 3.6 ms over
// 3 iterations, 2 turns): 1.800 ms per turn, 1.200 ms per iteration of the period; none with one
// iteration or without the key.
TEST(InferenceReport, TheTurnBetweenIterationsIsSaid) {
  EXPECT_EQ(npu::turn_text({{"idle_attribution", {{"steps", 3}, {"turns_ns", 3600000}}}}),
            "between two iterations the device idles 1.800 ms per turn (2 turns) while the host takes its turn: in "
            "no iteration's window, 1.200 ms per iteration of the period");
  EXPECT_EQ(npu::turn_text({{"idle_attribution", {{"steps", 1}, {"turns_ns", 0}}}}), "");
  EXPECT_EQ(npu::turn_text({{"idle_attribution", {{"steps", 3}}}}), "");
  EXPECT_EQ(npu::turn_text({{"idle_attribution", "x"}}), "");
}

}  // namespace
