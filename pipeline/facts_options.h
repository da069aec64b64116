// The thresholds the facts measure with (facts/diagnostics/facts_options.h), resolved from their
// one home: each is a declared parameter of a rule or a verdict, read here with the user's rule
// options (its default, the --config file, --set) before the facts are computed, so one --set
// moves the facts, the verdicts, the views and the rule text together.
#pragma once
#include <string>
#include <vector>

#include "facts/diagnostics/facts_options.h"
#include "pipeline/rule_run.h"

namespace npu::pipeline {

// A declared parameter the facts read: "owner.param" (owner: a rule or verdict id), and the field
// of FactsOptions it sets.
struct FactsParameter {
  const char* owner;
  const char* param;
  void (*set)(FactsOptions& o, const nlohmann::json& value);
};
// Every parameter the facts read.
const std::vector<FactsParameter>& facts_parameters();

// The options the facts of a run measure with under the rule options `o`. A value the
// declaration refuses (or a bad --set) is left at its default here: the rules refuse it after,
// with one error (pipeline/rule_run.h).
FactsOptions facts_options(const RuleOptions& o);
// The same from an engine that holds the options' rule sources already (add_rule_sources): the
// analysis entry loads the rules once and uses them for the facts and then to run.
FactsOptions facts_options(RuleEngine& engine, const RuleOptions& o);

}  // namespace npu::pipeline
