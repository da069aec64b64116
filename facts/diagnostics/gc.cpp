// operator_health.gc (rows 20, 21): Python garbage collection, from GC events when the trace
// has them, else conjectured from long device free gaps with almost no AscendCL activity.
#include <algorithm>
#include <vector>

#include "facts/diagnostics/host_trace_pass.h"

namespace npu::operator_health {
namespace {

nlohmann::json conjectured_gc_json(const DiagnosticContext& ctx, const HostTracePass& p) {
  const RunModel& m = ctx.model;
  nlohmann::json conj = nlohmann::json::array();
  std::vector<FreeGap> gaps = p.gaps;
  std::sort(gaps.begin(), gaps.end(), [](const FreeGap& a, const FreeGap& b) { return a.iv.length() > b.iv.length(); });
  // Whether a gap looks like GC (little AscendCL activity in it) is the rule's call
  // (schedule.gc): the facts give each gap's AscendCL figures.
  for (const FreeGap& g : gaps) {
    if (conj.size() >= kTop) break;
    double len = static_cast<double>(g.iv.length());
    double acl_ratio = static_cast<double>(g.acl_ns) / len;
    double acl_per_us = static_cast<double>(g.acl_count) / (len / 1000.0);
    conj.push_back({{"start_ns", g.iv.start},
                    {"end_ns", g.iv.end},
                    {"dur_ns", g.iv.length()},
                    {"step", step_json(ctx.frame.step_id_of_host(g.iv.start))},
                    {"acl_count", g.acl_count},
                    {"acl_ns", g.acl_ns},
                    {"acl_time_ratio", acl_ratio},
                    {"acl_per_us", acl_per_us},
                    {"evidence", nlohmann::json::array({evidence_file(m, Role::Trace,
                                                                      "device free gap: no compute or communication "
                                                                      "task between start_ns and end_ns")})}});
  }
  nlohmann::json out = {{"source", "device free gaps (device window minus compute and communication tasks)"},
                        {"gaps_over_min", gaps.size()},
                        {"gaps", conj},
                        {"acl_counted", p.have_cann},
                        {"reference_min_free_ns", kConjecturedGcMinFreeNs}};
  if (!ctx.device.has_device) out["source"] = "none: no device tasks in the trace";
  return out;
}

}  // namespace

nlohmann::json gc_json(const DiagnosticContext& ctx, const HostTracePass& p) {
  nlohmann::json gc;
  bool detected = p.have_gc_track || p.gc.count > 0;
  gc["detected"] = detected;
  if (detected) {
    gc["count"] = p.gc.count;
    gc["total_ns"] = p.gc.total;
    gc["max_ns"] = p.gc.count ? p.gc.max : 0;
    gc["count_ge_min"] = p.gc_long.count;
    gc["total_ge_min_ns"] = p.gc_long.total;
    gc["longest"] = top_slices_json(ctx.frame, p.gc_top, "GC event");
    gc["reference_min_ns"] = p.gc_min_ns;
  } else {
    gc["conjectured"] = conjectured_gc_json(ctx, p);
  }
  return gc;
}

}  // namespace npu::operator_health
