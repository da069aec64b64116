// Text and Markdown renderings of a compare document (docs/compare-gate.md).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu::reports {

std::string render_compare_text(const nlohmann::json& compare_doc);
std::string render_compare_markdown(const nlohmann::json& compare_doc);

}  // namespace npu::reports
