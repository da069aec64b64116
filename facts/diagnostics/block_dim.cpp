// operator_health.block_dim (row 7): the block dims kernels ran with, per accelerator core.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "facts/diagnostics/operator_health.h"

namespace npu::operator_health {

namespace {

struct Core {
  uint64_t kernels = 0;
  Ns total = 0;
  int32_t max_dim = -1;
  std::map<int32_t, Agg> dims;
};

// Distinct block dims, most time first.
nlohmann::json block_dims_json(const RunModel& m, const Core& c) {
  std::vector<std::pair<int32_t, Agg>> dims(c.dims.begin(), c.dims.end());
  std::sort(dims.begin(), dims.end(), [](const auto& a, const auto& b) {
    if (a.second.total != b.second.total) return a.second.total > b.second.total;
    return a.first > b.first;
  });
  nlohmann::json dims_json = nlohmann::json::array();
  for (size_t n = 0; n < dims.size() && n < kTop; ++n)
    dims_json.push_back({{"block_dim", dims[n].first},
                         {"count", dims[n].second.count},
                         {"total_ns", dims[n].second.total},
                         {"evidence", nlohmann::json::array({evidence_row(
                                          m, Role::KernelDetails, m.kernels[dims[n].second.max_index].line,
                                          "longest kernel with block dim " + std::to_string(dims[n].first))})}});
  return dims_json;
}

// Kernels using fewer than half of the largest block dim seen on this core.
nlohmann::json below_half_max(const RunModel& m, const std::string& name, const Core& c, Ns compute_ns) {
  std::map<StrId, Agg> low_by_name;
  Agg low;
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    if (k.block_dim < 0 || m.str(k.accel_core) != name || int64_t{k.block_dim} * 2 >= c.max_dim) continue;
    low.add(k.dur, i);
    low_by_name[k.name].add(k.dur, i);
  }
  std::vector<std::pair<StrId, Agg>> lows(low_by_name.begin(), low_by_name.end());
  std::sort(lows.begin(), lows.end(), [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  nlohmann::json lows_json = nlohmann::json::array();
  for (size_t n = 0; n < lows.size() && n < kTop; ++n) {
    const Kernel& k = m.kernels[lows[n].second.max_index];
    lows_json.push_back({{"name", m.str(lows[n].first)},
                         {"type", m.str(k.type)},
                         {"block_dim", k.block_dim},
                         {"count", lows[n].second.count},
                         {"total_ns", lows[n].second.total},
                         {"evidence", nlohmann::json::array({evidence_row(
                                          m, Role::KernelDetails, k.line,
                                          "longest instance, block dim " + std::to_string(k.block_dim))})}});
  }
  return {{"block_dim_below", (c.max_dim + 1) / 2},
          {"count", low.count},
          {"total_ns", low.total},
          {"share_of_compute", ratio(low.total, compute_ns)},
          {"by_name", lows_json}};
}

}  // namespace

// Block dims. The core count (info.json ai_core_num / aiv_num) is not loaded, so the largest
// block dim seen on each accelerator core stands in as a lower bound of it.
void block_dim(const RunModel& m, Ns compute_ns, nlohmann::json& health, Facts& facts) {
  std::map<std::string, Core> cores;
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    std::string_view core = m.str(k.accel_core);
    if (k.block_dim < 0 || (core != "AI_CORE" && core != "AI_VECTOR_CORE" && core != "MIX_AIC")) continue;
    Core& c = cores[std::string(core)];
    ++c.kernels;
    c.total += k.dur;
    c.max_dim = std::max(c.max_dim, k.block_dim);
    c.dims[k.block_dim].add(k.dur, i);
  }
  if (cores.empty()) {
    facts.unavailable("operator_health.block_dim",
                      "no AI_CORE / AI_VECTOR_CORE / MIX_AIC kernel has a Block Dim (or Block Num) value");
    return;
  }
  nlohmann::json by_core = nlohmann::json::object();
  uint64_t considered = 0;
  for (auto& [name, c] : cores) {
    considered += c.kernels;
    by_core[name] = {{"kernels", c.kernels},
                     {"total_ns", c.total},
                     {"max_block_dim", c.max_dim},
                     {"distinct_block_dims", c.dims.size()},
                     {"block_dims", block_dims_json(m, c)},
                     {"below_half_max", below_half_max(m, name, c, compute_ns)}};
  }
  health["block_dim"] = {
      {"core_count_known", false},
      {"core_count_note", "ai_core_num / aiv_num come from PROF " + std::string(role_name(Role::DeviceInfo)) +
                              ", which is not loaded; max_block_dim per core is only a lower bound of the core count"},
      {"kernels", considered},
      {"by_core", by_core}};
}

}  // namespace npu::operator_health
