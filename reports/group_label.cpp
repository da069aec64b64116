// How reports name a communication group: by the framework's name and its ranks when the facts
// know it (cluster.parallel_groups), else by the id the communication records use.
#include <string>

#include "reports/report_document.h"

namespace npu {

std::string rank_ranges(const nlohmann::json& ranks) {
  std::string out;
  if (!ranks.is_array()) return out;
  for (size_t i = 0; i < ranks.size();) {
    if (!ranks[i].is_number_integer()) {
      ++i;
      continue;
    }
    // A run of consecutive ranks is written first-last: "0-7", not eight numbers.
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1].is_number_integer() &&
           ranks[j + 1].get<int64_t>() == ranks[j].get<int64_t>() + 1)
      ++j;
    if (!out.empty()) out += ",";
    out += ranks[i].dump();
    if (j > i) {
      out += j == i + 1 ? ',' : '-';
      out += ranks[j].dump();
    }
    i = j + 1;
  }
  return out;
}

std::string group_label(const nlohmann::json& cluster, const std::string& group) {
  auto list = cluster.find("parallel_groups");
  if (list != cluster.end() && list->is_array())
    for (const auto& g : *list)
      if ((g.value("group", "") == group || g.value("id", "") == group) && !g.value("name", "").empty()) {
        std::string ranks = rank_ranges(g.value("ranks", nlohmann::json::array()));
        return g.value("name", "") + (ranks.empty() ? "" : " (ranks " + ranks + ")");
      }
  return group;
}

}  // namespace npu
