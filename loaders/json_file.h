// Small JSON documents (metadata, communication summaries): read whole with nlohmann::json,
// turning a syntax error into a LoadError with the byte offset.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace npu {

nlohmann::json read_json_file(const std::string& path);

// A scalar as text, the way a user would write it ("1", "true", "Level1"); objects and arrays
// are dumped compactly.
std::string json_scalar_text(const nlohmann::json& v);

}  // namespace npu
