// operator_health.dataloader (row 23): time in dataloader events, and the slow ones.
#include "facts/diagnostics/host_trace_pass.h"

namespace npu::operator_health {

nlohmann::json dataloader_json(const DiagnosticContext& ctx, const HostTracePass& p) {
  const RunModel& m = ctx.model;
  nlohmann::json d = {{"count", p.dataloader.count},
                      {"total_ns", p.dataloader.total},
                      {"max_ns", p.dataloader.count ? p.dataloader.max : 0},
                      {"slow_count", p.dataloader_slow_count},
                      {"slow_total_ns", p.dataloader_slow_total},
                      {"slow", top_slices_json(ctx.frame, p.dataloader_slow, "slow dataloader event")},
                      {"reference_slow_ns", p.dataloader_slow_ns}};
  if (p.first_slow_dataloader != kNone32) {
    const Slice& s = m.slices[p.first_slow_dataloader];
    d["first_slow"] = {{"name", m.str(s.name)},
                       {"ts_ns", s.ts},
                       {"dur_ns", s.dur},
                       {"evidence", nlohmann::json::array(
                                        {slice_evidence(m, p.first_slow_dataloader, "first slow dataloader event")})}};
  }
  // With Python stacks: where the user's code fetches, and the user's own frames the fetches
  // spend their time in (a Dataset's __getitem__, a collate function).
  CallSiteTally sites, inside;
  if (ctx.python.available())
    for (uint32_t i : p.dataloader_slices) {
      sites.add(m, ctx.python.at(i), m.slices[i].dur);
      for (uint32_t f : ctx.python.user_frames_inside(i)) inside.add(m, CallSite{f, kEmptyStr}, m.slices[f].dur);
    }
  d["call_sites"] = sites.json(m, ctx.python);
  d["time_in"] = inside.json(m, ctx.python);
  if (p.dataloader.count)
    d["evidence"] = nlohmann::json::array({slice_evidence(m, p.dataloader.max_index, "longest dataloader event")});
  return d;
}

}  // namespace npu::operator_health
