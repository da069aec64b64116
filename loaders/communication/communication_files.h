// communication.json / communication_matrix.json (per rank, ASCEND_PROFILER_OUTPUT) and the
// profiler's own cluster_analysis_output files (cluster_communication.json,
// cluster_communication_matrix.json, cluster_step_trace_time.csv, communication_group.json).
//
// Every loader fills the model's communication rows (model/communication.h), so a rank's facts,
// the reduce step and the reference files all feed the same cluster analysis. Times in the files
// are ms (decimal); they become integer ns through their decimal text.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/cluster_reference.h"
#include "model/communication.h"

namespace npu {

// ms as written by the profiler (a JSON number) -> integer ns, exact for decimal text.
int64_t json_ms_to_ns(const nlohmann::json& v);

// communication.json of one rank: {"stepN"|"step": {"collective"|"p2p": {"op@group": info}}}.
std::vector<CommOp> load_communication_ops(const std::string& path, int rank);
// communication_matrix.json of one rank: {"stepN": {"collective"|"p2p": {"op@group": {"src-dst": link}}}}.
std::vector<CommLink> load_communication_links(const std::string& path);

// cluster_analysis_output/cluster_communication.json: {"(r0, r1)"|"p2p": {step: {"op@group": {"rank": info}}}}.
std::vector<CommOp> load_cluster_communication_ops(const std::string& path);
// cluster_analysis_output/cluster_communication_matrix.json: {"(r0, r1)"|"p2p": {step: {"op@group": {"src-dst":
// link}}}}.
std::vector<CommLink> load_cluster_communication_links(const std::string& path);
// cluster_analysis_output/cluster_step_trace_time.csv: its rank rows; stage rows are skipped
// (they are per-stage maxima).
std::vector<ClusterStepRow> load_cluster_step_trace_time(const std::string& path);
// Its stage rows (pipeline parallelism): one per stage; empty when the file has none.
std::vector<ClusterStage> load_cluster_pipeline_stages(const std::string& path);
// cluster_analysis_output/communication_group.json, read: {"collective": [[ranks]], "p2p": [[ranks]]}
// (its comm_group_parallel_info: loaders/parallel_groups.h).
std::vector<ClusterCommGroup> communication_groups(const nlohmann::json& communication_group);

}  // namespace npu
