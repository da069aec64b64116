#include "loaders/json_file.h"

#include "loaders/byte_source.h"
#include "loaders/load_error.h"

namespace npu {

nlohmann::json read_json_file(const std::string& path) {
  std::string text = read_small_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line 1, column 5: ".
    auto colon = what.find(": ");
    std::string msg = colon == std::string::npos ? what : what.substr(colon + 2);
    throw LoadError::at_byte(path, e.byte > 0 ? e.byte - 1 : 0, "invalid JSON: " + msg);
  }
}

std::string json_scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

}  // namespace npu
