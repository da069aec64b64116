// operator_health.syncbn (row 18): SyncBatchNorm events.
#include "facts/diagnostics/host_trace_pass.h"

namespace npu::operator_health {
nlohmann::json syncbn_json(const RunModel& m, const HostTracePass& p) {
  nlohmann::json sb = {{"count", p.syncbn.count},
                       {"total_ns", p.syncbn.total},
                       {"evidence", nlohmann::json::array()}};
  if (p.syncbn.count) sb["evidence"].push_back(slice_evidence(m, p.syncbn.max_index, "longest SyncBatchNorm"));
  return sb;
}

}  // namespace npu::operator_health
