#include "pipeline/compare_side.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/json_file.h"
#include "base/load_error.h"
#include "loaders/detect.h"
#include "pipeline/run_facts.h"

namespace npu::pipeline {
namespace {

constexpr uintmax_t kMaxFactsFileBytes = 64ull << 20;

// A .json file small enough to be a facts file whose "schema" is "npu-advisor.facts".
bool is_facts_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::path(path).extension() != ".json") return false;
  if (fs::file_size(path, ec) > kMaxFactsFileBytes || ec) return false;
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  if (text.find(kFactsSchema) == std::string::npos) return false;
  try {
    nlohmann::json j = read_json_file(path);
    return j.is_object() && j.value("schema", "") == kFactsSchema;
  } catch (const LoadError&) {
    return false;
  }
}

}  // namespace

compare::CompareSide load_compare_side(const std::string& path, const LoadSettings& settings,
                                       const RuleOptions& rules) {
  compare::CompareSide side;
  side.path = path;
  if (is_facts_file(path)) {
    side.facts = read_facts(path);
    side.kind = "facts file";
    const auto& in = side.facts.doc.value("input", nlohmann::json::object());
    side.description = in.value("description", std::string("facts written by npu-advisor facts"));
  } else {
    Detection d = detect_input(path);
    if (d.kind == InputKind::Cluster)
      throw LoadError::whole_file(path, "is a cluster: compare one rank (its folder or its facts file) at a time");
    RunModel m = load(d, settings);
    side.warnings = m.stats.warnings;
    side.rejected = m.stats.rejected;
    side.facts = run_facts(m, path, d);
    side.kind = to_string(d.kind);
    side.description = d.description;
  }
  RuleEngine engine;
  std::vector<RuleOutcome> outcomes;
  if (std::string why = run_rules(engine, side.facts, rules, &outcomes); !why.empty())
    throw LoadError::whole_file(path, "the rules could not be run on this side: " + why);
  side.findings = ranked_findings(outcomes);
  return side;
}

}  // namespace npu::pipeline
