// An inference run in the reports (facts.inference, docs/facts-inference.md): the serving header
// per phase ("decode, 32 requests: 10.743 ms/iteration, 2.98k tokens/s, 96.9% in graphs"), the
// steady-state window and what it left out, the holes said as work missing from the trace, and
// the per-iteration table of the Markdown report. Every figure is the facts'; none is computed
// here. The HTML section (reports/html/inference_section.cpp) uses the same sentences.
#pragma once
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace npu {

// "Serving (sglang)", "generate() loop (hf_generate)", "Graph capture (vllm)".
std::string inference_title(const nlohmann::json& inference);
// One phase of facts.inference.phases[] in a line: "decode, 29-32 requests: 10.450 ms/iteration,
// 2.95k tokens/s, 98.8% in graphs (median own window of 5 iterations)"; "" without iterations.
std::string phase_headline(const nlohmann::json& inference, const nlohmann::json& phase);
// "29: 10.450 ms, 30: 10.450 ms" (requests: median own window), "" for one batch size.
std::string batch_sizes_text(const nlohmann::json& phase);
// "steady state: iterations 2-5 of 5; left out: iteration 1 (warm-up: ...)"; "" without one.
std::string steady_state_text(const nlohmann::json& inference);
// "2316.259 ms of device idle before the iterations' own work is a hole: ..."; "" without holes.
std::string hole_text(const nlohmann::json& facts);
// "between two iterations the device idles 1.800 ms per turn (2 turns) while the host takes its
// turn: ..." (facts.idle_attribution.turns_ns: in no iteration's window); "" without turns.
std::string turn_text(const nlohmann::json& facts);
// "left out: warm-up: ..." for the i-th (0-based) iteration the steady state left out, else "".
std::string left_out_text(const nlohmann::json& inference, size_t i);
// A generate() call's prefill and time per token (medians over the calls), "" elsewhere.
std::string generate_call_text(const nlohmann::json& inference);
// The start-up capture's line ("graph capture: start-up, not serving: graphs 32 FULL, ...").
std::string capture_text(const nlohmann::json& inference);

// The terminal summary's lines; "" without facts.inference.
std::string inference_terminal_lines(const nlohmann::json& facts);
// The Markdown report's section ("## Serving (sglang)": headers, steady state, holes, the
// iterations' table); "" without facts.inference.
std::string inference_markdown(const nlohmann::json& facts);

}  // namespace npu
