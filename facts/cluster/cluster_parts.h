// What the parts of the cluster analysis (build_cluster_facts, cluster_facts.cpp) share, and
// the parts themselves: rank x step rows and their alignment across ranks (rank_steps.cpp),
// pipeline stages (pipeline_stages.cpp), the communication reduced over ranks
// (communication_reduction.cpp), the groups' names (group_names.cpp), the step split
// (step_split.cpp) and the slow-rank verdict (slow_rank.cpp). Only facts/cluster/ includes it.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "facts/cluster/cluster_facts.h"

namespace npu::cluster {

using json = nlohmann::json;

// A number of a JSON object, 0 when absent or not a number.
inline int64_t i64(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<int64_t>() : 0;
}
inline double dbl(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}
// A step id as a sort key: what its JSON text was ("-" for none), so records group and order as before.
inline std::string step_text(int64_t step) {
  return step == StepRow::kNoStep ? std::string("-") : std::to_string(step);
}
inline json step_json(int64_t step) { return step == StepRow::kNoStep ? json(nullptr) : json(step); }

// The step-time metrics compared across ranks: their facts keys and StepRow fields.
inline const char* const kMetrics[] = {"computing_ns", "comm_not_overlapped_ns", "free_ns"};
inline constexpr int64_t StepRow::*kMetricFields[] = {&StepRow::computing, &StepRow::comm_not_overlapped,
                                                      &StepRow::free};
inline constexpr Ns ClusterStepRow::*kReferenceMetricFields[] = {
    &ClusterStepRow::computing_ns, &ClusterStepRow::comm_not_overlapped_ns, &ClusterStepRow::free_ns};

// ---- rank x step (rank_steps.cpp) ----

// Every rank's step rows, else the reference's cluster_step_trace_time.csv rows; sorted by
// (step, rank). source: where they came from.
std::vector<StepRow> rank_step_rows(const std::vector<RankFacts>& ranks, const ClusterReference& ref,
                                    std::string& source);

// Which steps are compared across ranks. Ranks are compared step by step (step N of every rank
// against step N of the others), never across steps: a warm-up step of one rank against a
// steady step of another is not an imbalance. A step id is compared only when every rank has
// it (partial steps, where a rank started or stopped capturing earlier, are left out), and the
// first of them is left out as warm-up (one-off costs: compilation, allocator growth, the first
// collective's link setup) when at least kMinStepsForWarmup steps remain after it.
struct Alignment {
  std::vector<int64_t> ids;           // the compared step ids, sorted
  std::vector<int64_t> partial;       // ids some rank lacks
  int64_t warmup = StepRow::kNoStep;  // the id left out as warm-up, if any
  json to_json(size_t rank_count) const;
};

Alignment align_steps(const std::vector<StepRow>& rows);
std::vector<StepRow> aligned_rows(const std::vector<StepRow>& rows, const Alignment& a);
json row_json(const StepRow& r);
// The step ids whose rows go into the facts: all of them up to a cap, else evenly spaced ones.
std::vector<int64_t> shown_steps(const std::vector<int64_t>& ids);
// Per rank: totals over all its steps and means per aligned step.
json rank_table(const std::vector<StepRow>& rows, const std::vector<StepRow>& aligned,
                const std::vector<RankFacts>& ranks);
// Per step across ranks (within a pipeline stage): the typical and worst max - min per metric.
json spread(const std::vector<StepRow>& aligned, const std::map<int, int>& stage_of);
// Median / MAD of the per-step means over ranks, with each rank's robust z.
json robust_stats(const json& rank_rows);

// ---- pipeline stages (pipeline_stages.cpp) ----

// rank -> stage index, from cluster_step_trace_time.csv's stage rows (in file order).
std::map<int, int> stage_map(const ClusterReference& ref);

// The pipeline stage of a rank (stage_map), -1 when there are no stages.
inline int stage_index(const std::map<int, int>& stage_of, int rank) {
  auto it = stage_of.find(rank);
  return it == stage_of.end() ? -1 : it->second;
}

// Bubble (receive time) per stage; null when no aligned row has a bubble.
json pipeline_section(const std::vector<StepRow>& aligned, const ClusterReference& ref,
                      const std::map<int, int>& stage_of);

// ---- communication over ranks (communication_reduction.cpp) ----

// Every rank's communication op records (rank id set), else the reference's.
std::vector<CommOp> communication_ops(const std::vector<RankFacts>& ranks, const ClusterReference& ref,
                                      std::string& source);
// Dixon votes per collective (votes: rank -> ops it was slow in; judged: ops tested) and the
// per-op table.
json judge_ops(const std::vector<CommOp>& ops, std::map<int, int>& votes, int& judged);
json groups_table(const std::vector<CommOp>& ops);
json bandwidth_table(const std::vector<CommOp>& ops);
json small_packets(const std::vector<CommOp>& ops);
json retransmission(const std::vector<CommOp>& ops);
json link_section(const std::vector<RankFacts>& ranks, const ClusterReference& ref);

// ---- the groups' names (group_names.cpp) ----

// cluster.parallel_groups: every group some rank's parallel_group_info (or the reference's
// communication_group.json) names: {group, name, ranks, id, source}, sorted by name and ranks.
json parallel_groups_section(const std::vector<RankFacts>& ranks, const ClusterReference& ref);
// Puts the name of cluster.parallel_groups beside each group id of the cluster facts:
// communication.groups[].name, communication.top_ops[].group_name, retransmission[].group_name,
// slow_rank.groups[].name.
void name_groups(json& cluster);

// ---- the step split (step_split.cpp) ----

// cluster.step_split: where the step's time goes on the ranks, from each rank's own split
// (facts.idle_attribution): computing, communication, bubble, idle and idle by cause, each the
// mean over the ranks of the rank's mean per step, so the parts add up to the mean step as in
// one rank's report. A rank without a split gives its step breakdown (facts.overall, no idle
// causes); without rank folders, the rank x step `rows` (the profiler's
// cluster_step_trace_time.csv) do. Null when there is none of these.
json step_split(const std::vector<RankFacts>& ranks, const std::vector<StepRow>& rows, const std::string& rows_source);

// ---- slow rank (slow_rank.cpp) ----

json slow_rank_verdict(const json& rank_rows, const json& robust, const std::map<int, int>& votes, int judged,
                       const json& groups, const std::map<int, int>& stage_of);

}  // namespace npu::cluster
