// Reading the numbers of a facts or report document the renderers are given: a document read
// back from a file (analyze --facts, compare) may hold anything, so a key that is missing, null or
// not a number reads as the default, never as an exception.
#pragma once
#include <nlohmann/json.hpp>

namespace npu {

inline bool has_json_number(const nlohmann::json& o, const char* key) {
  const auto v = o.find(key);
  return v != o.end() && v->is_number();
}

inline double json_number(const nlohmann::json& o, const char* key, double def = 0) {
  const auto v = o.find(key);
  return v != o.end() && v->is_number() ? v->get<double>() : def;
}

}  // namespace npu
