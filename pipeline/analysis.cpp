// The analysis entry: the one chain load -> facts -> rules -> report (pipeline/analysis.h).
#include "pipeline/analysis.h"

#include <charconv>

#include "base/load_error.h"
#include "pipeline/facts_options.h"
#include "pipeline/run_summary.h"
#include "reports/report_document.h"

namespace npu::pipeline {
namespace {

using nlohmann::json;

// Nothing a diagnostic could read: no trace event, kernel, step time, operator statistic, memory
// or communication record. 200 empty rank folders once made a cluster report of zeros, exit 0;
// a single empty run made a report of zeros too.
bool holds_no_data(const RunModel& m) {
  return m.stats.trace_events == 0 && m.slices.empty() && m.kernels.empty() && m.step_trace.empty() &&
         m.op_statistics.empty() && m.memory_records.empty() && m.operator_memory.empty() && m.module_memory.empty() &&
         m.counters.empty() && !m.communication.ops && !m.communication.links;
}

bool wanted(Keep k, bool ranked) { return k == Keep::Always || (k == Keep::UnlessRanked && !ranked); }

// The stages after the facts: the rules, then the report (the facts and views moved into it).
// `loaded`: an engine that holds the options' rule sources already (else one is made here).
void rules_and_report(Analysis& a, const AnalysisOptions& opt, RuleEngine* loaded = nullptr) {
  if (opt.stop == StopAfter::Load || opt.stop == StopAfter::Facts) return;
  RuleEngine own;
  a.rules_error = run_rules(loaded ? *loaded : own, a.facts, opt.rules, &a.outcomes, loaded != nullptr);
  if (!a.rules_error.empty() || opt.stop == StopAfter::Rules) return;
  a.report = build_report(a.summary, std::move(a.facts), a.outcomes, std::move(a.views));
  a.facts = Facts{};
  a.views = nullptr;
}

// The facts' settings: the thresholds the rule options' declared parameters (defaults, --config,
// --set) give, resolved here once per run from the rules the run then runs (pipeline/facts_options.h).
FactsSettings facts_settings(const AnalysisOptions& opt, RuleEngine& rules) {
  FactsSettings s = opt.facts;
  s.options = facts_options(rules, opt.rules);
  s.options.peaks_path = opt.rules.peaks;
  return s;
}

// One run: the load, its summary, its facts (and views), then the rules. The model is gone before
// the rules run unless it is kept.
Analysis analyze_run(const std::string& path, const Detection& d, const AnalysisOptions& opt) {
  Analysis a;
  a.input = d;
  if (opt.accept_input && !opt.accept_input(d, nullptr)) {
    a.refused = true;
    return a;
  }
  RuleEngine rules;  // the run's rules, loaded once: their declared parameters are the facts' thresholds
  bool rules_loaded = false;
  {
    RunModel m = load(d, opt.load);
    if (opt.accept_input && !opt.accept_input(d, &m)) {
      a.refused = true;
      return a;
    }
    if (holds_no_data(m))
      throw LoadError::whole_file(path, "holds no profiler data (no trace events, kernels or step times)");
    a.warnings = m.stats.warnings;
    a.rejected = m.stats.rejected;
    const bool by_rank = opt.summary == Keep::UnlessRanked || opt.views == Keep::UnlessRanked;
    const bool ranked = by_rank && run_rank(run_metadata_json(m)) >= 0;
    if (wanted(opt.summary, ranked)) a.summary = summarize_run(m, d);
    if (opt.stop != StopAfter::Load) {
      add_rule_sources(rules, opt.rules);
      rules_loaded = true;
      a.facts = run_facts(m, path, d, facts_settings(opt, rules), wanted(opt.views, ranked) ? &a.views : nullptr);
    }
    if (opt.keep_model) a.model.emplace(std::move(m));
  }
  rules_and_report(a, opt, rules_loaded ? &rules : nullptr);
  return a;
}

// A cluster (docs/facts-cluster.md): each rank through analyze_run in its own process
// (pipeline/cluster_analysis.cpp), the reduce, then the rules on the cluster facts; a folder that
// is no cluster becomes its runs, each taken to the same stop.
Analysis analyze_cluster(const Detection& d, const AnalysisOptions& opt) {
  Analysis a;
  a.input = d;
  a.is_cluster = true;
  // Every rank runs the single-run rules (its own causes): the rule options are checked once
  // here, on an empty document, so a bad --set is one error and not one per rank.
  if (opt.stop == StopAfter::Rules || opt.stop == StopAfter::Report) {
    RuleEngine engine;
    std::vector<RuleOutcome> none;
    a.rules_error = run_rules(engine, Facts{}, opt.rules, &none);
    if (!a.rules_error.empty()) return a;
  }
  ClusterOptions copt = opt.cluster;
  copt.rules = opt.rules;
  a.cluster =
      copt.facts_dir.empty() ? analyze_cluster_input(d, opt.load, copt) : reduce_facts_dir(copt.facts_dir, copt);
  for (auto& run : a.cluster.runs) {
    Analysis r = analyze_facts(std::move(run.facts), std::move(run.summary), std::move(run.views), opt);
    r.input.path = run.path;
    a.runs.push_back(std::move(r));
  }
  a.cluster.runs.clear();
  if (a.is_run_list()) return a;
  a.facts = std::move(a.cluster.facts);
  a.summary = std::move(a.cluster.summary);
  rules_and_report(a, opt);
  return a;
}

}  // namespace

int run_rank(const json& run) {
  if (!run.is_object()) return -1;
  int rank = run.value("rank", -1);
  if (rank >= 0) return rank;
  const json dist = run.value("distributed", json::object());
  if (!dist.is_object()) return -1;
  if (auto it = dist.find("rank"); it != dist.end()) {
    std::string t = it->is_string() ? it->get<std::string>() : it->dump();
    int v = -1;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc() && p == t.data() + t.size() && v >= 0) return v;
  }
  return -1;
}

Analysis analyze(const std::string& path, const AnalysisOptions& opt) {
  if (!opt.cluster.facts_dir.empty()) {
    if (!opt.clusters) throw LoadError::whole_file(opt.cluster.facts_dir, "is a cluster: " + opt.if_cluster);
    Detection d;
    d.path = opt.cluster.facts_dir;
    d.cluster = true;
    return analyze_cluster(d, opt);
  }
  Detection d = detect(path);
  if (!d.cluster) return analyze_run(path, d, opt);
  if (!opt.clusters) throw LoadError::whole_file(path, "is a cluster: " + opt.if_cluster);
  return analyze_cluster(d, opt);
}

Analysis analyze_facts(Facts facts, json summary, json views, const AnalysisOptions& opt) {
  Analysis a;
  a.facts = std::move(facts);
  a.summary = std::move(summary);
  a.views = std::move(views);
  rules_and_report(a, opt);
  return a;
}

}  // namespace npu::pipeline
