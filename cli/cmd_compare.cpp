// `npu-advisor compare BASE NEW`: what got slower, and why (docs/compare-gate.md).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "pipeline/input_stamp.h"
#include "reports/html_timeline.h"
#include "facts/diagnostics/diagnostics.h"
#include "base/json_file.h"
#include "base/load_error.h"

namespace npu::cli {
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

compare::CompareSide load_compare_side(const std::string& path, const CommonOptions& common, const RuleOptions& rules) {
  compare::CompareSide side;
  side.path = path;
  if (!common.quiet) std::fprintf(stderr, "loading %s\n", path.c_str());
  if (is_facts_file(path)) {
    side.facts = read_facts(path);
    side.kind = "facts file";
    const auto& in = side.facts.doc.value("input", nlohmann::json::object());
    side.description = in.value("description", std::string("facts written by npu-advisor facts"));
  } else {
    Detection d = detect_input(path);
    if (d.kind == InputKind::Cluster)
      throw LoadError::whole_file(path, "is a cluster: compare one rank (its folder or its facts file) at a time");
    RunModel m = load_run_for_cli(d, common);
    side.warnings = m.stats.warnings;
    side.facts = compute_facts(m);
    pipeline::stamp_input(side.facts, path, d);
    side.kind = to_string(d.kind);
    side.description = d.description;
  }
  // A comparison of data the loaders had to cut is said so, -q or not.
  for (const auto& w : side.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  RuleEngine engine;
  std::vector<RuleOutcome> outcomes;
  if (run_rules(engine, side.facts, rules, &outcomes) != kOk)
    throw LoadError::whole_file(path, "the rules could not be run on this side");
  side.findings = ranked_findings(outcomes);
  return side;
}

int cmd_compare(const std::string& base, const std::string& next, const CommonOptions& common, const OutputOptions& out,
                const RuleOptions& rules, bool keep_warmup) {
  std::string fmt = output_format(out);
  compare::CompareSide b = load_compare_side(base, common, rules);
  compare::CompareSide n = load_compare_side(next, common, rules);
  compare::CompareOptions opt;
  opt.skip_warmup = !keep_warmup;
  nlohmann::json doc = compare::build_compare(b, n, opt);
  auto render = [&](const std::string& f) {
    if (f == "html")
      return render_compare_html(doc, b.facts.doc.value("timeline", nlohmann::json()), n.facts.doc.value("timeline", nlohmann::json()));
    return f == "json" ? json_text(doc) + "\n" : f == "md" ? compare::render_compare_markdown(doc) : compare::render_compare_text(doc);
  };
  if (!out.out_file.empty()) {
    if (!write_output(out.out_file, render(fmt))) return kBadInput;
    if (!common.quiet) {
      write_output("", compare::render_compare_text(doc));
      std::fprintf(stderr, "compare written to %s\n", out.out_file.c_str());
    }
    return kOk;
  }
  return write_output("", render(fmt)) ? kOk : kBadInput;
}

}  // namespace npu::cli
