// The verify document (docs/verify.md) as terminal text and as an HTML section.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu::reports {

std::string render_verify_text(const nlohmann::json& verify_doc);
// A self-contained HTML page holding the verify section (a table of the fixes and their verdicts).
std::string render_verify_html(const nlohmann::json& verify_doc);

}  // namespace npu::reports
