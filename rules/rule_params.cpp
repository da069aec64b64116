#include "rules/rule_params.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace npu {
namespace {

using nlohmann::json;

const char* type_of(const json& v) {
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  return nullptr;
}

// A number as a declaration or a message writes it: 0.1, 20, 1e-04 (no trailing zeros).
std::string number_text(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::string value_text(const json& v) { return v.is_number() ? number_text(v.get<double>()) : v.dump(); }

std::string parse_one(const std::string& name, const json& decl, ParamSpec& p) {
  p.name = name;
  const std::string where = "parameter '" + name + "'";
  if (!decl.is_object()) {  // the plain form: name = default
    const char* t = type_of(decl);
    if (!t) return where + " must be a number, integer, boolean or string, or { default = ..., doc = ... }";
    p.type = t;
    p.default_value = decl;
    return "";
  }
  static const char* kKeys[] = {"default", "type", "min", "max", "doc"};
  for (const auto& [k, v] : decl.items())
    if (std::find(std::begin(kKeys), std::end(kKeys), k) == std::end(kKeys))
      return where + ": unknown key '" + k + "' (default, type, min, max, doc)";
  if (!decl.contains("default")) return where + " has no default";
  p.default_value = decl["default"];
  const char* t = type_of(p.default_value);
  if (!t) return where + ": the default must be a number, integer, boolean or string";
  p.type = t;
  if (decl.contains("type")) {
    if (!decl["type"].is_string()) return where + ": 'type' must be a string";
    const std::string want = decl["type"].get<std::string>();
    if (want != "number" && want != "integer" && want != "boolean" && want != "string")
      return where + ": type '" + want + "' is none of number, integer, boolean, string";
    // 0.5 is no integer; 3 is a fine number (a Lua integer literal where a float is meant).
    if (want != p.type && !(want == "number" && p.type == "integer"))
      return where + ": the default " + value_text(p.default_value) + " is no " + want;
    p.type = want;
    if (want == "number") p.default_value = p.default_value.get<double>();
  }
  for (const char* k : {"min", "max"}) {
    if (!decl.contains(k)) continue;
    if (!decl[k].is_number()) return where + ": '" + k + "' must be a number";
    if (p.type != "number" && p.type != "integer") return where + ": '" + k + "' is for numbers only";
    (std::string(k) == "min" ? p.min : p.max) = decl[k].get<double>();
  }
  if (decl.contains("doc")) {
    if (!decl["doc"].is_string()) return where + ": 'doc' must be a string";
    p.doc = decl["doc"].get<std::string>();
  }
  if (p.type == "number" || p.type == "integer") {
    const double d = p.default_value.get<double>();
    if ((p.min && d < *p.min) || (p.max && d > *p.max)) return where + ": the default is out of its own range";
  }
  return "";
}

}  // namespace

std::string parse_param_specs(const json& params, std::vector<ParamSpec>& out) {
  out.clear();
  if (params.is_null() || (params.is_array() && params.empty())) return "";
  if (!params.is_object()) return "'params' must be a table of name = { default = ..., doc = ... }";
  for (const auto& [name, decl] : params.items()) {  // nlohmann's objects iterate in name order
    ParamSpec p;
    if (std::string err = parse_one(name, decl, p); !err.empty()) return err;
    out.push_back(std::move(p));
  }
  return "";
}

json param_defaults(const std::vector<ParamSpec>& specs) {
  json out = json::object();
  for (const auto& p : specs) out[p.name] = p.default_value;
  return out;
}

json parse_param_value(const ParamSpec& p, const std::string& text) {
  if (p.type == "string") return text;
  if (p.type == "boolean") {
    if (text == "true" || text == "yes" || text == "1") return true;
    if (text == "false" || text == "no" || text == "0") return false;
    throw std::invalid_argument("must be true or false, not \"" + text + "\"");
  }
  double v = 0;
  size_t pos = 0;
  try {
    v = std::stod(text, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  // nan would make every comparison false (silently disabling the rule), inf overflows.
  if (pos == 0 || pos != text.size() || !std::isfinite(v))
    throw std::invalid_argument("must be a" + std::string(p.type == "integer" ? "n integer" : " finite number") +
                                ", not \"" + text + "\"");
  if (p.type == "integer" && (std::floor(v) != v || std::fabs(v) > 9.0e15))
    throw std::invalid_argument("must be an integer, not \"" + text + "\"");
  if ((p.min && v < *p.min) || (p.max && v > *p.max)) {
    std::string range = p.min && p.max ? "between " + number_text(*p.min) + " and " + number_text(*p.max)
                        : p.min        ? "at least " + number_text(*p.min)
                                       : "at most " + number_text(*p.max);
    throw std::invalid_argument("must be " + range + ", not " + text);
  }
  if (p.type == "integer") return static_cast<int64_t>(v);
  return v;
}

std::string apply_param_overrides(const std::string& owner, const std::vector<ParamSpec>& specs,
                                  const std::map<std::string, std::string>& overrides, json& params) {
  const std::string prefix = owner + ".";
  for (const auto& [key, text] : overrides) {
    if (key.rfind(prefix, 0) != 0) continue;
    const std::string name = key.substr(prefix.size());
    auto it = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& p) { return p.name == name; });
    if (it == specs.end()) {
      std::string names;
      for (const auto& p : specs) names += (names.empty() ? "" : ", ") + p.name;
      return key + ": " + owner + " has no parameter " + name + " (it has: " + (names.empty() ? "none" : names) + ")";
    }
    try {
      params[name] = parse_param_value(*it, text);
    } catch (const std::invalid_argument& e) {
      return key + ": " + owner + "'s parameter " + name + " " + e.what();
    }
  }
  return "";
}

std::string params_markdown(const std::vector<ParamSpec>& specs) {
  if (specs.empty()) return "No parameters.\n";
  std::string out = "| parameter | type | default | range | meaning |\n|---|---|---|---|---|\n";
  for (const auto& p : specs) {
    std::string range;
    if (p.min && p.max) range = number_text(*p.min) + " .. " + number_text(*p.max);
    else if (p.min) range = "≥ " + number_text(*p.min);
    else if (p.max) range = "≤ " + number_text(*p.max);
    std::string doc = p.doc;
    for (char& c : doc)
      if (c == '\n' || c == '|') c = c == '|' ? '/' : ' ';
    out += fmt::format("| `{}` | {} | `{}` | {} | {} |\n", p.name, p.type, value_text(p.default_value), range, doc);
  }
  return out;
}

}  // namespace npu
