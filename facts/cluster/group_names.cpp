// The communication groups by the framework's names (cluster.parallel_groups) and the `name`
// put beside each group id of the cluster facts, so reports and rules can say "tp (ranks 0,1)"
// where the data only says "6960437680420871035".
#include <algorithm>
#include <map>
#include <tuple>

#include "facts/cluster/cluster_parts.h"

namespace npu::cluster {

json parallel_groups_section(const std::vector<RankFacts>& ranks, const ClusterReference& ref) {
  // Each rank knows the groups it belongs to; the union over the ranks is the job's. The
  // profiler's own communication_group.json fills in what no rank said.
  std::map<std::string, json> by_group;
  for (const auto& r : ranks) {
    const json run = r.facts.value("run", json::object());
    for (const auto& g : run.value("parallel_groups", json::array())) {
      const std::string id = g.value("group", "");
      if (id.empty() || by_group.count(id)) continue;
      json e = g;
      e["source"] = "parallel_group_info of rank " + std::to_string(r.rank);
      by_group.emplace(id, std::move(e));
    }
  }
  for (const auto& p : ref.parallel_groups)
    if (!by_group.count(p.hccl_name))
      by_group.emplace(p.hccl_name, json{{"group", p.hccl_name},
                                         {"name", p.name},
                                         {"ranks", p.ranks},
                                         {"id", p.id},
                                         {"source", "communication_group.json"}});
  json out = json::array();
  for (auto& [id, g] : by_group) out.push_back(std::move(g));
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return std::tuple(a.value("name", ""), a.value("ranks", json::array()), a.value("group", "")) <
           std::tuple(b.value("name", ""), b.value("ranks", json::array()), b.value("group", ""));
  });
  return out;
}

void name_groups(json& cluster) {
  // A record names its group by the hash of the id, or (a world group named "hccl_world_group"
  // on both sides) by the id itself.
  std::map<std::string, std::string> name_of;
  for (const auto& g : cluster.value("parallel_groups", json::array()))
    for (const char* key : {"group", "id"})
      if (!g.value(key, "").empty()) name_of.emplace(g.value(key, ""), g.value("name", ""));
  if (name_of.empty()) return;
  // A group row names itself (`name`); an operator row already has a `name`, its own, so the
  // group's goes in `group_name`.
  auto put = [&](json& rows, const char* key) {
    if (!rows.is_array()) return;
    for (auto& row : rows)
      if (auto it = name_of.find(row.value("group", "")); it != name_of.end()) row[key] = it->second;
  };
  if (cluster.contains("communication")) {
    put(cluster["communication"]["groups"], "name");
    put(cluster["communication"]["top_ops"], "group_name");
  }
  if (cluster.contains("retransmission")) put(cluster["retransmission"], "group_name");
  if (cluster.contains("slow_rank") && cluster["slow_rank"].contains("groups"))
    put(cluster["slow_rank"]["groups"], "name");
}

}  // namespace npu::cluster
