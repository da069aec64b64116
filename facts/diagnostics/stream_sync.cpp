// operator_health.sync (row 19): stream / device synchronize calls, and how often a stream sync
// follows a launch (ASCEND_LAUNCH_BLOCKING makes every launch synchronous).
#include "facts/diagnostics/host_trace_pass.h"

namespace npu::operator_health {
nlohmann::json stream_sync_json(const DiagnosticContext& ctx, const HostTracePass& p) {
  const RunModel& m = ctx.model;
  nlohmann::json apis = nlohmann::json::object();
  for (const auto& [name, a] : p.sync_by_api)
    apis[name] = {{"count", a.count}, {"total_ns", a.total}, {"max_ns", a.max}};
  // A stream sync right after a launch, in the reference's order (all threads by ts).
  uint64_t co = 0;
  for (size_t i = 1; i < p.marks.size(); ++i)
    if (!p.marks[i].launch && p.marks[i - 1].launch) ++co;
  uint64_t sync_stream = 0;
  for (const auto& [name, a] : p.sync_by_api)
    if (starts_with(name, "AscendCL@aclrtSynchronizeStream")) sync_stream += a.count;
  return {{"count", p.sync.all.count},
          {"total_ns", p.sync.all.total},
          {"max_ns", p.sync.all.count ? p.sync.all.max : 0},
          {"by_api", apis},
          {"by_step", by_step_json(m, p.sync, "synchronize call")},
          {"per_step", step_summary_json(m, p.sync)},
          {"longest", top_slices_json(ctx.frame, p.sync_top, "synchronize call")},
          {"sync_stream_count", sync_stream},
          {"node_launch_count", p.launches},
          {"co_occur", co},
          {"co_occur_ratio", p.launches ? static_cast<double>(co) / static_cast<double>(p.launches) : 0.0},
          {"co_occur_same_thread", p.co_occur_same_thread},
          {"co_occur_same_thread_ratio",
           p.launches ? static_cast<double>(p.co_occur_same_thread) / static_cast<double>(p.launches) : 0.0}};
}

}  // namespace npu::operator_health
