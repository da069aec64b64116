// What a rule file declares in `rule { ... }` (or a verdict file in `verdict { ... }`): read
// once per file, checked field by field, so a wrong type is the file's error, never a silent
// default.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "rules/rule_engine.h"

namespace npu {

// A string field of a rule's table (rule{} or emit{}): `def` when absent; an error text in
// `err` when present with another type (a number as a title must not end the whole report).
std::string string_field(const nlohmann::json& t, const char* key, const std::string& def, const char* what,
                         std::string& err);

// Loads the chunk into `sb` (its `keyword { ... }` call records the table) and fills `meta`; the
// chunk must define the global function `function` (check, decide). Returns an error text or "".
std::string load_declaration(LuaSandbox& sb, const RuleSource& src, const char* keyword, const char* function,
                             RuleMeta& meta);

}  // namespace npu
