// The loaded-run summary: what was found and counted, and the profiler's own step
// breakdown. Built once as JSON from the model (pipeline/run_summary.h); the text and Markdown
// views here render that same document.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu {

// 2: durations in integer ns (`steps[].dur_ns`, `profiler_step_breakdown[].*_ns`; were µs `*_us`).
constexpr int kRunSummarySchemaVersion = 2;

struct TextStyle {
  bool color = false;
};
std::string render_summary_text(const nlohmann::json& summary, const TextStyle& style);
std::string render_summary_markdown(const nlohmann::json& summary);

}  // namespace npu
