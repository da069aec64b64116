#include "rules/rule_fixtures.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "base/byte_source.h"
#include "base/json_file.h"
#include "base/load_error.h"
#include "facts/facts_schema.h"
#include "rules/rule_engine.h"

namespace npu {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// A list of cases in a test file: the status each case must end in and the keys it may have
// (a misspelled expectation must fail, not be ignored).
struct CaseGroup {
  const char* key;
  RuleOutcome::Status status;
  std::set<std::string> keys;
  bool required;
};

const std::vector<CaseGroup>& case_groups() {
  static const std::vector<CaseGroup> groups = {
      {"fires",
       RuleOutcome::Status::Fired,
       {"name", "facts", "params", "findings", "contains", "not_contains", "min_saving_ns", "max_saving_ns"},
       true},
      {"quiet", RuleOutcome::Status::Quiet, {"name", "facts", "params"}, true},
      {"skipped", RuleOutcome::Status::Skipped, {"name", "facts", "params", "reason"}, true},
      {"not_applicable", RuleOutcome::Status::NotApplicable, {"name", "facts", "params", "reason"}, false},
  };
  return groups;
}

bool mentions(const json& finding, const std::string& text) { return finding.dump().find(text) != std::string::npos; }

// What a "fires" case expects of the findings; "" when all hold.
std::string check_findings(const json& c, const std::vector<json>& findings) {
  if (c.contains("findings") && findings.size() != c["findings"].get<size_t>())
    return "expected " + c["findings"].dump() + " findings, got " + std::to_string(findings.size());
  for (const auto& text : c.value("contains", json::array())) {
    std::string t = text.get<std::string>();
    bool found = false;
    for (const auto& f : findings) found |= mentions(f, t);
    if (!found) return "no finding mentions \"" + t + "\"";
  }
  // Advice that must not be given (e.g. torch advice to a MindSpore run).
  for (const auto& text : c.value("not_contains", json::array())) {
    std::string t = text.get<std::string>();
    for (const auto& f : findings)
      if (mentions(f, t)) return "a finding mentions \"" + t + "\", which it must not";
  }
  for (const auto& f : findings) {
    int64_t s = f["saving_ns"].get<int64_t>();
    if (c.contains("min_saving_ns") && s < c["min_saving_ns"].get<int64_t>())
      return "saving " + std::to_string(s) + " ns below min_saving_ns " + c["min_saving_ns"].dump();
    if (c.contains("max_saving_ns") && s > c["max_saving_ns"].get<int64_t>())
      return "saving " + std::to_string(s) + " ns above max_saving_ns " + c["max_saving_ns"].dump();
  }
  return "";
}

// Runs one case; returns "" when the rule behaved as the case says, else what went wrong
// (`summary` gets what it did).
std::string run_case(const RuleSource& rule, const CaseGroup& group, const json& c, std::string& summary) {
  for (const auto& [key, value] : c.items())
    if (!group.keys.count(key)) return "unknown key \"" + key + "\" in a " + group.key + " case";
  Facts facts;
  facts.doc = c.value("facts", json::object());
  // A case's facts are hand-written: they must be facts the diagnostics could write (keys and
  // types of the facts schema), or the rule is tested against data that never occurs. Cases are
  // partial, so missing keys are fine.
  if (auto problems = validate_facts(facts.doc, FactsSchema::builtin(), false); !problems.empty()) {
    std::string why = "facts do not match the facts schema: " + problems[0];
    if (problems.size() > 1) why += " (and " + std::to_string(problems.size() - 1) + " more)";
    return why;
  }
  RuleEngine engine;
  engine.add_rule_source(rule, false);
  RuleRunOptions opt;
  const std::string& id = engine.rules().at(0).id;
  const json params = c.value("params", json::object());
  // A dotted name is a whole key: a verdict's parameter (dispatch.step_class.host_bound_free_ratio).
  for (const auto& [k, v] : params.items())
    opt.overrides[k.find('.') == std::string::npos ? id + "." + k : k] = v.is_string() ? v.get<std::string>() : v.dump();
  const RuleOutcome o = engine.run(facts, opt).at(0);
  summary = std::string(to_string(o.status)) + (o.reason.empty() ? "" : ": " + o.reason);
  if (o.status != group.status) {
    std::string got = summary;
    if (!o.findings.empty()) got += " (" + o.findings[0]["observed"].get<std::string>() + ")";
    return std::string("expected ") + to_string(group.status) + ", got " + got;
  }
  if (c.contains("reason") && o.reason.find(c["reason"].get<std::string>()) == std::string::npos)
    return "the reason \"" + o.reason + "\" does not mention \"" + c["reason"].get<std::string>() + "\"";
  if (group.status == RuleOutcome::Status::Fired) summary = std::to_string(o.findings.size()) + " finding(s)";
  return check_findings(c, o.findings);
}

// A rule's id and category follow its path: DIR/<category>/<name>.lua declares id
// "<category>.<name>" and category "<category>"; a rule directly in DIR an id ending in
// ".<name>". Returns "" when they do.
std::string check_rule_path(const fs::path& dir, const fs::path& file, const RuleMeta& meta) {
  std::string name = file.stem().string();
  fs::path parent = file.parent_path().lexically_relative(dir);
  if (parent.empty() || parent == ".") {
    const std::string suffix = "." + name;
    bool ends =
        meta.id.size() > suffix.size() && meta.id.compare(meta.id.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (meta.id != name && !ends)
      return "rule id \"" + meta.id + "\" does not end in \"" + suffix + "\" (the file's name)";
    return "";
  }
  std::string category = file.parent_path().filename().string();
  if (meta.id != category + "." + name)
    return "rule id \"" + meta.id + "\" does not match its path: expected \"" + category + "." + name + "\"";
  if (meta.category != category)
    return "rule category \"" + meta.category + "\" does not match its folder: expected \"" + category + "\"";
  return "";
}

// Every case of one rule's test file, plus a failure per missing required group.
void run_test_file(const fs::path& dir, const fs::path& rule_file, std::vector<FixtureResult>& out) {
  auto fail = [&](const std::string& fixture, const std::string& message) {
    out.push_back({rule_file.string(), fixture, false, message});
  };
  RuleSource rule{rule_file.string(), read_small_file(rule_file.string())};
  RuleEngine probe;
  probe.add_rule_source(rule, false);
  if (std::string err = check_rule_path(dir, rule_file, probe.rules().at(0)); !err.empty()) fail("(path)", err);
  fs::path test_file = rule_file;
  test_file.replace_extension(".test.json");
  json tests;
  try {
    tests = read_json_file(test_file.string());
  } catch (const LoadError& e) {
    fail(test_file.filename().string(), std::string("every rule has a test file beside it: ") + e.what());
    return;
  }
  if (!tests.is_object()) {
    fail(test_file.filename().string(), "a test file is an object: {\"rule\": ID, \"fires\": [...], ...}");
    return;
  }
  for (const auto& item : tests.items()) {
    const std::string& key = item.key();  // a plain name: clang 14 cannot capture a structured binding
    if (key != "rule" &&
        std::none_of(case_groups().begin(), case_groups().end(), [&](const CaseGroup& g) { return key == g.key; }))
      fail(test_file.filename().string(), "unknown key \"" + key + "\" (rule, fires, quiet, skipped, not_applicable)");
  }
  if (tests.value("rule", "") != probe.rules().at(0).id)
    fail(test_file.filename().string(), "\"rule\" must name the rule's id \"" + probe.rules().at(0).id + "\"");
  for (const auto& group : case_groups()) {
    const json cases = tests.value(group.key, json::array());
    if (group.required && cases.empty())
      fail(std::string(group.key) + ": (none)",
           std::string("no ") + group.key + " case: every rule has a fires, a quiet and a skipped case");
    for (const auto& c : cases) {
      FixtureResult r{rule_file.string(), std::string(group.key) + ": " + c.value("name", "(no name)"), false, ""};
      std::string summary, err;
      try {
        err = c.is_object() && c.contains("name") ? run_case(rule, group, c, summary)
                                                  : "every case is an object with a \"name\"";
      } catch (const json::exception& e) {
        err = std::string("malformed case: ") + e.what();
      }
      r.passed = err.empty();
      r.message = r.passed ? summary : err;
      out.push_back(std::move(r));
    }
  }
}

}  // namespace

std::vector<FixtureResult> run_rule_fixtures(const std::string& dir) {
  std::vector<FixtureResult> out;
  for (const auto& file : rule_files(dir)) {
    // A test file of the wrong shape (a number as the rule, a word as a group) is that file's
    // failure, not an internal error of the command.
    try {
      run_test_file(dir, file, out);
    } catch (const nlohmann::json::exception& e) {
      out.push_back(FixtureResult{file, "(test file)", false, "malformed test file: " + json_error_text(e)});
    }
  }
  return out;
}

}  // namespace npu
