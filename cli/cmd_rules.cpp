// `npu-advisor rules list|show|test|doc`.
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "base/load_error.h"
#include "cli/commands.h"
#include "rules/rule_fixtures.h"

namespace npu::cli {

int cmd_rules_list(const RuleOptions& o) {
  RuleEngine engine;
  pipeline::add_rule_sources(engine, o);
  std::string out = fmt::format("{:<34} {:<13} {:<8} {}\n", "ID", "CATEGORY", "SEVERITY", "TITLE / NEEDS");
  for (const auto& m : engine.rules()) {
    std::string needs;
    for (const auto& n : m.needs) needs += (needs.empty() ? "" : ", ") + n;
    out += fmt::format("{:<34} {:<13} {:<8} {}\n", m.id, m.category, m.severity, m.title);
    out += fmt::format("{:<34} {:<13} {:<8}   needs: {}{}\n", "", "", "", needs.empty() ? "-" : needs,
                       m.platforms.empty() ? "" : "; platforms: " + nlohmann::json(m.platforms).dump());
  }
  write_output("", out);
  return kOk;
}

int cmd_rules_show(const std::string& id, const RuleOptions& o) {
  RuleEngine engine;
  pipeline::add_rule_sources(engine, o);
  for (const auto& m : engine.rules()) {
    if (m.id != id) continue;
    std::string out =
        fmt::format("{}: {}\ncategory: {}   severity: {}   file: {}\n", m.id, m.title, m.category, m.severity, m.file);
    std::string needs;
    for (const auto& n : m.needs) needs += (needs.empty() ? "" : ", ") + n;
    out += "needs: " + (needs.empty() ? std::string("-") : needs) + "\n";
    if (!m.platforms.empty()) out += "platforms: " + nlohmann::json(m.platforms).dump() + "\n";
    out += "parameters (override with --set " + m.id + ".NAME=VALUE):\n" + params_markdown(m.param_specs);
    out += "\n" + m.doc + "\n";
    write_output("", out);
    return kOk;
  }
  std::fprintf(stderr, "error: no rule with id %s (see `npu-advisor rules list`)\n", id.c_str());
  return kBadInput;
}

int cmd_rules_doc(const RuleOptions& o) {
  RuleEngine engine;
  pipeline::add_rule_sources(engine, o);
  std::string out = "### Parameters of the verdicts (decided once per run, before the rules)\n";
  for (const auto& m : engine.verdicts())
    out += fmt::format("\n#### `{}`: {}\n\n", m.id, m.title) + params_markdown(m.param_specs);
  out += "\n### Parameters of the rules\n";
  for (const auto& m : engine.rules())
    out += fmt::format("\n#### `{}`: {}\n\n", m.id, m.title) + params_markdown(m.param_specs);
  write_output("", out);
  return kOk;
}

int cmd_rules_test(const std::string& dir) {
  auto results = run_rule_fixtures(dir);
  int passed = 0, failed = 0;
  std::string out;
  for (const auto& r : results) {
    out += fmt::format("{} {} {}: {}\n", r.passed ? "PASS" : "FAIL", r.rule_file, r.fixture, r.message);
    (r.passed ? passed : failed)++;
  }
  out += fmt::format("{} passed, {} failed\n", passed, failed);
  write_output("", out);
  return failed == 0 ? kOk : kGated;
}

}  // namespace npu::cli
