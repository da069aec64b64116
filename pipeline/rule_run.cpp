#include "pipeline/rule_run.h"

#include <fstream>
#include <map>
#include <stdexcept>

#include "base/load_error.h"

namespace npu::pipeline {
namespace {

// A config file holds one "rule.id.param = value" per line; '#' starts a comment.
void read_config(const std::string& path, std::map<std::string, std::string>& overrides) {
  std::ifstream f(path);
  if (!f) throw LoadError::whole_file(path, "cannot open config file");
  std::string line;
  uint64_t n = 0;
  while (std::getline(f, line)) {
    ++n;
    auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::string compact;
    for (char c : line)
      if (c != ' ' && c != '\t' && c != '\r') compact += c;
    if (compact.empty()) continue;
    try {
      parse_override(compact, overrides);
    } catch (const std::invalid_argument& e) {
      throw LoadError::at_line(path, n, e.what());
    }
  }
}

}  // namespace

void add_rule_sources(RuleEngine& engine, const RuleOptions& o) {
  if (!o.no_builtin) engine.add_builtin_rules();
  for (const auto& dir : o.dirs) engine.add_rule_dir(dir);
}

std::string read_overrides(const RuleOptions& o, std::map<std::string, std::string>& overrides) {
  if (!o.config.empty()) read_config(o.config, overrides);
  for (const auto& s : o.sets) {
    try {
      parse_override(s, overrides);
    } catch (const std::invalid_argument& e) {
      return std::string("--set ") + e.what();
    }
  }
  return "";
}

std::string run_rules(RuleEngine& engine, const Facts& facts, const RuleOptions& o, std::vector<RuleOutcome>* outcomes,
                      bool sources_added) {
  if (!sources_added) add_rule_sources(engine, o);
  RuleRunOptions run;
  if (std::string err = read_overrides(o, run.overrides); !err.empty()) return err;
  // A mistyped value, a parameter out of its declared range or an unknown name is an error
  // before anything runs (the rule would otherwise fail quietly in the report).
  if (std::string err = engine.check_overrides(run.overrides); !err.empty()) return "--set " + err;
  *outcomes = engine.run(facts, run);
  return "";
}

}  // namespace npu::pipeline
