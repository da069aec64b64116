// "steps" and "overall": per-step Computing / Communication / Communication(Not Overlapped)
// / Overlapped / Free / Bubble / Preparing, recomputed from the device tasks by the rule of the
// profiler that wrote the input (docs/overlap.md), then compared with the profiler's own answer
// (step_trace_time.csv or analysis.db StepTraceTime, else the Overlap Analysis track). Where the
// two disagree beyond tolerance, the step shows the profiler's numbers and keeps ours beside them.
#include <algorithm>
#include <limits>

#include "facts/diagnostics/overlap_parts.h"
#include "facts/diagnostics/step_check.h"

namespace npu {
namespace {

using namespace breakdown;  // NOLINT(google-build-using-namespace): the breakdown's own parts

// Our breakdown of each step, recomputed from the device tasks by the profiler's rule; the Free
// segments and Preparing intervals go to `idle` (the idle attribution reads them).
std::vector<Breakdown> recompute(const DiagnosticContext& ctx, const RunFrame& f, StepIdle* idle) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;
  const std::vector<Step>& steps = f.steps();
  const std::vector<StepWindow>& windows = f.windows();
  Accumulator acc(steps.size());
  switch (f.assignment()) {
    case StepAssignment::LaunchedWork: launched_work(d, windows, acc); break;
    case StepAssignment::ClippedWindows: launched_work(d, windows, acc, false); break;
    case StepAssignment::SegmentsByStart: capture_segments(m, d, windows, acc); break;
    case StepAssignment::OwnTasks: step_tasks(m, d, windows, false, acc); break;
    case StepAssignment::OwnTasksAll: step_tasks(m, d, windows, true, acc); break;
  }
  std::vector<Breakdown>& per = acc.per;
  for (size_t i = 0; i < per.size(); ++i) {
    per[i].overlapped = per[i].communication - per[i].comm_not_overlapped;
    // Preparing needs a host step and the device work it launched (GPU windows have none).
    if (f.steps_have_preparing() && windows[i].launched_tasks > 0 &&
        acc.first_busy[i] != std::numeric_limits<Ns>::max())
      per[i].preparing = acc.first_busy[i] - windows[i].host_start;
  }
  if (idle) {
    idle->steps = steps;
    idle->free = std::move(acc.free);
    idle->preparing.assign(steps.size(), Interval{});
    for (size_t i = 0; i < per.size(); ++i)
      if (per[i].preparing != kNoId) idle->preparing[i] = {windows[i].host_start, acc.first_busy[i]};
  }
  return std::move(acc.per);
}

// The steps as shown, with the totals over them and the worst agreement with the profiler.
struct StepsShown {
  nlohmann::json steps_json;
  Breakdown total;
  std::vector<Ns> device_times, host_times, free_times;
  nlohmann::json worst;
  size_t shown_from_profiler = 0;
};

// Each step as shown: ours, or the profiler's own numbers (its table, else the Overlap Analysis
// track) where ours differ beyond tolerance, with ours beside them.
StepsShown steps_shown(const DiagnosticContext& ctx, const RunFrame& f, const std::vector<Breakdown>& per,
                       const std::vector<Breakdown>& track, bool have_track) {
  const RunModel& m = ctx.model;
  const std::vector<Step>& steps = f.steps();
  const std::vector<StepWindow>& windows = f.windows();
  const bool pseudo = f.pseudo(), launched = f.launched_work();
  const auto rows = rows_of_device(m, devices_in_rows(m).size() > 1 ? m.meta.device : -1);
  const std::string row_source = profiler_source(m);

  nlohmann::json steps_json = nlohmann::json::array();
  Breakdown total;
  std::vector<Ns> device_times, host_times, free_times;
  nlohmann::json worst = nullptr;
  double worst_rel = -1;
  size_t shown_from_profiler = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    Breakdown shown = per[i];
    nlohmann::json profiler, agree;
    if (const StepTraceRow* row = profiler_row(rows, s.id, i, steps.size())) {
      JsonObject p;
      add_breakdown(p, from_row(*row));
      p.add("source", row_source);
      p.add("evidence", nlohmann::json::array({evidence_row(m, Role::StepTraceTime, row->line, "profiler's row")}));
      profiler = p.take();
      agree = agreement(per[i], from_row(*row));
      if (!agree["ok"].get<bool>()) shown = from_row(*row);
    } else if (have_track) {
      profiler = to_json(track[i]);
      profiler["source"] = "Overlap Analysis track";
      agree = agreement(per[i], track[i]);
      if (!agree["ok"].get<bool>()) shown = track[i];
    }
    const bool from_profiler = !profiler.is_null() && !agree["ok"].get<bool>();
    const bool host_dur = f.host_span_is_step_time();
    if (from_profiler) ++shown_from_profiler;
    if (!profiler.is_null() && agree["max_rel_diff"].get<double>() > worst_rel) {
      worst_rel = agree["max_rel_diff"].get<double>();
      worst = agree;
      worst["step"] = s.id == kNoId ? nlohmann::json(nullptr) : nlohmann::json(s.id);
    }
    total.add(shown);
    device_times.push_back(shown.device_time());
    free_times.push_back(shown.free);
    if (host_dur) host_times.push_back(s.end - s.start);
    if (i >= kMaxStepDetail) continue;  // counted above, not listed
    JsonObject o;
    add_breakdown(o, shown);
    o.add_or_null("id", s.id, kNoId).add("start_ns", s.start).add("end_ns", s.end);
    o.add("host_dur_ns", host_dur ? nlohmann::json(s.end - s.start) : nlohmann::json(nullptr));
    JsonObject window;
    window.add("start_ns", windows[i].start)
        .add("end_ns", pseudo ? nlohmann::json(nullptr) : nlohmann::json(windows[i].end))
        .add("launched_tasks", windows[i].launched_tasks);
    if (launched) window.add_or_null("launched_end_ns", windows[i].launched_end, kNoId);
    o.add("device_window", window.take());
    // Rules and reports read the numbers shown: the profiler's own where ours differ, with ours beside them.
    o.add("source", from_profiler ? profiler["source"] : nlohmann::json("recomputed from device tasks"));
    nlohmann::json evidence = nlohmann::json::array();
    if (!pseudo)
      evidence.push_back(evidence_event(
          m, s.src.loc,
          (m.meta.engine_iteration_steps ? "engine iteration " : "ProfilerStep#") + std::to_string(s.id)));
    o.add("evidence", std::move(evidence));
    if (!profiler.is_null()) {
      if (from_profiler) o.add("recomputed", to_json(per[i]));
      o.add("profiler", std::move(profiler)).add("agreement", std::move(agree));
    }
    steps_json.push_back(o.take());  // a long capture has tens of thousands of steps: no copies
  }
  return {std::move(steps_json),   total,
          std::move(device_times), std::move(host_times),
          std::move(free_times),   std::move(worst),
          shown_from_profiler};
}

