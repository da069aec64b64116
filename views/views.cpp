#include "views/views.h"

namespace npu {

using nlohmann::json;

json compute_views(const FactsWork& work, const json& facts) {
  json views = {{"unavailable", json::array()}};
  std::string why;
  json timeline = timeline_view(*work.context, facts, &work.idle_stretches, why);
  if (timeline.is_null()) views["unavailable"].push_back({{"fact", "timeline"}, {"why", why}});
  else views["timeline"] = std::move(timeline);
  return views;
}

}  // namespace npu
