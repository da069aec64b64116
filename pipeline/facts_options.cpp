#include "pipeline/facts_options.h"

#include <map>

#include "rules/rule_engine.h"

namespace npu::pipeline {
namespace {

// The field of FactsOptions each of facts_parameters() fills, in the same order.
void assign(FactsOptions& o, size_t i, const nlohmann::json& v) {
  switch (i) {
    case 0: o.vertical_lag_ns = v.get<Ns>(); break;
    case 1: o.dataloader_slow_ns = v.get<Ns>(); break;
    case 2: o.gc_min_ns = v.get<Ns>(); break;
    case 3: o.pmu_bound_ratio = v.get<double>(); break;
    default: break;
  }
}

const RuleMeta* find_owner(RuleEngine& engine, const std::string& id) {
  for (const auto* list : {&engine.verdicts(), &engine.rules()})
    for (const RuleMeta& m : *list)
      if (m.id == id) return &m;
  return nullptr;
}

}  // namespace

const std::vector<FactsParameter>& facts_parameters() {
  static const std::vector<FactsParameter> kParams = {{"dispatch.step_class", "vertical_lag_ns"},
                                                       {"schedule.dataloader", "slow_ns"},
                                                       {"schedule.gc", "min_ns"},
                                                       {"compute.no_bound", "bound_ratio"}};
  return kParams;
}

FactsOptions facts_options(const RuleOptions& o) {
  RuleEngine engine;
  add_rule_sources(engine, o);
  std::map<std::string, std::string> overrides;
  if (!read_overrides(o, overrides).empty()) overrides.clear();
  FactsOptions out;
  const auto& params = facts_parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    const RuleMeta* owner = find_owner(engine, params[i].owner);
    if (!owner) continue;  // --no-builtin: the facts keep the declared defaults
    nlohmann::json values = owner->params;
    if (!apply_param_overrides(owner->id, owner->param_specs, overrides, values).empty()) values = owner->params;
    if (values.contains(params[i].param)) assign(out, i, values[params[i].param]);
  }
  return out;
}

}  // namespace npu::pipeline
