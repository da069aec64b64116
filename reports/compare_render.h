// Text and Markdown renderings of a compare document (docs/compare-gate.md).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu::reports {

std::string render_compare_text(const nlohmann::json& compare_doc);
std::string render_compare_markdown(const nlohmann::json& compare_doc);

// The compare document's inference section (compare_inference_text.cpp); "" unless both runs
// are inference runs.
std::string inference_compare_text(const nlohmann::json& compare_doc);
std::string inference_compare_markdown(const nlohmann::json& compare_doc);

}  // namespace npu::reports
