// The one analysis entry (docs/architecture.md, "The analysis entry"): input -> detection ->
// model -> facts (+ views) -> rules -> report. Every command that analyses something calls it
// (cli analyze, facts, whatif, compare, gate; the MCP tools; each side of a comparison; each
// rank of a cluster), so load -> facts -> rules is written here once; the options say where to
// stop and what to keep.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/facts.h"
#include "model/input.h"
#include "model/model.h"
#include "pipeline/cluster_analysis.h"
#include "pipeline/load_settings.h"
#include "pipeline/rule_run.h"
#include "pipeline/run_facts.h"
#include "rules/rule_engine.h"

namespace npu::pipeline {

// The last stage run. Report: the report document (reports/report_document.h), the facts and
// views moved into it.
enum class StopAfter { Load, Facts, Rules, Report };

// When a run's summary or views are made. UnlessRanked: only for a run that names no rank id (a
// rank is only ever a cluster member, never drawn or summarised on its own).
enum class Keep { Never, Always, UnlessRanked };

struct AnalysisOptions {
  StopAfter stop = StopAfter::Report;
  LoadSettings load;
  // How the facts measure (run_facts.h): the one place options of compute_facts pass through.
  FactsSettings facts;
  RuleOptions rules;
  Keep summary = Keep::Always;
  Keep views = Keep::Never;
  bool keep_model = false;  // whatif replays the model; otherwise it is gone before the rules run
  // A cluster input (several ranks, or cluster.facts_dir): analysed when `clusters`, else a
  // LoadError "PATH: is a cluster: <if_cluster>".
  bool clusters = false;
  ClusterOptions cluster;  // its rules are `rules`
  std::string if_cluster = "analyze one rank folder at a time";
  // Called after the load with the model (the output guard: -o must not name a file the loaders
  // read); false ends the analysis there, Analysis::refused.
  std::function<bool(const Detection&, const RunModel*)> accept_input;
};

struct Analysis {
  Detection input;                    // the detection (path, kind); a facts folder: only its path
  std::optional<RunModel> model;      // keep_model
  std::vector<std::string> warnings;  // the loaders' (model.stats.warnings)
  std::vector<std::string> rejected;  // the records the loaders rejected
  nlohmann::json summary;             // the run summary (null when not kept)
  Facts facts;                        // moved into `report` at StopAfter::Report
  nlohmann::json views;               // null when not made; moved into `report`
  std::vector<RuleOutcome> outcomes;
  nlohmann::json report;
  std::string rules_error;  // not empty: the rule options are bad (a --set), nothing ran after the facts
  bool refused = false;     // accept_input said no
  // A cluster input: its warnings and whether a rank failed; a folder that turned out to be a
  // list of runs (cluster.runs), each analysed to the same stop.
  ClusterAnalysis cluster;
  bool is_cluster = false;
  std::vector<Analysis> runs;
  bool is_run_list() const { return !runs.empty(); }
};

// `path` detected (a LoadError when it is nothing known), then analysed. With
// opt.cluster.facts_dir, that folder of per-rank facts is reduced instead (`path` unused).
Analysis analyze(const std::string& path, const AnalysisOptions& opt);

// The stages after the facts for facts made elsewhere (a facts file, a run of a list read from a
// facts folder): the rules and the report, as analyze() runs them.
Analysis analyze_facts(Facts facts, nlohmann::json summary, nlohmann::json views, const AnalysisOptions& opt);

// The rank id a facts document's "run" section names: run.rank, else run.distributed.rank, else -1.
int run_rank(const nlohmann::json& run);

}  // namespace npu::pipeline
