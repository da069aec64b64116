#include "facts/diagnostics/diagnostics.h"

#include <algorithm>
#include <thread>

#include "base/worker_thread.h"
#include "facts/whatif/whatif.h"

namespace npu {

Facts compute_facts(const RunModel& model, FactsWork* work, const FactsOptions& options) {
  Facts f;
  f.doc["schema"] = kFactsSchema;
  f.doc["schema_version"] = kFactsSchemaVersion;
  f.doc["unavailable"] = nlohmann::json::array();
  auto context = std::make_unique<DiagnosticContext>(model, options);
  const DiagnosticContext& ctx = *context;
  // Dispatch health reads only the model (never other facts) and is one of the two costliest
  // diagnostics: on a second core it runs beside the step breakdown, into its own document,
  // merged afterwards in the sequential order (so the facts are the same either way).
  Facts dispatch;
  HostBoundGaps host_bound;
  WorkerThread side;  // what it throws (out of memory) is rethrown by join(), never std::terminate
  const bool parallel = std::thread::hardware_concurrency() > 1;
  // The what-if replay reads only the model and the context too: it follows dispatch there.
  if (parallel)
    side.start([&] {
      diagnose_dispatch(ctx, dispatch, &host_bound);
      diagnose_whatif(ctx, dispatch);
    });
  diagnose_run_context(ctx, f);
  diagnose_job(ctx, f);
  StepIdle idle;
  diagnose_overlap(ctx, f, &idle);
  // The per-step lists are by the model's steps, "steps" by the breakdown's (the profiler's rows).
  const size_t n = std::max<size_t>(ctx.model.steps.size(), f.has("overall") ? f.doc["overall"].value("steps", 0) : 0);
  if (n > kMaxStepDetail) {
    const std::string why = std::to_string(n) +
                            " steps: the per-step lists (steps, dispatch.steps, gpu.steps, "
                            "idle_attribution.by_step, profiler_overhead.steps) hold the first " +
                            std::to_string(kMaxStepDetail) + "; totals, medians and counts cover every step";
    f.unavailable("steps.detail", why);
    f.warn(why);
  }
  if (parallel) {
    side.join();
    for (auto& [key, value] : dispatch.doc.items())
      if (key != "unavailable") f.doc[key] = std::move(value);
    for (const auto& u : dispatch.doc.value("unavailable", nlohmann::json::array()))
      f.unavailable(u["fact"].get<std::string>(), u["why"].get<std::string>());
  } else {
    diagnose_dispatch(ctx, f, &host_bound);
    diagnose_whatif(ctx, f);
  }
  diagnose_operators(ctx, f);
  diagnose_operator_health(ctx, f);
  diagnose_gpu(ctx, f);
  diagnose_profiler_overhead(ctx, idle, f);
  diagnose_graph_execution(ctx, f);
  diagnose_modules(ctx, f);
  diagnose_communication(ctx, f);
  diagnose_collectives(ctx, f);
  diagnose_idle_attribution(ctx, idle, host_bound, f, work ? &work->idle_stretches : nullptr);
  if (work) work->context = std::move(context);
  return f;
}

}  // namespace npu
