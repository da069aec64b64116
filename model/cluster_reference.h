// What the profiler's own cluster analysis wrote (msprof-analyze's cluster_analysis_output/),
// loaded by loaders/cluster_reference_loader.cpp. The cluster facts compare the ranks against it.
#pragma once
#include <string>
#include <vector>

#include "model/communication.h"
#include "model/parallel_group.h"

namespace npu {

// A rank row of cluster_step_trace_time.csv (its stage rows are per-stage maxima, not ranks).
struct ClusterStepRow {
  int32_t rank = -1;
  int64_t step = kNoId;  // kNoId: no step schedule
  Ns computing_ns = 0, comm_not_overlapped_ns = 0, overlapped_ns = 0, communication_ns = 0, free_ns = 0;
  Ns device_time_ns = 0;  // computing + not-overlapped communication + free
  // Pipeline parallelism (newer msprof-analyze): the receive time (Bubble) and the step without
  // it (Stage); 0 when the file has no such column.
  Ns bubble_ns = 0, stage_ns = 0;
  RecordSource source;
};

// A pipeline stage: the ranks of a stage row of cluster_step_trace_time.csv ("(8, 9, 10, 11)").
struct ClusterStage {
  std::vector<int64_t> ranks;
  RecordSource source;
};

// A group of communication_group.json: "collective" or "p2p", its ranks sorted.
struct ClusterCommGroup {
  std::string kind;
  std::vector<int64_t> ranks;
};

struct ClusterReference {
  std::string dir;
  std::vector<std::string> files;
  std::vector<ClusterStepRow> rank_steps;      // cluster_step_trace_time.csv rank rows
  std::vector<CommOp> ops;                     // cluster_communication.json
  std::vector<CommLink> links;                 // cluster_communication_matrix.json
  std::vector<ClusterCommGroup> groups;        // communication_group.json
  std::vector<ParallelGroup> parallel_groups;  // communication_group.json comm_group_parallel_info
  std::vector<ClusterStage> stages;            // cluster_step_trace_time.csv stage rows (pipeline stages)
  bool empty() const { return files.empty(); }
};

}  // namespace npu
