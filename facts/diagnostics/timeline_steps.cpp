#include "facts/diagnostics/timeline_steps.h"

#include <algorithm>
#include <map>
#include <optional>

namespace npu {

using nlohmann::json;

const json& facts_section(const json& doc, const char* key) {
  static const json none;
  auto it = doc.find(key);
  return it != doc.end() ? *it : none;
}

std::vector<ChosenStep> choose_timeline_steps(const json& doc, std::string& step_time_key) {
  std::vector<ChosenStep> all;
  const json& steps = facts_section(doc, "steps");
  const json* dsteps = nullptr;
  if (doc.contains("dispatch") && doc["dispatch"].contains("steps")) dsteps = &doc["dispatch"]["steps"];
  auto window_of = [](const json& s, Ns& a, Ns& b) {
    if (!s.is_object() || !s.contains("start_ns") || !s.contains("end_ns") || !s["start_ns"].is_number_integer() ||
        !s["end_ns"].is_number_integer())
      return false;
    a = s["start_ns"].get<Ns>();
    b = s["end_ns"].get<Ns>();
    return b > a;
  };
  auto int_at = [](const json& o, const char* k) -> std::optional<Ns> {
    if (o.is_object() && o.contains(k) && o[k].is_number_integer()) return o[k].get<Ns>();
    return std::nullopt;
  };
  // The step time the run's overall.step_time is built from: the device step when the facts
  // hold the host spans separately (overall.host_step_time, docs/overlap.md), else the host
  // ProfilerStep span.
  const json& overall = facts_section(doc, "overall");
  const bool device_steps = overall.is_object() && overall.contains("host_step_time");
  if (steps.is_array())
    for (size_t i = 0; i < steps.size(); ++i) {
      ChosenStep c;
      if (!window_of(steps[i], c.start, c.end)) continue;
      c.id = steps[i].contains("id") ? steps[i]["id"] : json(nullptr);
      c.index = i;
      // A device window beside the host span (the step's tasks may start after it): draw both.
      if (steps[i].contains("device_window")) {
        Ns a = 0, b = 0;
        if (window_of(steps[i]["device_window"], a, b)) {
          c.start = std::min(c.start, a);
          c.end = std::max(c.end, b);
        }
      }
      auto host = int_at(steps[i], "host_dur_ns");
      auto device = int_at(steps[i], "device_time_ns");
      if (host && !device_steps && !c.id.is_null()) {
        c.time = *host;
        step_time_key = "host_dur_ns";
      } else if (device) {
        c.time = *device;
        step_time_key = "device_time_ns";
      } else {
        c.time = c.end - c.start;
        step_time_key = "end_ns - start_ns";
      }
      all.push_back(std::move(c));
    }
  if (all.empty() && dsteps && dsteps->is_array()) {  // no device timeline: the host steps dispatch used
    for (size_t i = 0; i < dsteps->size(); ++i) {
      ChosenStep c;
      if (!window_of((*dsteps)[i], c.start, c.end)) continue;
      c.id = (*dsteps)[i].contains("id") ? (*dsteps)[i]["id"] : json(nullptr);
      c.index = i;
      c.time = c.end - c.start;
      step_time_key = "end_ns - start_ns";
      all.push_back(std::move(c));
    }
  }
  if (all.empty()) return {};
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return all[a].time > all[b].time; });
  std::vector<std::pair<size_t, const char*>> picks = {{order.front(), "worst"},
                                                       {order[order.size() / 2], "median"},
                                                       {order.back(), "fastest"},
                                                       {0, "first"},
                                                       {all.size() - 1, "last"}};
  std::vector<ChosenStep> out;
  std::map<size_t, size_t> at;  // index in all -> index in out
  for (auto [i, why] : picks) {
    auto it = at.find(i);
    if (it != at.end()) {
      out[it->second].why.push_back(why);
      continue;
    }
    if (out.size() >= kMaxTimelineSteps) continue;
    at[i] = out.size();
    out.push_back(all[i]);
    out.back().why.push_back(why);
  }
  // The host step (dispatch keeps ProfilerStep's own window) joins the device step window,
  // whatever the steps facts chose as their start. Only the chosen steps are looked up.
  if (dsteps && dsteps->is_array()) {
    std::map<std::string, const json*> by_id;
    for (const json& ds : *dsteps)
      if (ds.is_object() && ds.contains("id")) by_id.emplace(ds["id"].dump(), &ds);
    for (ChosenStep& c : out) {
      auto it = by_id.find(c.id.dump());
      Ns a = 0, b = 0;
      if (it != by_id.end() && window_of(*it->second, a, b)) {
        c.start = std::min(c.start, a);
        c.end = std::max(c.end, b);
      }
    }
  }
  return out;
}

}  // namespace npu
