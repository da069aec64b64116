// The names of the communication groups (model/parallel_group.h) from the two places the
// profilers write them.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/parallel_group.h"

namespace npu {

// The name HCCL gives a group in communication.json and analysis.db: two 32-bit polynomial
// hashes of the group id (multipliers 29 and 131) side by side, as a decimal number. This is how
// msprof-analyze joins parallel_group_info to the communication records.
std::string hccl_group_name(std::string_view group_id);

// profiler_metadata.json / META_DATA `parallel_group_info`:
//   {group_id: {"group_name": "tp", "group_rank": 0, "global_ranks": [0, 1]}, ...}
// Entries without a name are skipped; sorted by hccl_name.
std::vector<ParallelGroup> parse_parallel_group_info(const nlohmann::json& info);

// communication_group.json `comm_group_parallel_info`:
//   [{"type", "rank_set": [0, 1], "group_name": hccl_name, "group_id": id, "pg_name": "tp"}, ...]
// Entries without a pg_name (the p2p summary row) are skipped; a missing group_name is computed
// from group_id. Sorted by hccl_name.
std::vector<ParallelGroup> parse_comm_group_parallel_info(const nlohmann::json& communication_group);

}  // namespace npu
