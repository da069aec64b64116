// Renderings of a gate verdict (compare::evaluate_gate) next to its compare document: the
// terminal lines, JUnit XML, and a Markdown job summary (docs/compare-gate.md).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu::reports {

std::string render_gate_text(const nlohmann::json& gate, const nlohmann::json& compare_doc);
std::string render_gate_junit(const nlohmann::json& gate);
std::string render_gate_markdown(const nlohmann::json& gate, const nlohmann::json& compare_doc);

}  // namespace npu::reports
