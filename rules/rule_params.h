// Parameters of rules and verdicts, declared once in the rule file with their type, range and
// meaning (as ESLint's meta.schema or clang-tidy's options):
//   params = { factor = { default = 0.5, min = 0, max = 1, doc = "share of the idle time a fix recovers" },
//              max_count = { default = 3, type = "integer", min = 1, doc = "..." } }
// The plain form `factor = 0.5` (no range, no meaning) is still read, for users' rules. Values
// from --set and --config are checked against the declaration before anything runs.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu {

struct ParamSpec {
  std::string name;
  std::string type;  // "number", "integer", "boolean" or "string"
  nlohmann::json default_value;
  std::optional<double> min, max;
  std::string doc;
};

// Reads a declaration's `params` table (name -> declaration or plain default) into `out`, in
// name order. Returns "" or what is wrong, naming the parameter.
std::string parse_param_specs(const nlohmann::json& params, std::vector<ParamSpec>& out);

// name -> default, the table a rule's check() receives before overrides.
nlohmann::json param_defaults(const std::vector<ParamSpec>& specs);

// The value `text` sets `spec` to; throws std::invalid_argument saying why it is no such value
// ("must be an integer, not \"2.5\"", "must be between 0 and 1, not 2").
nlohmann::json parse_param_value(const ParamSpec& spec, const std::string& text);

// Applies the overrides "owner.NAME" = text of one rule or verdict over `params`. Returns "" or
// a one-line error naming the owner and the parameter.
std::string apply_param_overrides(const std::string& owner, const std::vector<ParamSpec>& specs,
                                  const std::map<std::string, std::string>& overrides, nlohmann::json& params);

// A Markdown table of the parameters (| parameter | type | default | range | meaning |), or a line
// saying there are none.
std::string params_markdown(const std::vector<ParamSpec>& specs);

}  // namespace npu
