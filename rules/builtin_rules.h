// The built-in rules, compiled into the binary from rules/lua/ (cmake/embed_rules.cmake).
#pragma once
#include <string_view>
#include <vector>

namespace npu {

struct BuiltinRule {
  std::string_view path;  // relative to rules/lua/, e.g. "dispatch/task_queue.lua"
  std::string_view code;
};

const std::vector<BuiltinRule>& builtin_rules();

}  // namespace npu
