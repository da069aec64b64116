// The facts schema: every key path of a facts document with its type, unit and meaning, kept
// as data in facts/schema/<section>.json (compiled into the binary) and described in
// docs/facts.md. It makes the facts contract checkable: validate_facts() reports keys the schema
// does not know and values of the wrong type, rules may only `need` key paths it lists, and rule
// fixtures are validated with it.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu {

// One key path. Paths are dotted; `[]` stands for every element of an array and `*` for every key
// of a map (an object whose keys are data, such as run.env): "steps[].free_ns", "run.env.*".
struct FactsSchemaKey {
  std::string path, section, unit, meaning;
  std::vector<std::string> types;      // integer number string boolean null object array map any
  bool required = false;               // present whenever its parent object is
  std::vector<std::string> keys_seen;  // maps: keys seen on real inputs (documentation only)
};

class FactsSchema {
 public:
  // The schema compiled into the binary (facts/schema/*.json).
  static const FactsSchema& builtin();
  // Builds a schema from section documents ({section, schema_version, keys[], types?}); throws
  // std::invalid_argument naming the section and key when one is malformed.
  static FactsSchema from_sections(const std::vector<nlohmann::json>& sections);

  int version() const { return version_; }
  const std::vector<FactsSchemaKey>& keys() const { return keys_; }
  const FactsSchemaKey* find(const std::string& schema_path) const;
  // Whether a rule's `needs` path ("dispatch.overall.host_bound_free_ns": object keys only, as
  // the rule engine resolves them) names a key of the schema.
  bool has_need_path(std::string_view dotted) const;
  // The required keys directly below schema_path.
  const std::vector<const FactsSchemaKey*>& required_children(const std::string& schema_path) const;

 private:
  int version_ = 0;
  std::vector<FactsSchemaKey> keys_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::vector<const FactsSchemaKey*>> required_;
};

// The key paths released under schema_version `version` (facts/schema/released/vN.keys, compiled
// in), empty for a version without a list.
std::vector<std::string> released_facts_keys(int version);

// Reads a document of an older schema_version as the current one (docs/facts.md, version policy):
// every key its version released that `schema` no longer has is left out, wherever the document
// holds it (`[]` every element, `*` every map key). Returns how many values were left out; a key
// the newer version renamed is left out too, not carried over.
size_t drop_keys_unknown_since(nlohmann::json& doc, int version, const FactsSchema& schema);

// Checks a facts document against the schema; each problem is one "path: message" line
// ("steps[2].free_ns: expected integer, got string", "overall.fre_ns: unknown key").
// check_required also reports required keys that are missing: true for documents the
// diagnostics wrote, false for hand-written partial facts (rule fixtures).
std::vector<std::string> validate_facts(const nlohmann::json& doc, const FactsSchema& schema, bool check_required);

}  // namespace npu
