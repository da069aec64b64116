// The HTML report's step timeline section (docs/reports.md "Step timeline"): the static frame
// around the picture that reports/templates/timeline*.js draw from views.timeline (docs/views.md).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu {

// The <section id="timeline"> of an analysis report, or "" when views.timeline is absent.
std::string html_timeline_section(const nlohmann::json& report);

// `compare BASE NEW -o cmp.html`: the compare text and the two runs' timelines (views.timeline
// of each side, null when absent) one above the other on one time scale.
std::string render_compare_html(const nlohmann::json& compare_doc, const nlohmann::json& base_timeline,
                                const nlohmann::json& next_timeline);

}  // namespace npu
