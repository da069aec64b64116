// A communication group as the training framework names it (tp, dp, pp, dp_cp, default_group,
// ...). torch_npu writes the names per rank in profiler_metadata.json (parallel_group_info) or
// the META_DATA table of its SQLite export, and msprof-analyze copies them into
// cluster_analysis_output/communication_group.json (comm_group_parallel_info). communication.json
// and analysis.db name a group only by `hccl_name`, a hash of its `id`, so the hash is what joins
// the names to the communication records.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace npu {

struct ParallelGroup {
  std::string hccl_name;   // as communication records name the group ("hcom_allReduce__1_0_1@<hccl_name>")
  std::string id;          // the framework's group id ("10.0.0.1%eth0_60000_0_1738895506630464"); may be empty
  std::string name;        // the framework's name of the group: tp, dp, pp, ...
  std::vector<int> ranks;  // its global ranks, sorted
};

// The group a record names, or nullptr: communication.json and analysis.db name it by
// `hccl_name`, trace threads ("Group <x> Communication") by `hccl_name` or by the `id` itself, and
// the world group may be "hccl_world_group" on both sides.
inline const ParallelGroup* find_parallel_group(const std::vector<ParallelGroup>& groups, std::string_view group) {
  if (group.starts_with("Group ") && group.ends_with(" Communication")) group = group.substr(6, group.size() - 6 - 14);
  if (group.empty()) return nullptr;
  for (const auto& g : groups)
    if (g.hccl_name == group || g.id == group) return &g;
  return nullptr;
}

}  // namespace npu
