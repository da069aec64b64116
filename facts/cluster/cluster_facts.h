// The cluster analysis (the reduce step): from each rank's facts (only `run`, `steps`,
// `overall`, `communication` are read) and, when present, the profiler's own
// cluster_analysis_output files, builds the `cluster` facts section (docs/facts-cluster.md):
// rank x step breakdown, slow rank (Dixon votes + robust statistics), communication per group
// and operator, bandwidth per transport against the standard, slow links, small packets,
// retransmission. Rules and reports read only the resulting facts document.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/facts.h"
#include "model/cluster_reference.h"

namespace npu::cluster {

// One rank x step row of the time breakdown, kept compact: a scaled-up job has tens of
// thousands of steps per rank, which as JSON objects would cost more than the ranks' events.
struct StepRow {
  static constexpr int64_t kNoStep = INT64_MIN;  // the run has no step schedule
  int rank = -1;
  int64_t step = kNoStep;
  int64_t computing = 0, comm_not_overlapped = 0, free = 0, communication = 0, overlapped = 0, device_time = 0;
  // Pipeline parallelism: the receive time (Bubble; part of comm_not_overlapped) and the step
  // without it (Stage). 0 when the step has no receive or the source does not say.
  int64_t bubble = 0;
};

struct RankFacts {
  int rank = -1;
  std::string path;              // the rank folder / trace / facts file it came from
  nlohmann::json facts;          // the rank's facts, slimmed (see rank_facts_from)
  std::vector<StepRow> steps;    // the rank's steps[] (rank set by build_cluster_facts)
  std::vector<CommOp> comm_ops;  // its communication.ops[] (model/communication.h)
  std::vector<CommLink> links;   // its communication.links[] between two ranks (without_self_links)
};

// What the cluster analysis keeps of a rank's facts: run (without env/config), overall,
// communication (its operator and link records as rows, read by facts/communication_records.h;
// rank >= 0 overrides the records' own rank), the step split's totals, unavailable,
// and the steps as StepRows. Everything else (operators, dispatch, step evidence, ...) is
// dropped so memory stays small however many ranks there are.
RankFacts rank_facts_from(int rank, std::string path, const nlohmann::json& facts);

using npu::ClusterReference;  // model/cluster_reference.h

// The links between two ranks: a rank's copies to itself (src = dst, or transport LOCAL) are no
// link, and the link reduction skips them.
std::vector<CommLink> without_self_links(std::vector<CommLink> links);

// Standard link bandwidths (GB/s) of the reference advisor (msprof-analyze v2.1.0 constants):
// SDMA aggregates the intra-node links and is held to the HCCS value.
nlohmann::json standard_bandwidth();

// ranks: sorted by rank id, one per rank. warnings: discovery notes (duplicates, failures).
Facts build_cluster_facts(const std::vector<RankFacts>& ranks, const ClusterReference& ref,
                          const std::vector<std::string>& warnings, const std::string& input_path);

}  // namespace npu::cluster
