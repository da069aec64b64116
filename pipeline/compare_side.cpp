#include "pipeline/compare_side.h"

#include <filesystem>
#include <optional>

#include "base/byte_source.h"
#include "base/json_file.h"
#include "base/load_error.h"
#include "pipeline/analysis.h"
#include "rules/verdicts.h"

namespace npu::pipeline {
namespace {

constexpr uintmax_t kMaxFactsFileBytes = 64ull << 20;

// The document of a facts file: a .json file small enough, whose "schema" is "npu-advisor.facts".
// Read and parsed once, for the check and the load; nothing for any other input.
std::optional<nlohmann::json> facts_file_doc(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::path(path).extension() != ".json") return std::nullopt;
  if (fs::file_size(path, ec) > kMaxFactsFileBytes || ec) return std::nullopt;
  const std::string text = read_small_file(path);
  if (text.find(kFactsSchema) == std::string::npos) return std::nullopt;  // a trace: not parsed here
  nlohmann::json j = parse_json_or_discard(text);
  // A file that says it is a facts file but does not parse (a number such as 1e400, a cut-off
  // end) is a broken facts file: said so, not read as a trace.
  if (j.is_discarded()) {
    try {
      (void)nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw LoadError::whole_file(path, "a facts file that is not valid JSON: " + json_error_text(e));
    }
  }
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != kFactsSchema) return std::nullopt;
  return j;
}

}  // namespace

compare::CompareSide load_compare_side(const std::string& path, const LoadSettings& settings,
                                       const RuleOptions& rules) {
  compare::CompareSide side;
  side.path = path;
  AnalysisOptions opt;
  opt.stop = StopAfter::Rules;
  opt.load = settings;
  opt.rules = rules;
  opt.summary = Keep::Never;
  opt.views = Keep::Always;
  opt.if_cluster = "compare one rank (its folder or its facts file) at a time";
  Analysis a;
  if (std::optional<nlohmann::json> doc = facts_file_doc(path)) {
    a = analyze_facts(facts_from_json(std::move(*doc), path), nullptr, nullptr, opt);
    side.kind = "facts file";
    const auto& in = a.facts.doc.value("input", nlohmann::json::object());
    side.description = in.value("description", std::string("facts written by npu-advisor facts"));
  } else {
    a = analyze(path, opt);
    side.kind = a.input.kind;
    side.description = a.input.description;
  }
  if (!a.rules_error.empty())
    throw LoadError::whole_file(path, "the rules could not be run on this side: " + a.rules_error);
  side.warnings = std::move(a.warnings);
  side.rejected = std::move(a.rejected);
  side.facts = std::move(a.facts);
  side.views = std::move(a.views);
  side.findings = ranked_findings(a.outcomes);
  side.verdicts = verdict_document(a.outcomes);
  return side;
}

}  // namespace npu::pipeline
