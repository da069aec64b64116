// The loaded-run summary: what was found and counted, and the profiler's own step
// breakdown. Built once as JSON; the text and Markdown views render that same document.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "model/input.h"
#include "model/model.h"

namespace npu {

// 2: durations in integer ns (`steps[].dur_ns`, `profiler_step_breakdown[].*_ns`; were µs `*_us`).
constexpr int kRunSummarySchemaVersion = 2;

nlohmann::json summarize_run(const RunModel& model, const Detection& input);

// A cluster: one summary per member (or its load error).
nlohmann::json summarize_cluster(const Detection& input, const std::vector<nlohmann::json>& members);

struct TextStyle {
  bool color = false;
};
std::string render_summary_text(const nlohmann::json& summary, const TextStyle& style);
std::string render_summary_markdown(const nlohmann::json& summary);

}  // namespace npu
