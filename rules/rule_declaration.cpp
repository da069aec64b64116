#include "rules/rule_declaration.h"

#include <algorithm>
#include <tuple>

#include <lua.hpp>

#include "rules/attribution.h"
#include "rules/replay_saving.h"
#include "rules/rule_params.h"

namespace npu {

// A string field of a rule's table (rule{} or emit{}): `def` when absent; an error text in
// `err` when present with another type (a number as a title must not end the whole report).
std::string string_field(const nlohmann::json& t, const char* key, const std::string& def, const char* what,
                         std::string& err) {
  auto it = t.find(key);
  if (it == t.end() || it->is_null()) return def;
  if (it->is_string()) return it->get<std::string>();
  if (err.empty()) err = std::string(what) + ": '" + key + "' must be a string, not " + it->type_name();
  return def;
}

namespace {

constexpr const char* kRuleDecl = "__npu_rule";

// `rule { ... }` (`verdict { ... }`) stores its table; the engine reads it after the chunk ran.
int lua_rule_decl(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, kRuleDecl);
  return 0;
}

std::vector<std::string> string_list(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& v : j)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

// The declaration's fields into `meta`; returns an error text or "".
std::string read_fields(const RuleSource& src, const nlohmann::json& d, RuleMeta& meta);

}  // namespace

std::string load_declaration(LuaSandbox& sb, const RuleSource& src, const char* keyword, const char* function,
                             RuleMeta& meta) {
  lua_State* L = sb.L();
  lua_pushcfunction(L, lua_rule_decl);
  lua_setglobal(L, keyword);
  if (!sb.run_chunk(src.code, src.path)) return sb.error();
  lua_getfield(L, LUA_REGISTRYINDEX, kRuleDecl);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return src.path + ": no " + keyword + " { id = ..., ... } declaration";
  }
  nlohmann::json d;
  bool converted = sb.to_json(-1, d);
  lua_pop(L, 1);
  if (!converted) return src.path + ": rule declaration: " + sb.error();
  if (d.is_array() && d.empty()) d = nlohmann::json::object();
  if (!d.is_object())
    return src.path + ": rule declaration: " + keyword + "{} takes named fields (id = ..., title = ...)";
  if (std::string err = read_fields(src, d, meta); !err.empty()) return err;
  lua_getglobal(L, function);
  bool has_function = lua_isfunction(L, -1);
  lua_pop(L, 1);
  if (!has_function)
    return src.path + ": " + keyword + " " + meta.id + " defines no " + function + "(facts, params" +
           (std::string(function) == "check" ? ", emit" : "") + ") function";
  return "";
}

namespace {

std::string read_fields(const RuleSource& src, const nlohmann::json& d, RuleMeta& meta) {
  meta.file = src.path;
  std::string err;
  meta.id = string_field(d, "id", "", "rule declaration", err);
  meta.title = string_field(d, "title", "", "rule declaration", err);
  meta.category = string_field(d, "category", "general", "rule declaration", err);
  meta.severity = string_field(d, "severity", "medium", "rule declaration", err);
  meta.doc = string_field(d, "doc", "", "rule declaration", err);
  if (!err.empty()) return src.path + ": " + err;
  // The declaration's words are copied into every finding the rule makes (up to 1000): a 64 KiB
  // title made one 300-byte rule file a 261 MB report. Short, as the words they are.
  for (const auto& [key, value, cap] : {std::tuple<const char*, const std::string*, size_t>{"id", &meta.id, 128},
                                        {"title", &meta.title, 300},
                                        {"category", &meta.category, 64},
                                        {"severity", &meta.severity, 64}})
    if (value->size() > cap)
      return src.path + ": rule declaration: '" + key + "' is " + std::to_string(value->size()) +
             " bytes long (at most " + std::to_string(cap) + ")";
  // Lists are lists of strings, params a table of name = default, residual a boolean: a wrong
  // type is the rule's error, never a silent default (platforms = "gpu" ran it everywhere).
  for (const char* key : {"needs", "platforms", "frameworks"}) {
    const auto it = d.find(key);
    if (it == d.end() || it->is_null()) continue;
    const bool empty_table = it->is_object() && it->empty();
    if ((!it->is_array() && !empty_table) ||
        std::any_of(it->begin(), it->end(), [](const auto& v) { return !v.is_string(); }))
      return src.path + ": rule declaration: '" + key + "' must be a list of strings ({ \"a\", \"b\" })";
  }
  if (std::string err = parse_param_specs(d.value("params", nlohmann::json()), meta.param_specs); !err.empty())
    return src.path + ": rule declaration: " + err;
  if (d.contains("residual") && !d["residual"].is_null() && !d["residual"].is_boolean())
    return src.path + ": rule declaration: 'residual' must be true or false";
  meta.needs = string_list(d.value("needs", nlohmann::json::array()));
  meta.platforms = string_list(d.value("platforms", nlohmann::json::array()));
  meta.frameworks = string_list(d.value("frameworks", nlohmann::json::array()));
  meta.params = param_defaults(meta.param_specs);
  meta.pool = string_field(d, "pool", "", "rule declaration", err);
  if (!err.empty()) return src.path + ": " + err;
  if (meta.pool.size() > 64) return src.path + ": rule declaration: 'pool' is too long (at most 64 bytes)";
  // A saving is drawn from a pool the step split has (rules/attribution.h): an unknown name
  // would escape the cap (a 1000 ms saving in a 14 ms step ranked first).
  if (!meta.pool.empty() && !is_split_pool(meta.pool))
    return src.path + ": rule declaration: " + pool_problem(meta.pool);
  if (meta.pool.empty())
    meta.pool = meta.category == "communication" || meta.category == "cluster" ? "communication"
                : meta.category == "compute"                                   ? "compute"
                                                                               : "idle";
  meta.residual = d.value("residual", false);
  meta.whatif = string_field(d, "whatif", "", "rule declaration", err);
  if (!err.empty()) return src.path + ": " + err;
  if (!meta.whatif.empty() && !is_whatif_transform(meta.whatif))
    return src.path + ": rule declaration: whatif '" + meta.whatif + "' is no transformation of the replay (" +
           whatif_transform_list() + ")";
  if (meta.id.empty()) return src.path + ": rule declaration has no id";
  if (meta.title.empty()) return src.path + ": rule " + meta.id + " has no title";
  return "";
}

}  // namespace

}  // namespace npu
