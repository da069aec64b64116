#include "rules/rule_fixtures.h"

#include <algorithm>
#include <filesystem>

#include "base/byte_source.h"
#include "base/json_file.h"
#include "base/load_error.h"
#include "facts/facts_schema.h"
#include "rules/rule_engine.h"

namespace npu {
namespace fs = std::filesystem;

namespace {

FixtureResult run_one(const fs::path& rule, const fs::path& fixture) {
  FixtureResult r;
  r.rule_file = rule.string();
  r.fixture = fixture.filename().string();
  bool expect_fire = r.fixture.find(".fires") != std::string::npos;
  nlohmann::json fx;
  try {
    fx = read_json_file(fixture.string());
  } catch (const LoadError& e) {
    r.message = e.what();
    return r;
  }
  Facts facts;
  facts.doc = fx.value("facts", nlohmann::json::object());
  // A fixture's facts are hand-written: they must be facts the diagnostics could write (keys and
  // types of the facts schema), or the rule is tested against data that never occurs. Fixtures
  // are partial, so missing keys are fine.
  if (auto problems = validate_facts(facts.doc, FactsSchema::builtin(), false); !problems.empty()) {
    r.message = "facts do not match the facts schema: " + problems[0];
    if (problems.size() > 1) r.message += " (and " + std::to_string(problems.size() - 1) + " more)";
    return r;
  }
  RuleEngine engine;
  engine.add_rule_source({rule.string(), read_small_file(rule.string())}, false);
  RuleRunOptions opt;
  const auto& metas = engine.rules();
  if (fx.contains("params") && !metas.empty())
    for (auto& [k, v] : fx["params"].items()) opt.overrides[metas[0].id + "." + k] = v.is_string() ? v.get<std::string>() : v.dump();
  auto outcomes = engine.run(facts, opt);
  const RuleOutcome& o = outcomes.at(0);
  if (o.status == RuleOutcome::Status::Failed || o.status == RuleOutcome::Status::Skipped ||
      o.status == RuleOutcome::Status::NotApplicable) {
    r.message = std::string(to_string(o.status)) + ": " + o.reason;
    return r;
  }
  const nlohmann::json expect = fx.value("expect", nlohmann::json::object());
  size_t n = o.findings.size();
  if (expect_fire && n == 0) {
    r.message = "expected findings, got none";
    return r;
  }
  if (!expect_fire && n > 0) {
    r.message = "expected no finding, got: " + o.findings[0]["observed"].get<std::string>();
    return r;
  }
  if (expect.contains("findings") && n != expect["findings"].get<size_t>()) {
    r.message = "expected " + expect["findings"].dump() + " findings, got " + std::to_string(n);
    return r;
  }
  for (const auto& text : expect.value("contains", nlohmann::json::array())) {
    std::string t = text.get<std::string>();
    bool found = false;
    for (const auto& f : o.findings) found |= f.dump().find(t) != std::string::npos;
    if (!found) {
      r.message = "no finding mentions \"" + t + "\"";
      return r;
    }
  }
  // Advice that must not be given (e.g. traffic advice for a stalled collective).
  for (const auto& text : expect.value("not_contains", nlohmann::json::array())) {
    std::string t = text.get<std::string>();
    for (const auto& f : o.findings)
      if (f.dump().find(t) != std::string::npos) {
        r.message = "a finding mentions \"" + t + "\", which it must not";
        return r;
      }
  }
  for (const auto& f : o.findings) {
    int64_t s = f["saving_ns"].get<int64_t>();
    if (expect.contains("min_saving_ns") && s < expect["min_saving_ns"].get<int64_t>()) {
      r.message = "saving " + std::to_string(s) + " ns below min_saving_ns " + expect["min_saving_ns"].dump();
      return r;
    }
    if (expect.contains("max_saving_ns") && s > expect["max_saving_ns"].get<int64_t>()) {
      r.message = "saving " + std::to_string(s) + " ns above max_saving_ns " + expect["max_saving_ns"].dump();
      return r;
    }
  }
  r.passed = true;
  r.message = std::to_string(n) + " finding(s)";
  return r;
}

}  // namespace

std::vector<FixtureResult> run_rule_fixtures(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw LoadError::whole_file(dir, "rule folder not found");
  std::vector<fs::path> rules;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".lua") rules.push_back(e.path());
  std::sort(rules.begin(), rules.end());
  std::vector<FixtureResult> out;
  for (const auto& rule : rules) {
    std::vector<fs::path> fixtures;
    for (const auto& e : fs::directory_iterator(rule.parent_path(), ec)) {
      std::string n = e.path().filename().string();
      std::string stem = rule.stem().string();
      if (n.rfind(stem + ".", 0) == 0 && e.path().extension() == ".json") fixtures.push_back(e.path());
    }
    std::sort(fixtures.begin(), fixtures.end());
    bool fires = false, quiet = false;
    for (const auto& f : fixtures) {
      std::string n = f.filename().string();
      fires |= n.find(".fires") != std::string::npos;
      quiet |= n.find(".quiet") != std::string::npos;
      out.push_back(run_one(rule, f));
    }
    if (!fires || !quiet) {
      FixtureResult r;
      r.rule_file = rule.string();
      r.fixture = "(none)";
      r.message = std::string("missing fixture: every rule needs ") + (fires ? "" : "NAME.fires.json ") +
                  (quiet ? "" : "NAME.quiet.json");
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace npu
