// Diagnostics: pure functions from a loaded run to facts. One file per diagnostic; each
// writes its own section of the facts document (docs/facts.md) and records what it could
// not compute with Facts::unavailable().
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "facts/device_tasks.h"
#include "facts/diagnostics/facts_options.h"
#include "facts/facts.h"
#include "facts/frame/run_frame.h"
#include "facts/host_causes.h"
#include "facts/python_stacks.h"
#include "facts/roofline/launching_ops.h"
#include "facts/roofline/peaks.h"
#include "model/model.h"

namespace npu {

// What every diagnostic may share, extracted once per run: the run's frame (which step, which
// launch: facts/frame/run_frame.h) and what several diagnostics read.
struct DiagnosticContext {
  const RunModel& model;
  FactsOptions options;  // the thresholds the facts measure with (facts_options.h)
  const RunFrame frame;
  const DeviceTimeline& device;  // frame.device()
  PythonStacks python;           // the user's call sites (with_stack runs), built on first use
  explicit DiagnosticContext(const RunModel& m, const FactsOptions& o = {})
      : model(m), options(o), frame(m), device(frame.device()), python(m) {}
  // Host events that can explain idle time, collected once for every diagnostic that asks (the
  // idle attribution, the profiler-overhead estimate), on first use.
  const HostCauseSlices& host_causes() const {
    std::call_once(host_causes_once_, [this] { host_causes_ = collect_host_cause_slices(model); });
    return host_causes_;
  }
  // The device's peaks (facts/roofline/peaks.h: the built-in table, or --peaks FILE read once),
  // for the roofline and the what-if's precision times; `peaks_warning()`: why FILE was not used.
  const roofline::DevicePeaks& device_peaks() const {
    std::call_once(peaks_once_,
                   [this] { peaks_ = roofline::run_device_peaks(model, options.peaks_path, &peaks_warning_); });
    return peaks_;
  }
  const std::string& peaks_warning() const {
    device_peaks();
    return peaks_warning_;
  }
  // GPU: the host operator around each runtime call (facts/roofline/launching_ops.h), on first use.
  const std::unordered_map<uint32_t, uint32_t>& ops_of_calls() const {
    std::call_once(ops_once_, [this] { ops_of_calls_ = roofline::ops_of_calls(model); });
    return ops_of_calls_;
  }

 private:
  mutable std::once_flag host_causes_once_;
  mutable HostCauseSlices host_causes_;
  mutable std::once_flag peaks_once_;
  mutable roofline::DevicePeaks peaks_;
  mutable std::string peaks_warning_;
  mutable std::once_flag ops_once_;
  mutable std::unordered_map<uint32_t, uint32_t> ops_of_calls_;
};

void diagnose_run_context(const DiagnosticContext& ctx, Facts& facts);  // run_context.cpp: "run"
void diagnose_job(const DiagnosticContext& ctx, Facts& facts);          // job.cpp: "job"
// The breakdown's idle intervals per step, handed to the idle attribution so that it splits
// exactly the Free and Preparing the breakdown counts, by the profiler's step semantics.
struct StepIdle {
  std::vector<Step> steps;          // the steps of the breakdown (one pseudo-step without a schedule)
  std::vector<Intervals> free;      // per step: its Free segments
  std::vector<Interval> preparing;  // per step: host step start -> first device task (empty: none)
  // Per step of "steps", every one (the list holds kMaxStepDetail): its device time and Free as
  // shown (the profiler's own where ours differ), for those that read them after the breakdown.
  std::vector<Ns> shown_device, shown_free;
};
void diagnose_overlap(const DiagnosticContext& ctx, Facts& facts,
                      StepIdle* idle = nullptr);  // overlap.cpp: "steps", "overall"
// A device idle gap that ended with a vertical launch: the device waited on the host. Dispatch
// finds them (dispatch.cpp); the idle attribution gives them to "host launch".
struct HostBoundGap {
  Ns start = 0, end = 0;
  uint64_t launch_loc = 0;  // the host launch of the task that ended the gap
};
// What dispatch hands on: whether it had launches (and a device timeline) to judge gaps by,
// and every host-bound gap (the facts list the longest only).
struct HostBoundGaps {
  bool judged = false;
  std::vector<HostBoundGap> gaps;
};
void diagnose_dispatch(const DiagnosticContext& ctx, Facts& facts,
                       HostBoundGaps* handoff = nullptr);             // dispatch.cpp: "dispatch"
void diagnose_operators(const DiagnosticContext& ctx, Facts& facts);  // operators.cpp: "operators"
void diagnose_operator_health(const DiagnosticContext& ctx,
                              Facts& facts);                    // operator_health.cpp: "operator_health", "memory"
void diagnose_gpu(const DiagnosticContext& ctx, Facts& facts);  // gpu.cpp: "gpu" (Kineto GPU runs)
// profiler_overhead.cpp: "profiler_overhead" (Kineto runs; reads the steps as shown: after the breakdown)
void diagnose_profiler_overhead(const DiagnosticContext& ctx, const StepIdle& idle, Facts& facts);
void diagnose_communication(const DiagnosticContext& ctx, Facts& facts);  // communication.cpp: "communication"
void diagnose_collectives(const DiagnosticContext& ctx,
                          Facts& facts);  // collectives.cpp: "collectives" (after communication)
// inference.cpp: "inference" (a run the engines' annotations recognise; after job)
void diagnose_inference(const DiagnosticContext& ctx, Facts& facts);
// Every idle stretch of every step given to at most one cause (compile, GC, sync, dataloader,
// barrier, host launch, or unexplained); reads "overall" (runs after the breakdown).
// Every idle stretch with the cause it was given (sorted by start), for the timeline view to
// colour Free by cause. cause: an index of idle_cause_name().
struct IdleStretch {
  Interval iv;
  uint8_t cause = 0;
};
const char* idle_cause_name(uint8_t cause);
void diagnose_idle_attribution(
    const DiagnosticContext& ctx, const StepIdle& idle, const HostBoundGaps& host_bound, Facts& facts,
    std::vector<IdleStretch>* stretches = nullptr);  // idle_attribution.cpp: "idle_attribution"
// graph_execution.cpp: "graph_execution" (Ascend runs)
void diagnose_graph_execution(const DiagnosticContext& ctx, Facts& facts);
// facts/roofline/roofline.cpp: "roofline" (FLOPs and bytes per operator group, roofs, MFU)
void diagnose_roofline(const DiagnosticContext& ctx, Facts& facts);
// modules.cpp: "modules" (device time per module / record_function range; after graph_execution)
void diagnose_modules(const DiagnosticContext& ctx, Facts& facts);

// What the diagnostics leave for the views (views/views.h), which draw from it rather than derive
// it again, so a picture shows what the facts measured: the context (device timeline, step
// windows) and every idle stretch with the cause the idle attribution gave it.
struct FactsWork {
  std::unique_ptr<DiagnosticContext> context;
  std::vector<IdleStretch> idle_stretches;
  // Seconds each pass took, in the order they ran (bench/bench_load prints them: a new pass's cost
  // shows in the benchmark). The what-if replay runs on a second core when there is one.
  std::vector<std::pair<std::string, double>> pass_seconds;
};
// Runs every diagnostic in order, measuring with `options`; `work`, when given, keeps what the
// views need (the model must outlive it).
Facts compute_facts(const RunModel& model, FactsWork* work = nullptr, const FactsOptions& options = {});

}  // namespace npu
