// The CLI's commands. Argument parsing lives in main.cpp; each command only wires loaders,
// analyses and reports together (no analysis logic here).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "collector/capture.h"
#include "compare/gate.h"
#include "loaders/run_loader.h"
#include "rules/rule_engine.h"

namespace npu::cli {

enum ExitCode { kOk = 0, kGated = 1, kBadInput = 2, kInternal = 3 };

struct CommonOptions {
  int threads = 0;
  bool quiet = false;
};

struct OutputOptions {
  std::string out_file;  // empty: terminal
  std::string format;    // text | json | md; empty: from the file extension, else text
};

struct RuleOptions {
  std::vector<std::string> dirs;  // --rules DIR (repeatable)
  std::vector<std::string> sets;  // --set rule.id.param=value
  std::string config;             // --config FILE
  bool no_builtin = false;
};

// Loads one run with the CLI's options (threads) and a progress line on stderr for slow loads.
RunModel load_run_for_cli(const Detection& d, const CommonOptions& common);

// Loads PATH (a run, a trace or a cluster) and returns its summary document; member load
// errors of a cluster are kept in the document. Throws LoadError for a bad single input.
nlohmann::json load_and_summarize(const std::string& path, const CommonOptions& common, bool* any_member_failed);

// Cluster analysis (cli/cluster_input.cpp, facts/cluster): per-rank facts, reduced.
struct ClusterOptions {
  std::string facts_dir;  // analyze --facts DIR: reduce a folder of per-rank *.facts.json
  int workers = 2;        // ranks loaded at once (memory: about this many ranks' worth)
  RuleOptions rules;      // the single-run rules run on each rank (its own causes, merged in the report)
};
// One run of a folder that is not a cluster (a list of runs): analysed on its own.
struct RunOfList {
  std::string path;
  nlohmann::json summary;  // the run summary (input, ...)
  Facts facts;             // the run's full facts
};
struct ClusterAnalysis {
  Facts facts;                        // the cluster facts document (docs/facts-cluster.md)
  nlohmann::json summary;             // the run summary: input and one member per rank
  std::vector<std::string> warnings;  // duplicates, renumbered ranks, ranks that failed to load
  bool member_failed = false;
  // Not a cluster: the files name fewer than two ranks (docs/facts-cluster.md, "What is a
  // cluster"). Then `runs` holds each run to analyse and report on its own, `facts` is empty.
  std::vector<RunOfList> runs;
  std::string not_cluster_why;
  bool is_run_list() const { return !runs.empty(); }
};
ClusterAnalysis analyze_cluster_input(const Detection& d, const CommonOptions& common, const ClusterOptions& opt);
ClusterAnalysis reduce_facts_dir(const std::string& dir, const ClusterOptions& opt);

int cmd_inspect(const std::string& path, const CommonOptions& common, bool json);
int cmd_facts(const std::string& path, const CommonOptions& common, const std::string& out_file);
int cmd_analyze(const std::string& path, const CommonOptions& common, const OutputOptions& out,
                const RuleOptions& rules, const ClusterOptions& cluster = {});
// `capture -o OUT -- CMD` and `analyze OUT -- CMD` (docs/collector.md). Exit codes:
// collector::final_exit_code.
int cmd_capture(const collector::CaptureOptions& opt);
int cmd_analyze_command(const collector::CaptureOptions& opt, const CommonOptions& common, const OutputOptions& out,
                        const RuleOptions& rules);
int cmd_rules_list(const RuleOptions& rules);
int cmd_rules_show(const std::string& id, const RuleOptions& rules);
int cmd_rules_test(const std::string& dir);
// Adds the rule sources, applies --set/--config, runs the rules. Returns an exit code.
int run_rules(RuleEngine& engine, const Facts& facts, const RuleOptions& rules, std::vector<RuleOutcome>* outcomes);

// `compare BASE NEW` and `gate --baseline BASE NEW` (docs/compare-gate.md). A side is any single
// input `analyze` takes, or a facts file written by `facts`.
compare::CompareSide load_compare_side(const std::string& path, const CommonOptions& common, const RuleOptions& rules);
int cmd_compare(const std::string& base, const std::string& next, const CommonOptions& common, const OutputOptions& out,
                const RuleOptions& rules, bool keep_warmup);
struct GateOptions {
  std::string config;                        // --config FILE
  std::vector<std::string> max_regression;   // --max-regression METRIC=VALUE (repeatable)
  std::string fail_on_finding_saving;        // --fail-on-finding-saving 10%
  bool new_findings_only = false;
  bool keep_warmup = false;
  std::string junit, markdown, json;         // output files
};
int cmd_gate(const std::string& base, const std::string& next, const CommonOptions& common, const RuleOptions& rules,
             const GateOptions& gate);

// A JSON document as text for a report: invalid UTF-8 from an input (a CSV cell, a DB string)
// is replaced (U+FFFD) instead of throwing, which lost the whole report (exit 3).
std::string json_text(const nlohmann::json& j, int indent = 1);

// Writes `text` to the file or stdout; returns false (after printing why) on failure.
bool write_output(const std::string& file, const std::string& text);
// True (after printing why) when the output file is one of the input files: `-o trace_view.json`
// must not overwrite the data it reports on. Before the load, the files detection named; after
// it, also every file the loaders read (`model`).
bool output_is_an_input(const std::string& out_file, const Detection& d, const RunModel* model = nullptr);
bool stdout_is_color_terminal();
// The report format: --format, else the output file's extension (.json .md .html), else text.
std::string output_format(const OutputOptions& out);

}  // namespace npu::cli