// The members of "overall" beside the breakdown: where the numbers come from, what a step is,
// the device, the self-check and the worst agreement.
nlohmann::json overall_extra(const DiagnosticContext& ctx, const RunFrame& f, const std::vector<Breakdown>& per,
                             const StepsShown& shown, bool have_track, Facts& facts) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;
  const std::vector<Step>& steps = f.steps();
  const std::vector<StepWindow>& windows = f.windows();
  const bool pseudo = f.pseudo(), launched = f.launched_work();
  const nlohmann::json& worst = shown.worst;
  const size_t shown_from_profiler = shown.shown_from_profiler;
  nlohmann::json extra;
  extra["source"] = shown_from_profiler == 0 ? "recomputed from device tasks"
                    : shown_from_profiler == steps.size()
                        ? "profiler's own numbers (the recomputation differs beyond tolerance)"
                        : "recomputed from device tasks, the profiler's own numbers on " +
                              std::to_string(shown_from_profiler) + " steps where they differ";
  extra["step_semantics"] = f.rule_name();
  // What a step's time is, for compare and gate: the device step (GPU: until the work the step
  // launched ends; a serving engine's iteration on Ascend: its own window), or the host
  // ProfilerStep span where every step has one (Ascend).
  if (launched) extra["step_time_rule"] = "launched_work";
  if (f.assignment() == StepAssignment::ClippedWindows) extra["step_time_rule"] = "iteration_window";
  extra["compute_tasks"] = d.compute_slices.size();
  extra["communication_ops"] = d.comm_slices.size();
  const bool gpu = m.meta.platform == "gpu";
  extra["communication_source"] = d.comm_from_ops ? "communication operator threads"
                                  : gpu           ? "NCCL kernels"
                                                  : "device HCCL tasks";
  if (gpu) {
    extra["device"] = d.device;
    extra["other_devices"] = d.other_devices;
    if (!d.other_devices.empty())
      facts.unavailable("overall.other_devices", "the trace holds kernels of several GPUs; the breakdown covers GPU " +
                                                     std::to_string(d.device) +
                                                     " (the busiest), the others are listed in overall.other_devices");
  }
  extra["device_window_ns"] = d.window.length();
  if (launched && !pseudo) {
    std::vector<StepParts> parts;
    for (const Breakdown& b : per) parts.push_back({b.device_time()});
    extra["self_check"] = launched_work_self_check(m, f.launched(), windows, parts);
  }
  if (!worst.is_null()) extra["worst_agreement"] = worst;
  if (!have_track && m.step_trace.empty())
    facts.unavailable("steps.profiler",
                      gpu ? "Kineto traces carry no profiler-computed step breakdown to cross-check against"
                          : "no " + std::string(role_name(Role::StepTraceTime)) +
                                " and no Overlap Analysis track to cross-check against");
  return extra;
}

}  // namespace

void diagnose_overlap(const DiagnosticContext& ctx, Facts& facts, StepIdle* idle) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;

  if (!(d.has_device && !d.compute.empty())) {
    if (!m.step_trace.empty()) return from_profiler_rows(m, facts, idle);
    no_breakdown(m, facts);
    return host_steps(m, ctx.frame, facts);
  }
  const RunFrame& f = ctx.frame;
  const std::vector<Breakdown> per = recompute(ctx, f, idle);
  std::vector<Breakdown> track(f.steps().size());
  const bool have_track = overlap_track_breakdown(m, f.windows(), track);
  StepsShown shown = steps_shown(ctx, f, per, track, have_track);
  const nlohmann::json extra = overall_extra(ctx, f, per, shown, have_track, facts);
  facts.doc["steps"] = std::move(shown.steps_json);
  if (idle) {
    idle->shown_device = shown.device_times;
    idle->shown_free = std::move(shown.free_times);
  }
  put_overall(facts, shown.total, f.steps().size(), std::move(shown.device_times), std::move(shown.host_times), extra);
}

}  // namespace npu
