// The HTML report's step timeline section (docs/reports.md "Step timeline"): the static frame
// around the picture that reports/templates/timeline.js draws from facts.timeline.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace npu {

// The <section id="timeline"> of an analysis report, or "" when facts.timeline is absent.
std::string html_timeline_section(const nlohmann::json& report);

}  // namespace npu
