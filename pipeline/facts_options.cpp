#include "pipeline/facts_options.h"

#include <map>

#include "rules/rule_engine.h"

namespace npu::pipeline {
namespace {

const RuleMeta* find_owner(RuleEngine& engine, const std::string& id) {
  for (const auto* list : {&engine.verdicts(), &engine.rules()})
    for (const RuleMeta& m : *list)
      if (m.id == id) return &m;
  return nullptr;
}

}  // namespace

const std::vector<FactsParameter>& facts_parameters() {
  using json = nlohmann::json;
  static const std::vector<FactsParameter> kParams = {
      {"dispatch.step_class", "vertical_lag_ns",
       [](FactsOptions& o, const json& v) { o.vertical_lag_ns = v.get<Ns>(); }},
      {"schedule.dataloader", "slow_ns", [](FactsOptions& o, const json& v) { o.dataloader_slow_ns = v.get<Ns>(); }},
      {"schedule.gc", "min_ns", [](FactsOptions& o, const json& v) { o.gc_min_ns = v.get<Ns>(); }},
      {"compute.no_bound", "bound_ratio", [](FactsOptions& o, const json& v) { o.pmu_bound_ratio = v.get<double>(); }},
      {"compute.roofline_gemm", "target_fraction",
       [](FactsOptions& o, const json& v) { o.roofline_target_fraction = v.get<double>(); }}};
  return kParams;
}

FactsOptions facts_options(const RuleOptions& o) {
  RuleEngine engine;
  add_rule_sources(engine, o);
  return facts_options(engine, o);
}

FactsOptions facts_options(RuleEngine& engine, const RuleOptions& o) {
  std::map<std::string, std::string> overrides;
  if (!read_overrides(o, overrides).empty()) overrides.clear();
  FactsOptions out;
  for (const FactsParameter& p : facts_parameters()) {
    const RuleMeta* owner = find_owner(engine, p.owner);
    if (!owner) continue;  // --no-builtin: the facts keep the declared defaults
    nlohmann::json values = owner->params;
    if (!apply_param_overrides(owner->id, owner->param_specs, overrides, values).empty()) values = owner->params;
    if (values.contains(p.param)) p.set(out, values[p.param]);
  }
  return out;
}

}  // namespace npu::pipeline
