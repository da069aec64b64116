// Which members of a cluster folder are ranks of one job, and which are separate runs: ranks
// only where the files say so, one rank per id (docs/facts-cluster.md, "What is a cluster").
#pragma once
#include <string>
#include <vector>

#include "facts/cluster/cluster_facts.h"
#include "pipeline/cluster_analysis.h"

namespace npu::pipeline {

// One rank per id: duplicates keep the newest capture (with a warning); ranks without an id
// get the next free ids, in path order.
std::vector<cluster::RankFacts> resolve_ranks(std::vector<cluster::RankFacts> in, std::vector<std::string>& warnings);

struct Membership {
  bool cluster = false;
  std::string why;           // list of runs: why it is not a cluster
  std::vector<size_t> runs;  // list of runs: the members to analyse, in path order
};
Membership classify_members(const std::vector<cluster::RankFacts>& members, std::vector<std::string>& warnings);

// Runs that all name the same worker are successive captures of one process: said, so nobody
// reads them as ranks (tensorboard_trace_handler writes one file per capture).
void name_one_worker(ClusterAnalysis& out);

}  // namespace npu::pipeline
