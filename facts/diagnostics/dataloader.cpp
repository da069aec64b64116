// operator_health.dataloader (row 23): time in dataloader events, and the slow ones.
#include "facts/diagnostics/host_trace_pass.h"

namespace npu::operator_health {

nlohmann::json dataloader_json(const RunModel& m, const HostTracePass& p) {
  nlohmann::json d = {{"count", p.dataloader.count},
                      {"total_ns", p.dataloader.total},
                      {"max_ns", p.dataloader.count ? p.dataloader.max : 0},
                      {"slow_count", p.dataloader_slow_count},
                      {"slow_total_ns", p.dataloader_slow_total},
                      {"slow", top_slices_json(m, p.dataloader_slow, "slow dataloader event")},
                      {"reference_slow_ns", kSlowDataloaderNs}};
  if (p.first_slow_dataloader != kNone32) {
    const Slice& s = m.slices[p.first_slow_dataloader];
    d["first_slow"] = {{"name", m.str(s.name)},
                       {"ts_ns", s.ts},
                       {"dur_ns", s.dur},
                       {"evidence", nlohmann::json::array(
                                        {slice_evidence(m, p.first_slow_dataloader, "first slow dataloader event")})}};
  }
  if (p.dataloader.count)
    d["evidence"] = nlohmann::json::array({slice_evidence(m, p.dataloader.max_index, "longest dataloader event")});
  return d;
}

}  // namespace npu::operator_health
