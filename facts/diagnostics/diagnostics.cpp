#include "facts/diagnostics/diagnostics.h"

#include <thread>

#include "base/worker_thread.h"
#include "facts/whatif/whatif.h"

namespace npu {

Facts compute_facts(const RunModel& model, FactsWork* work) {
  Facts f;
  f.doc["schema"] = kFactsSchema;
  f.doc["schema_version"] = kFactsSchemaVersion;
  f.doc["unavailable"] = nlohmann::json::array();
  auto context = std::make_unique<DiagnosticContext>(model);
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
  diagnose_profiler_overhead(ctx, f);
  diagnose_graph_execution(ctx, f);
  diagnose_modules(ctx, f);
  diagnose_communication(ctx, f);
  diagnose_collectives(ctx, f);
  diagnose_idle_attribution(ctx, idle, host_bound, f, work ? &work->idle_stretches : nullptr);
  if (work) work->context = std::move(context);
  return f;
}

}  // namespace npu
