// The frame of every HTML page npu-advisor writes (analysis report, run list, cluster members,
// compare): the template reports/templates/report.html with its CSS and scripts inlined around a
// body, and the document embedded as JSON (#report-data) for the scripts to draw from.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu {

// The page around `body` with `data` embedded as #report-data; `title` is plain text.
std::string html_page(const std::string& title, const std::string& body, const nlohmann::json& data);

namespace html {
// cluster_page.cpp: a cluster input given as a run summary (schema npu-advisor.run-summary with
// members[]): each member's summary as the text view shows it.
std::string cluster_members_page(const nlohmann::json& summary);
}  // namespace html

}  // namespace npu
