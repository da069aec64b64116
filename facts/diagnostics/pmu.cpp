// operator_health.pmu (row 8): PMU pipe ratios per op type and the pipe each type is bound by
// (FactsOptions::pmu_bound_ratio, the declared compute.no_bound.bound_ratio).
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "facts/diagnostics/operator_health.h"

namespace npu::operator_health {
namespace {

constexpr size_t kTopPmuTypes = 10;  // op types with PMU ratios

// Ratio columns reported, and whether the reference's bound rule looks at them (it uses
// vec/mac/scalar/mte1/mte2/mte3 and leaves fixpipe out).
const std::vector<std::pair<const char*, bool>> kPmuRatios = {
    {"aic_mac_ratio", true},    {"aic_scalar_ratio", true},   {"aic_mte1_ratio", true},
    {"aic_mte2_ratio", true},   {"aic_fixpipe_ratio", false}, {"aiv_vec_ratio", true},
    {"aiv_scalar_ratio", true}, {"aiv_mte2_ratio", true},     {"aiv_mte3_ratio", true}};

struct PmuCol {
  const char* name;
  bool bound;
  size_t index;  // in m.pmu_columns
};

// One (type, core) group's kernels: their time and the time-weighted sums of each column.
struct PmuTypeAcc {
  StrId type = kEmptyStr, core = kEmptyStr;
  Agg agg;
  std::vector<double> sum, weight;
};

std::vector<PmuCol> pmu_ratio_columns(const RunModel& m) {
  std::vector<PmuCol> cols;
  for (const auto& [name, bound] : kPmuRatios)
    for (size_t c = 0; c < m.pmu_columns.size(); ++c)
      if (m.str(m.pmu_columns[c]) == name) cols.push_back({name, bound, c});
  return cols;
}

// The compute kernels with at least one ratio value, grouped by (type, core).
std::unordered_map<uint64_t, PmuTypeAcc> accumulate_pmu(const RunModel& m, const std::vector<PmuCol>& cols) {
  const size_t stride = m.pmu_columns.size();
  std::unordered_map<uint64_t, PmuTypeAcc> acc;
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    if (is_comm_core(m.str(k.accel_core))) continue;
    const double* row = &m.pmu_values[i * stride];
    bool any = false;
    for (const PmuCol& c : cols) any |= !std::isnan(row[c.index]);
    if (!any) continue;
    PmuTypeAcc& t = acc[(uint64_t{k.type} << 32) | k.accel_core];
    if (t.sum.empty()) {
      t.type = k.type;
      t.core = k.accel_core;
      t.sum.assign(cols.size(), 0);
      t.weight.assign(cols.size(), 0);
    }
    t.agg.add(k.dur, i);
    double w = k.dur > 0 ? static_cast<double>(k.dur) : 1.0;
    for (size_t c = 0; c < cols.size(); ++c) {
      double v = row[cols[c].index];
      if (std::isnan(v)) continue;
      t.sum[c] += v * w;
      t.weight[c] += w;
    }
  }
  return acc;
}

// One group's entry of by_type: its mean ratios, its busiest candidate pipe and what it is bound
// by (row 8: the busiest pipe when its ratio reaches bound_ratio, else "none").
nlohmann::json pmu_type_json(const RunModel& m, const PmuTypeAcc& t, const std::vector<PmuCol>& cols,
                             double bound_ratio) {
  nlohmann::json ratios = nlohmann::json::object();
  double best = -1;
  std::string best_name;
  for (size_t c = 0; c < cols.size(); ++c) {
    if (t.weight[c] <= 0) continue;
    double v = t.sum[c] / t.weight[c];
    ratios[cols[c].name] = v;
    if (cols[c].bound && v > best) {
      best = v;
      best_name = cols[c].name;
    }
  }
  return {{"type", m.str(t.type)},
          {"accelerator_core", m.str(t.core)},
          {"count", t.agg.count},
          {"total_ns", t.agg.total},
          {"ratios", ratios},
          {"max_ratio", best},
          {"bound", best >= bound_ratio ? best_name : "none"},
          {"evidence", nlohmann::json::array({evidence_row(m, Role::KernelDetails, m.kernels[t.agg.max_index].line,
                                                           "longest " + std::string(m.str(t.type)))})}};
}

}  // namespace

// PMU pipe ratios (aic_metrics=PipeUtilization), time-weighted per op type.
void pmu(const RunModel& m, double bound_ratio, nlohmann::json& health, Facts& facts) {
  const std::vector<PmuCol> cols = pmu_ratio_columns(m);
  if (cols.empty() || m.pmu_values.size() != m.kernels.size() * m.pmu_columns.size()) {
    facts.unavailable("operator_health.pmu",
                      std::string(role_name(Role::KernelDetails)) +
                          " has no PMU pipe ratio columns (aic_metrics was not PipeUtilization)");
    return;
  }
  const std::unordered_map<uint64_t, PmuTypeAcc> acc = accumulate_pmu(m, cols);
  if (acc.empty()) {
    facts.unavailable("operator_health.pmu", "no kernel has PMU ratio values (all N/A)");
    return;
  }
  std::vector<const PmuTypeAcc*> order;
  for (const auto& [key, t] : acc) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const PmuTypeAcc* a, const PmuTypeAcc* b) {
    if (a->agg.total != b->agg.total) return a->agg.total > b->agg.total;
    return a->type < b->type;
  });
  nlohmann::json arr = nlohmann::json::array();
  uint64_t no_bound = 0;
  for (size_t n = 0; n < order.size() && n < kTopPmuTypes; ++n) {
    arr.push_back(pmu_type_json(m, *order[n], cols, bound_ratio));
    if (arr.back()["bound"] == "none") ++no_bound;
  }
  nlohmann::json names = nlohmann::json::array();
  for (const PmuCol& c : cols) names.push_back(c.name);
  health["pmu"] = {{"weighting", "duration-weighted mean over the type's kernels that have the value"},
                   {"ratio_columns", names},
                   {"types_with_ratios", acc.size()},
                   {"by_type", arr},
                   {"no_bound_types", no_bound}};
}

}  // namespace npu::operator_health
