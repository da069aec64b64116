// Cluster inputs (docs/facts-cluster.md): a parent folder of rank folders / traces (the direct
// analysis), a folder of per-rank facts files (the reduce step of map/reduce), and msprof-analyze's
// cluster_analysis_output (the reference). Only facts are kept per rank, never events.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/facts.h"
#include "model/input.h"
#include "pipeline/load_settings.h"
#include "pipeline/rule_run.h"

namespace npu::pipeline {

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
  nlohmann::json views;    // its view document (views/views.h); null for a run read from a facts file
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

// Ranks are loaded `opt.workers` at a time, each in a child process parsing with one thread
// (pipeline/child_processes.h: call it while the process has no other thread); `settings` is used
// (progress included) only for a run of a list that has to be loaded again in full.
ClusterAnalysis analyze_cluster_input(const Detection& d, const LoadSettings& settings, const ClusterOptions& opt);
ClusterAnalysis reduce_facts_dir(const std::string& dir, const ClusterOptions& opt);

}  // namespace npu::pipeline
