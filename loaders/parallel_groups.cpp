#include "loaders/parallel_groups.h"

#include <algorithm>
#include <cstdint>

#include "base/json_file.h"

namespace npu {
namespace {

std::vector<int> rank_list(const nlohmann::json& v) {
  std::vector<int> out;
  if (!v.is_array()) return out;
  for (const auto& r : v)
    if (auto id = json_small_id(r)) out.push_back(*id);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string text_of(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void sort_by_hccl_name(std::vector<ParallelGroup>& groups) {
  std::sort(groups.begin(), groups.end(),
            [](const ParallelGroup& a, const ParallelGroup& b) { return a.hccl_name < b.hccl_name; });
}

}  // namespace

std::string hccl_group_name(std::string_view group_id) {
  uint32_t h29 = 0, h131 = 0;  // unsigned: the wrap-around is the hash
  for (char c : group_id) {
    // Python's ord() of each character: the ids are ASCII (an address, an interface, numbers).
    auto code = static_cast<uint32_t>(static_cast<unsigned char>(c));
    h29 = h29 * 29u + code;
    h131 = h131 * 131u + code;
  }
  return std::to_string((static_cast<uint64_t>(h29) << 32) | h131);
}

std::vector<ParallelGroup> parse_parallel_group_info(const nlohmann::json& info) {
  std::vector<ParallelGroup> out;
  if (!info.is_object()) return out;
  for (const auto& [id, g] : info.items()) {
    if (!g.is_object()) continue;
    ParallelGroup p;
    p.name = text_of(g, "group_name");
    if (p.name.empty() || id.empty()) continue;
    p.id = id;
    p.hccl_name = hccl_group_name(id);
    p.ranks = rank_list(g.value("global_ranks", nlohmann::json()));
    out.push_back(std::move(p));
  }
  sort_by_hccl_name(out);
  return out;
}

std::vector<ParallelGroup> parse_comm_group_parallel_info(const nlohmann::json& communication_group) {
  std::vector<ParallelGroup> out;
  if (!communication_group.is_object()) return out;
  auto list = communication_group.find("comm_group_parallel_info");
  if (list == communication_group.end() || !list->is_array()) return out;
  for (const auto& g : *list) {
    if (!g.is_object()) continue;
    ParallelGroup p;
    p.name = text_of(g, "pg_name");
    p.id = text_of(g, "group_id");
    p.hccl_name = text_of(g, "group_name");
    if (p.hccl_name.empty() && !p.id.empty()) p.hccl_name = hccl_group_name(p.id);
    if (p.name.empty() || p.hccl_name.empty()) continue;
    p.ranks = rank_list(g.value("rank_set", nlohmann::json()));
    out.push_back(std::move(p));
  }
  sort_by_hccl_name(out);
  return out;
}

}  // namespace npu
