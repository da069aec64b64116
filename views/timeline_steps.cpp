#include "views/timeline_steps.h"

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

namespace {

// Each key is looked up once: a long capture has tens of thousands of steps, and repeated
// lookups (contains, then [] twice) were most of the choice's time.
std::optional<Ns> int_at(const json& o, const char* k) {
  auto it = o.find(k);  // end() for a non-object
  if (it != o.end() && it->is_number_integer()) return it->get<Ns>();
  return std::nullopt;
}

bool window_of(const json& s, Ns& a, Ns& b) {
  auto start = int_at(s, "start_ns"), end = int_at(s, "end_ns");
  if (!start || !end) return false;
  a = *start;
  b = *end;
  return b > a;
}

json id_of(const json& s) {
  auto it = s.find("id");
  return it != s.end() ? *it : json(nullptr);
}

// One entry of facts.steps as a candidate, ranked by the step time the run's
// overall.step_time is built from: the device step when the facts hold the host spans
// separately (overall.host_step_time, docs/overlap.md), else the host ProfilerStep span.
bool step_candidate(const json& step, size_t i, bool device_steps, ChosenStep& c, std::string& step_time_key) {
  if (!window_of(step, c.start, c.end)) return false;
  c.id = id_of(step);
  c.index = i;
  // A device window beside the host span (the step's tasks may start after it): draw both.
  if (auto window = step.find("device_window"); window != step.end()) {
    Ns a = 0, b = 0;
    if (window_of(*window, a, b)) {
      c.start = std::min(c.start, a);
      c.end = std::max(c.end, b);
    }
  }
  auto host = int_at(step, "host_dur_ns");
  auto device = int_at(step, "device_time_ns");
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
  return true;
}

// Every step the timeline could draw: facts.steps, else (no device timeline) the host steps
// dispatch used.
std::vector<ChosenStep> candidate_steps(const json& doc, const json* dsteps, std::string& step_time_key) {
  std::vector<ChosenStep> all;
  const json& steps = facts_section(doc, "steps");
  const json& overall = facts_section(doc, "overall");
  const bool device_steps = overall.is_object() && overall.contains("host_step_time");
  if (steps.is_array())
    for (size_t i = 0; i < steps.size(); ++i) {
      ChosenStep c;
      if (step_candidate(steps[i], i, device_steps, c, step_time_key)) all.push_back(std::move(c));
    }
  if (all.empty() && dsteps && dsteps->is_array()) {
    for (size_t i = 0; i < dsteps->size(); ++i) {
      ChosenStep c;
      if (!window_of((*dsteps)[i], c.start, c.end)) continue;
      c.id = id_of((*dsteps)[i]);
      c.index = i;
      c.time = c.end - c.start;
      step_time_key = "end_ns - start_ns";
      all.push_back(std::move(c));
    }
  }
  return all;
}

// The worst, median and fastest of `all`, then the first and the last, each once with every
// reason it was chosen.
std::vector<ChosenStep> pick_steps(const std::vector<ChosenStep>& all) {
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
  return out;
}

// The host step (dispatch keeps ProfilerStep's own window) joins the device step window,
// whatever the steps facts chose as their start. Only the chosen steps are looked up (the first
// dispatch step of each id), by one scan that stops once all are found.
void join_dispatch_windows(const json& dsteps, std::vector<ChosenStep>& out) {
  std::vector<std::string> wanted;
  for (const ChosenStep& c : out) wanted.push_back(c.id.dump());
  std::vector<const json*> found(out.size(), nullptr);
  size_t missing = out.size();
  for (auto ds = dsteps.begin(); ds != dsteps.end() && missing > 0; ++ds) {
    auto id = ds->find("id");  // end() for a non-object
    if (id == ds->end()) continue;
    const std::string key = id->dump();
    for (size_t k = 0; k < out.size(); ++k)
      if (!found[k] && wanted[k] == key) found[k] = &*ds, --missing;
  }
  for (size_t k = 0; k < out.size(); ++k) {
    ChosenStep& c = out[k];
    Ns a = 0, b = 0;
    if (found[k] && window_of(*found[k], a, b)) {
      c.start = std::min(c.start, a);
      c.end = std::max(c.end, b);
    }
  }
}

}  // namespace

std::vector<ChosenStep> choose_timeline_steps(const json& doc, std::string& step_time_key) {
  const json* dsteps = nullptr;
  if (doc.contains("dispatch") && doc["dispatch"].contains("steps")) dsteps = &doc["dispatch"]["steps"];
  const std::vector<ChosenStep> all = candidate_steps(doc, dsteps, step_time_key);
  if (all.empty()) return {};
  std::vector<ChosenStep> out = pick_steps(all);
  if (dsteps && dsteps->is_array()) join_dispatch_windows(*dsteps, out);
  return out;
}

}  // namespace npu
