#include "rules/attribution.h"

#include <algorithm>
#include <map>
#include <vector>

namespace npu {

using nlohmann::json;

constexpr double kFloorNs = 1000;  // 1 us per step

json attribute_savings(json& findings, const json& facts) {
  const json* o = facts.contains("overall") ? &facts["overall"] : nullptr;
  const int64_t steps = o ? o->value("steps", int64_t{0}) : 0;
  if (!o || steps <= 0 || !o->contains("device_time_ns"))
    return {{"available", false}, {"why", "no step breakdown: savings are the rules' own estimates"}};
  auto per_step = [&](const char* key) {
    const auto it = o->find(key);
    return it != o->end() && it->is_number() ? it->get<double>() / static_cast<double>(steps) : 0.0;
  };
  // The pools of one step: the device idles (Free) or has not started (Preparing: the host's
  // time before the first device task); communication no computation hides; computing.
  std::map<std::string, double> budget = {{"idle", per_step("free_ns") + per_step("preparing_ns")},
                                          {"communication", per_step("comm_not_overlapped_ns")},
                                          {"compute", per_step("computing_ns")}};
  std::map<std::string, double> left = budget, claimed;
  const double step = budget["idle"] + budget["communication"] + budget["compute"];

  std::vector<size_t> order(findings.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Causes first, in rank order; a residual (symptom) finding after every cause.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return !findings[a].value("residual", false) && findings[b].value("residual", false);
  });
  std::vector<bool> drop(findings.size(), false);
  for (size_t i : order) {
    json& f = findings[i];
    const std::string pool = f.value("pool", std::string("idle"));
    if (!left.count(pool)) continue;
    const double want = f.value("saving_ns", 0.0);
    const double got = std::min(want, std::max(0.0, left[pool]));
    left[pool] -= got;
    claimed[pool] += got;
    if (got < want) {
      f["saving_estimate_ns"] = static_cast<int64_t>(want);
      f["saving_ns"] = static_cast<int64_t>(got);
      f["saving_capped"] = "the rest of its estimate is " + pool + " time already claimed by the findings above it";
      const double ratio_den = want > 0 && f["saving_ratio"].is_number() ? want / f["saving_ratio"].get<double>() : 0;
      f["saving_ratio"] = ratio_den > 0 ? json(got / ratio_den) : json(nullptr);
      f["score_ns"] = static_cast<int64_t>(got * f.value("confidence", 0.5));
    }
    if (f.value("residual", false) && got < 0.01 * step) drop[i] = true;
    // An absolute floor: a saving that prints as 0.000 ms is no finding (a unit-test-sized trace).
    if (want > 0 && want < kFloorNs) drop[i] = true;
  }
  std::vector<json> kept;
  for (size_t i = 0; i < findings.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(findings[i]));
  std::stable_sort(kept.begin(), kept.end(), [](const json& a, const json& b) {
    return a["score_ns"].get<int64_t>() > b["score_ns"].get<int64_t>();
  });
  findings = json::array();
  int rank = 1;
  for (auto& f : kept) {
    f["rank"] = rank++;
    findings.push_back(std::move(f));
  }
  json pools = json::object();
  double explained = 0;
  for (const auto& [name, b] : budget) {
    pools[name] = {{"budget_ns", static_cast<int64_t>(b)}, {"claimed_ns", static_cast<int64_t>(claimed[name])}};
    explained += claimed[name];
  }
  return {{"available", true},
          {"step_ns", static_cast<int64_t>(step)},
          {"explained_ns", static_cast<int64_t>(explained)},
          {"pools", pools}};
}

}  // namespace npu
