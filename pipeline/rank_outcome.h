// What the analysis of one member of a cluster folder hands back (pipeline/cluster_analysis.cpp),
// and its bytes: it is made in a child process (pipeline/child_processes.h) and read in the parent.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "facts/cluster/cluster_facts.h"
#include "pipeline/cluster_analysis.h"

namespace npu::pipeline {

struct RankOutcome {
  std::string error;                // not empty: the member could not be analysed, and why
  cluster::RankFacts rank;          // the slim facts and step rows the cluster keeps
  std::optional<RunOfList> full;    // a member without a rank id: the run, should the folder be no cluster
  std::vector<std::pair<uint64_t, uint64_t>> input_files;  // what it read (base/input_registry.h)
};

// Lossless both ways: the JSON parts as CBOR (exact doubles, same keys and values), the step
// rows as they lie in memory (tens of thousands per rank, too many to spell out as JSON), the
// communication records field by field.
std::string encode_rank_outcome(const RankOutcome& r);
RankOutcome decode_rank_outcome(const std::string& bytes);

}  // namespace npu::pipeline
