// The CLI's commands. Argument parsing lives in main.cpp; each command calls the pipeline
// (pipeline/) and prints: no loading or analysis logic here.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/capture.h"
#include "compare/gate.h"
#include "pipeline/cluster_analysis.h"
#include "pipeline/load_settings.h"
#include "pipeline/rule_run.h"
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

using pipeline::RuleOptions;

// The pipeline's load settings for the CLI's options: its threads, and a progress line on stderr
// for slow loads (cli/progress_line.h).
pipeline::LoadSettings load_settings(const CommonOptions& common);

// Cluster analysis (pipeline/cluster_analysis.h).
using pipeline::ClusterAnalysis;
using pipeline::ClusterOptions;
using pipeline::RunOfList;

int cmd_inspect(const std::string& path, const CommonOptions& common, bool json);
int cmd_facts(const std::string& path, const CommonOptions& common, const std::string& out_file);
// `whatif PATH [--apply a,b]` (docs/whatif.md): exit 2 when a name in `apply` cannot be applied.
int cmd_whatif(const std::string& path, const std::vector<std::string>& apply, const CommonOptions& common,
               const OutputOptions& out);
int cmd_analyze(const std::string& path, const CommonOptions& common, const OutputOptions& out,
                const RuleOptions& rules, const ClusterOptions& cluster = {});
// `capture -o OUT -- CMD` and `analyze OUT -- CMD` (docs/collector.md). Exit codes:
// collector::final_exit_code.
int cmd_capture(const collector::CaptureOptions& opt);
int cmd_analyze_command(const collector::CaptureOptions& opt, const CommonOptions& common, const OutputOptions& out,
                        const RuleOptions& rules);
int cmd_rules_list(const RuleOptions& rules);
int cmd_rules_show(const std::string& id, const RuleOptions& rules);
int cmd_rules_doc(const RuleOptions& rules);
int cmd_rules_test(const std::string& dir);

// `compare BASE NEW` and `gate --baseline BASE NEW` (docs/compare-gate.md). A side is any single
// input `analyze` takes, or a facts file written by `facts` (pipeline/compare_side.h); the
// loaders' warnings are printed, -q or not.
compare::CompareSide load_compare_side(const std::string& path, const CommonOptions& common, const RuleOptions& rules);
int cmd_compare(const std::string& base, const std::string& next, const CommonOptions& common, const OutputOptions& out,
                const RuleOptions& rules, bool keep_warmup);
struct GateOptions {
  std::string config;                       // --config FILE
  std::vector<std::string> max_regression;  // --max-regression METRIC=VALUE (repeatable)
  std::string fail_on_finding_saving;       // --fail-on-finding-saving 10%
  bool new_findings_only = false;
  bool keep_warmup = false;
  bool allow_partial = false;         // --allow-partial: gate even when the loaders rejected records
  std::string junit, markdown, json;  // output files
};
int cmd_gate(const std::string& base, const std::string& next, const CommonOptions& common, const RuleOptions& rules,
             const GateOptions& gate);

// `verify BASE NEW` and `verify -o DIR -- CMD` (docs/verify.md): did the fixes save what the
// baseline's findings predicted? Exit codes: 0 every fix has a verdict (and --require holds),
// 1 a verdict is not one --require allows, 2 bad input, nothing captured, or runs that did
// different work, 4 a run with a fix failed or the verify was stopped (what was measured is
// reported).
enum VerifyExit { kVerifyPartial = 4 };
struct VerifyOptions {
  std::string base, next;              // BASE NEW mode
  std::string out_dir;                 // -o DIR (command mode)
  std::vector<std::string> env;        // --env K=V (repeatable)
  std::string fixes;                   // --fixes auto
  std::vector<std::string> after;      // --after 'CMD2' (repeatable)
  std::string fix_rule;                // --fix RULE_ID: the finding the --after / NEW run fixes
  std::string whatif;                  // --whatif NAME: the replay's transformation the --after / NEW run applies
  std::vector<std::string> require;    // --require VERDICT (repeatable)
  std::string format;                  // text | json | html
  bool allow_different_work = false;
  bool keep_warmup = false;
  int runs = 1;                        // --runs N (command mode): captures per run, their steps pooled
};
int cmd_verify(const VerifyOptions& v, collector::CaptureOptions cap, const CommonOptions& common,
               const RuleOptions& rules);

// `mcp --allow DIR...` (docs/mcp.md): serves the Model Context Protocol on stdin/stdout until stdin ends.
int cmd_mcp(const std::vector<std::string>& allow);

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
