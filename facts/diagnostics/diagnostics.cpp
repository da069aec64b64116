#include "facts/diagnostics/diagnostics.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/worker_thread.h"
#include "facts/whatif/whatif.h"

namespace npu {
namespace {

// Times the passes when asked (FactsWork::pass_seconds), else only runs them.
class PassClock {
 public:
  explicit PassClock(std::vector<std::pair<std::string, double>>* out) : out_(out) {}
  template <typename F>
  void run(const char* name, F&& pass) {
    const auto t0 = std::chrono::steady_clock::now();
    pass();
    if (out_) out_->emplace_back(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }

 private:
  std::vector<std::pair<std::string, double>>* out_;
};

// The per-step lists are by the model's steps, "steps" by the breakdown's (the profiler's rows).
void note_step_detail(const DiagnosticContext& ctx, Facts& f) {
  const size_t n = std::max<size_t>(ctx.model.steps.size(), f.has("overall") ? f.doc["overall"].value("steps", 0) : 0);
  if (n <= kMaxStepDetail) return;
  const std::string why = std::to_string(n) +
                          " steps: the per-step lists (steps, dispatch.steps, gpu.steps, "
                          "idle_attribution.by_step, profiler_overhead.steps) hold the first " +
                          std::to_string(kMaxStepDetail) + "; totals, medians and counts cover every step";
  f.unavailable("steps.detail", why);
  f.warn(why);
}

// A pass that wrote into a document of its own, merged into the facts: its sections (it writes
// neither "run" nor another pass's), and its "unavailable" entries at `at` (where they would be
// had it run there), skipping facts already listed. Returns where the next pass's entries go.
size_t merge_pass(Facts& f, Facts& pass, size_t at) {
  for (auto& [key, value] : pass.doc.items())
    if (key != "unavailable") f.doc[key] = std::move(value);
  nlohmann::json& list = f.doc["unavailable"];
  for (const auto& u : pass.doc.value("unavailable", nlohmann::json::array())) {
    bool listed = false;
    for (const auto& v : list) listed = listed || v["fact"] == u["fact"];
    if (listed) continue;
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(at++), u);
  }
  return at;
}

}  // namespace

Facts compute_facts(const RunModel& model, FactsWork* work, const FactsOptions& options) {
  Facts f;
  f.doc["schema"] = kFactsSchema;
  f.doc["schema_version"] = kFactsSchemaVersion;
  f.doc["unavailable"] = nlohmann::json::array();
  std::vector<std::pair<std::string, double>> side_seconds;
  PassClock clock(work ? &work->pass_seconds : nullptr), side_clock(work ? &side_seconds : nullptr);
  std::unique_ptr<DiagnosticContext> context;
  clock.run("frame", [&] { context = std::make_unique<DiagnosticContext>(model, options); });
  const DiagnosticContext& ctx = *context;
  // The what-if replay reads only the model and the frame, and is the costliest pass on runs of
  // many steps: on a second core it runs beside all the others but the idle attribution (which,
  // run beside it too, made the facts slower and their peak larger: the two compete for fresh
  // memory), into its own document, merged where it runs in sequence (so the facts are the same
  // either way). No other pass reads it.
  // Dispatch runs on this core, into its own document too (merged at the same place).
  Facts whatif, dispatch;
  WorkerThread side;  // what it throws (out of memory) is rethrown by join(), never std::terminate
  const bool parallel = std::thread::hardware_concurrency() > 1;
  if (parallel) side.start([&] { side_clock.run("whatif", [&] { diagnose_whatif(ctx, whatif); }); });
  clock.run("run_context", [&] { diagnose_run_context(ctx, f); });
  clock.run("job", [&] { diagnose_job(ctx, f); });
  StepIdle idle;
  clock.run("overlap", [&] { diagnose_overlap(ctx, f, &idle); });
  note_step_detail(ctx, f);
  HostBoundGaps host_bound;
  clock.run("dispatch", [&] { diagnose_dispatch(ctx, dispatch, &host_bound); });
  const size_t whatif_at = merge_pass(f, dispatch, f.doc["unavailable"].size());
  clock.run("operators", [&] { diagnose_operators(ctx, f); });
  clock.run("operator_health", [&] { diagnose_operator_health(ctx, f); });
  clock.run("gpu", [&] { diagnose_gpu(ctx, f); });
  clock.run("roofline", [&] { diagnose_roofline(ctx, f); });
  clock.run("profiler_overhead", [&] { diagnose_profiler_overhead(ctx, idle, f); });
  clock.run("graph_execution", [&] { diagnose_graph_execution(ctx, f); });
  clock.run("modules", [&] { diagnose_modules(ctx, f); });
  clock.run("communication", [&] { diagnose_communication(ctx, f); });
  clock.run("collectives", [&] { diagnose_collectives(ctx, f); });
  clock.run("inference", [&] { diagnose_inference(ctx, f); });
  if (parallel) clock.run("wait for whatif", [&] { side.join(); });
  else clock.run("whatif", [&] { diagnose_whatif(ctx, whatif); });
  merge_pass(f, whatif, whatif_at);
  clock.run("idle_attribution",
            [&] { diagnose_idle_attribution(ctx, idle, host_bound, f, work ? &work->idle_stretches : nullptr); });
  if (work) {
    for (auto& p : side_seconds) work->pass_seconds.emplace_back("(second core) " + p.first, p.second);
    work->context = std::move(context);
  }
  return f;
}

}  // namespace npu
