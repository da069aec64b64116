// Runs the rules on a facts document with the user's rule options: built-in and --rules DIR
// sources, a --config file and --set overrides (each override must name a rule that exists).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "facts/facts.h"
#include "rules/rule_engine.h"

namespace npu::pipeline {

struct RuleOptions {
  std::vector<std::string> dirs;  // --rules DIR (repeatable)
  std::vector<std::string> sets;  // --set rule.id.param=value
  std::string config;             // --config FILE
  bool no_builtin = false;
  std::string peaks;              // --peaks FILE: the device peaks the roofline uses (docs/facts-roofline.md)
};

void add_rule_sources(RuleEngine& engine, const RuleOptions& o);

// The overrides of the options ("rule.id.param" -> text): the config file's, then --set's over
// them. Returns "" or why not (a bad --set). A config file that cannot be read throws LoadError.
std::string read_overrides(const RuleOptions& o, std::map<std::string, std::string>& overrides);

// Fills `outcomes`; returns "" when the rules ran, else why not (a bad --set), to be printed as
// "error: <why>". A config file that cannot be read throws LoadError naming the file and line.
// `sources_added`: the engine holds the options' rule sources already (add_rule_sources).
std::string run_rules(RuleEngine& engine, const Facts& facts, const RuleOptions& o, std::vector<RuleOutcome>* outcomes,
                      bool sources_added = false);

}  // namespace npu::pipeline
