// communication.json / communication_matrix.json (per rank, ASCEND_PROFILER_OUTPUT) and the
// profiler's own cluster_analysis_output files (cluster_communication.json,
// cluster_communication_matrix.json, cluster_step_trace_time.csv, communication_group.json).
//
// Every loader returns records in one normalised JSON shape (docs/facts-cluster.md), so a
// rank's facts, the reduce step and the reference files all feed the same cluster analysis:
//   op:   {step, kind, name, group, rank, elapse_ns, transit_ns, wait_ns, sync_ns, idle_ns,
//          wait_ratio, sync_ratio, bandwidth: {HCCS: {size_mb, time_ns, gbps, large_packet_ratio,
//          packets}, ...}, evidence}
//   link: {step, kind, op, group, src, dst, transport, size_mb, time_ns, gbps, evidence}
// Times in the files are ms (decimal); they become integer ns through their decimal text.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu {

// ms as written by the profiler (a JSON number) -> integer ns, exact for decimal text.
int64_t json_ms_to_ns(const nlohmann::json& v);

// communication.json of one rank: {"stepN"|"step": {"collective"|"p2p": {"op@group": info}}}.
nlohmann::json load_communication_ops(const std::string& path, int rank);
// communication_matrix.json of one rank: {"stepN": {"collective"|"p2p": {"op@group": {"src-dst": link}}}}.
nlohmann::json load_communication_links(const std::string& path);

// cluster_analysis_output/cluster_communication.json: {"(r0, r1)"|"p2p": {step: {"op@group": {"rank": info}}}}.
nlohmann::json load_cluster_communication_ops(const std::string& path);
// cluster_analysis_output/cluster_communication_matrix.json: {"(r0, r1)"|"p2p": {step: {"op@group": {"src-dst":
// link}}}}.
nlohmann::json load_cluster_communication_links(const std::string& path);
// cluster_analysis_output/cluster_step_trace_time.csv: rank rows as
// {rank, step, computing_ns, comm_not_overlapped_ns, overlapped_ns, communication_ns, free_ns,
//  device_time_ns, bubble_ns and stage_ns when the file has Bubble / Stage, evidence}; stage
// rows are skipped (they are per-stage maxima).
nlohmann::json load_cluster_step_trace_time(const std::string& path);
// Its stage rows (pipeline parallelism): one per stage, {ranks: [...], evidence}; empty when
// the file has none.
nlohmann::json load_cluster_pipeline_stages(const std::string& path);
// cluster_analysis_output/communication_group.json, read: {"collective": [[ranks]], "p2p": [[ranks]]}
// (its comm_group_parallel_info: loaders/parallel_groups.h).
nlohmann::json communication_groups(const nlohmann::json& communication_group);

}  // namespace npu
