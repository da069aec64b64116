// The model's communication rows (model/communication.h) as facts JSON, and back: the one writer
// of facts.communication.ops / links (docs/facts-cluster.md) and the one reader the cluster
// analysis uses on a rank's facts (from a facts file, or from a rank's child process).
//   op:   {step, kind, name, group, [group_name], rank, elapse_ns, transit_ns, wait_ns, sync_ns,
//          idle_ns, wait_ratio, sync_ratio, bandwidth: {HCCS: {size_mb, time_ns, gbps,
//          large_packet_ratio, packets}, ...}, evidence}
//   link: {step, kind, op, group, [group_name], src, dst, transport, size_mb, time_ns, gbps, evidence}
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "model/communication.h"
#include "model/parallel_group.h"

namespace npu {

// A record's source as a facts evidence entry: {file, what} for a JSON file, {file, table,
// rowid, what} for a database row, {file, line, what} for a CSV row.
nlohmann::json record_source_json(const RecordSource& s);
// A record's evidence list: its source, or [] when it has none.
nlohmann::json record_evidence_json(const RecordSource& s);
RecordSource record_source_from_json(const nlohmann::json& evidence_entry);

// `groups` (the run's parallel_group_info) adds each record's group_name where it names the group.
nlohmann::json comm_op_json(const CommOp& op, const std::vector<ParallelGroup>& groups = {});
nlohmann::json comm_ops_json(const std::vector<CommOp>& ops, const std::vector<ParallelGroup>& groups = {});
nlohmann::json comm_links_json(const std::vector<CommLink>& links, const std::vector<ParallelGroup>& groups = {});

// The readers: a record's missing or wrongly typed member reads as its default (a facts file is
// input; it may come from an older version or another tool).
std::vector<CommOp> comm_ops_from_json(const nlohmann::json& ops);
std::vector<CommLink> comm_links_from_json(const nlohmann::json& links);

}  // namespace npu
