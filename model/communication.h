// A rank's communication records as the profiler summarised them: per operator (communication.json
// "Communication Time Info" / "Communication Bandwidth Info", analysis.db CommAnalyzerTime /
// CommAnalyzerBandwidth, msprof-analyze's cluster_communication.json) and per link
// (communication_matrix.json, CommAnalyzerMatrix, cluster_communication_matrix.json). Every
// source fills the same rows, so one rank's facts, the cluster analysis and the profiler's own
// cluster files are read alike; facts/communication_records.h writes them as facts JSON
// (facts.communication.ops / links) and reads them back.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"

namespace npu {

// Where a record was read, for evidence. The records outlive the model that loaded them (they
// cross the cluster analysis' child processes and are read back from facts files), so the file
// is a path, not an index into RunModel::files.
struct RecordSource {
  std::string file;
  std::string table;  // a database table; "" for a text file
  int64_t row = -1;   // the table's rowid, or a text file's line number; -1: neither
  std::string what;   // the record's key path in a JSON file ("step1/collective/op@group"), or its name
};

// One transport an operator used (only those with a size or a time).
struct CommBandwidth {
  std::string transport;  // HCCS, PCIE, RDMA, SDMA, SIO, LOCAL, ...
  double size_mb = 0;
  Ns time_ns = 0;
  double gbps = 0;
  double large_packet_ratio = 0;
  uint64_t packets = 0;  // summed over the packet-size distribution
};

// One rank's record of one communication operator in one step.
struct CommOp {
  int64_t step = kNoId;  // "stepN" -> N; kNoId: no step schedule
  std::string kind;      // "collective" or "p2p"
  std::string name;      // "hcom_allReduce__483_2"
  std::string group;     // the group's hccl_name (model/parallel_group.h)
  int32_t rank = -1;
  Ns elapse_ns = 0, transit_ns = 0, wait_ns = 0, sync_ns = 0, idle_ns = 0;
  double wait_ratio = 0, sync_ratio = 0;
  std::vector<CommBandwidth> bandwidth;  // sorted by transport name
  RecordSource source;

  const CommBandwidth* use(std::string_view transport) const {
    for (const auto& b : bandwidth)
      if (b.transport == transport) return &b;
    return nullptr;
  }
};

// One link (src rank -> dst rank) of one operator in one step.
struct CommLink {
  int64_t step = kNoId;
  std::string kind;  // "collective" or "p2p"
  std::string op;    // the operator as the matrix names it ("allreduce-top1", or the full name)
  std::string group;
  int32_t src = -1, dst = -1;
  std::string transport;
  double size_mb = 0;
  Ns time_ns = 0;
  double gbps = 0;
  RecordSource source;
};

// RunModel::communication. An absent list (nullopt) is not in the input; an empty one is a file
// that listed nothing.
struct RunCommunication {
  std::optional<std::vector<CommOp>> ops;
  std::optional<std::vector<CommLink>> links;
  std::string ops_source, links_source;  // file path, or "<db> (table ...)" for a database
};

}  // namespace npu
