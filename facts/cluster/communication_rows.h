// The communication records the cluster reduces (communication_reduction.cpp), kept compact:
// a rank's communication.json of a few MB (thousands of operators, each with its links) is tens
// of MB as JSON objects, and the parent holds every rank's at once (64 ranks of 2,400
// operators and 4,800 links took 2.5 GB). Rows keep the numbers the reduction reads and the
// first evidence entry, nothing else.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu::cluster {

// One transport an operator used: communication.ops[].bandwidth.<transport>.
struct TransportUse {
  std::string transport;
  double size_mb = 0, large_packet_ratio = 0;
  int64_t time_ns = 0;
  uint64_t packets = 0;
};

// One rank's record of one operator (facts communication.ops[], or a cluster_communication.json
// record of the profiler's own cluster analysis).
struct CommOpRow {
  int rank = -1;
  nlohmann::json step;  // as the record has it: an id, a name or null
  std::string group, name, kind;
  int64_t elapse_ns = 0, transit_ns = 0, wait_ns = 0, sync_ns = 0;
  std::vector<TransportUse> bandwidth;  // in the record's key order (by transport name)
  std::string evidence;  // the record's first evidence entry as JSON text, or "" (as text: a
                         // parsed entry costs several times its text, and few are ever shown)
  const TransportUse* use(const std::string& transport) const;
};

// One link record (facts communication.links[], or cluster_communication_matrix.json) between two
// ranks: link_rows() leaves out a rank's copies to itself (src = dst, or transport LOCAL), which
// the link reduction skips.
struct LinkRow {
  nlohmann::json step;
  std::string group, op, transport;
  int src = -1, dst = -1;
  double size_mb = 0;
  int64_t time_ns = 0;
  std::string evidence;  // the record's evidence list as JSON text ("[]" when it has none)
};

// rank >= 0 overrides the records' own rank (the discovered rank id wins over what a rank's facts
// said); -1 keeps each record's "rank".
std::vector<CommOpRow> comm_op_rows(const nlohmann::json& ops, int rank);
std::vector<LinkRow> link_rows(const nlohmann::json& links);

// Lossless both ways, for a rank's result crossing from its child process (pipeline/rank_outcome.cpp).
nlohmann::json rows_to_json(const std::vector<CommOpRow>& ops, const std::vector<LinkRow>& links);
void rows_from_json(const nlohmann::json& j, std::vector<CommOpRow>& ops, std::vector<LinkRow>& links);

}  // namespace npu::cluster
