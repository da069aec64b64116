// operator_health.compile (row 17): online operator compiles (AscendCL@aclopCompileAndExecute).
#include <algorithm>

#include "facts/diagnostics/host_trace_pass.h"

namespace npu::operator_health {
nlohmann::json op_compile_json(const DiagnosticContext& ctx, const HostTracePass& p) {
  const RunModel& m = ctx.model;
  nlohmann::json c = {{"count", p.compile.all.count},
                      {"total_ns", p.compile.all.total},
                      {"max_ns", p.compile.all.count ? p.compile.all.max : 0},
                      {"by_step", by_step_json(m, p.compile, "aclopCompileAndExecute")},
                      {"longest", top_slices_json(ctx.frame, p.compile_top, "aclopCompileAndExecute")}};
  c["per_step"] = step_summary_json(m, p.compile);
  uint64_t worst = 0;  // the most calls in one step (or outside steps when there are none)
  for (const auto& [step, a] : p.compile.by_step) worst = std::max(worst, a.count);
  c["max_step_count"] = worst;
  return c;
}

}  // namespace npu::operator_health
