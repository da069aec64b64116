// operator_health.memory_api (row 24): time in the AscendCL memory allocation / free calls.
#include "facts/diagnostics/host_trace_pass.h"

namespace npu::operator_health {
nlohmann::json memory_api_json(const RunModel& m, const HostTracePass& p) {
  nlohmann::json arr = nlohmann::json::array();
  for (const char* api : kMemApis) {
    auto it = p.mem_api.find(api);
    if (it == p.mem_api.end()) {
      arr.push_back(
          {{"api", api}, {"count", 0}, {"total_ns", 0}, {"max_ns", 0}, {"evidence", nlohmann::json::array()}});
      continue;
    }
    const StepAgg& a = it->second;
    int64_t worst_step = kNoId;
    Ns worst_total = -1;
    for (const auto& [step, g] : a.by_step)
      if (g.total > worst_total) {
        worst_total = g.total;
        worst_step = step;
      }
    arr.push_back({{"api", api},
                   {"count", a.all.count},
                   {"total_ns", a.all.total},
                   {"max_ns", a.all.max},
                   {"max_step", {{"step", step_json(worst_step)}, {"total_ns", worst_total}}},
                   {"evidence", nlohmann::json::array({slice_evidence(m, a.all.max_index, "longest call")})}});
  }
  return {{"by_api", arr}};
}

}  // namespace npu::operator_health
