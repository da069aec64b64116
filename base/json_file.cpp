#include "base/json_file.h"

#include "base/byte_source.h"
#include "base/load_error.h"
#include "base/text.h"

namespace npu {

size_t json_too_deep_at(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return std::string_view::npos;
}

nlohmann::json parse_json_or_discard(std::string_view text, size_t* too_deep_at) {
  size_t deep = json_too_deep_at(text);
  if (too_deep_at) *too_deep_at = deep;
  if (deep != std::string_view::npos) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, false);
}

std::string json_error_text(const nlohmann::json::exception& e) {
  const std::string what = e.what();
  const size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

nlohmann::json read_json_file(const std::string& path) {
  std::string text = read_small_file(path);
  if (size_t deep = json_too_deep_at(text); deep != std::string::npos)
    throw LoadError::at_byte(path, deep, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line 1, column 5: ".
    auto colon = what.find(": ");
    std::string msg = colon == std::string::npos ? what : what.substr(colon + 2);
    throw LoadError::at_byte(path, e.byte > 0 ? e.byte - 1 : 0, "invalid JSON: " + msg);
  } catch (const nlohmann::json::exception& e) {
    // Not a syntax error: a number out of range ("1e400"), with no byte offset to give.
    throw LoadError::whole_file(path, "invalid JSON: " + json_error_text(e));
  }
}

std::optional<int32_t> json_small_id(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u <= INT32_MAX) return static_cast<int32_t>(u);
  } else if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    if (i >= 0 && i <= INT32_MAX) return static_cast<int32_t>(i);
  }
  return std::nullopt;
}

std::string json_scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return text::clip(v.get_ref<const std::string&>());
  if (v.is_null()) return "";
  return text::clip(v.dump());
}

}  // namespace npu
