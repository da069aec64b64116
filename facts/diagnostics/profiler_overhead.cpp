// "profiler_overhead" (docs/facts-gpu.md): how much of a host-bound step the profiler itself may
// be. torch.profiler records every operator the host runs (and, with with_stack, every Python
// call); each record costs host time that an unprofiled run does not spend. Where the GPU waits on
// the host, that time lengthens the step: the H200 traces of ../shared/realdata/kineto_h200 take
// 52.8 ms per step profiled (launch) against 25.4 ms without the profiler.
//
// Estimate per step = recorded operators x kOpCostNs + recorded Python calls x kPythonCallCostNs,
// at most the time the GPU idled in the step (the profiler's host cost can only lengthen a step
// by the time the GPU waits for the host). The costs were measured on the capture host of
// kineto_h200 (record_shapes and profile_memory on): (profiled - unprofiled step) / recorded ops
// is 2.82 us on `launch` and 2.83 us on `decode`; `sync` adds 0.36 us per python_function. They
// vary with the CPU, so the result is an estimate and says so. Operators inside a dataloader
// fetch are left out: an input pipeline is often bounded by I/O or by time rather than by its
// operators (`dataloader` in the same capture spins 2 ms per sample, which absorbs the
// profiler's cost), and the dataloader's own finding names that time.
#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "facts/diagnostics/diagnostics.h"

namespace npu {
namespace {

constexpr Ns kOpCostNs = 2'800;        // per recorded cpu_op / user_annotation
constexpr Ns kPythonCallCostNs = 360;  // per recorded python_function (with_stack)

}  // namespace

void diagnose_profiler_overhead(const DiagnosticContext& ctx, const StepIdle& idle, Facts& facts) {
  const RunModel& m = ctx.model;
  if (m.meta.framework != "pytorch") return;  // other profilers record differently: no estimate
  if (m.steps.empty()) {
    facts.unavailable("profiler_overhead", "no ProfilerStep#N: no step to weigh the profiler's cost against");
    return;
  }
  const StrId cpu_op = m.strings.find("cpu_op"), annotation = m.strings.find("user_annotation"),
              python = m.strings.find("python_function");
  std::vector<uint64_t> ops(m.steps.size(), 0), calls(m.steps.size(), 0);
  Intervals fetches;
  for (uint32_t i : ctx.host_causes().by_cause[static_cast<int>(HostCause::Dataloader)])
    fetches.push_back({m.slices[i].ts, m.slices[i].end()});
  fetches = union_of(std::move(fetches));
  auto in_fetch = [&](Ns ts) {
    auto it = std::upper_bound(fetches.begin(), fetches.end(), ts, [](Ns v, const Interval& f) { return v < f.start; });
    return it != fetches.begin() && ts < std::prev(it)->end;
  };
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const TrackKind k = m.tracks[t].kind;
    if (k != TrackKind::HostOther && k != TrackKind::HostPython) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      const bool op = s.cat != kEmptyStr && (s.cat == cpu_op || s.cat == annotation);
      const bool call = s.cat != kEmptyStr && s.cat == python;
      if (!op && !call) continue;
      const int step = ctx.frame.step_of_host(s.ts);
      if (step < 0) continue;
      if (op && m.str(s.name).rfind("ProfilerStep#", 0) == 0) continue;
      if (in_fetch(s.ts)) continue;
      (op ? ops : calls)[static_cast<size_t>(step)]++;
    }
  }
  std::vector<Ns> estimate, step_ns;
  nlohmann::json per = nlohmann::json::array();
  for (size_t i = 0; i < m.steps.size(); ++i) {
    Ns e = static_cast<Ns>(ops[i]) * kOpCostNs + static_cast<Ns>(calls[i]) * kPythonCallCostNs;
    Ns step = m.steps[i].end - m.steps[i].start;
    if (i < idle.shown_device.size() && i < idle.shown_free.size()) {
      e = std::min(e, idle.shown_free[i]);  // the GPU waited on the host at most this long
      step = idle.shown_device[i];
    }
    e = std::min(e, step);  // CPU-only runs: at most the step itself
    estimate.push_back(e);
    step_ns.push_back(step);
    if (i < kMaxStepDetail)
      per.push_back({{"id", m.steps[i].id}, {"ops", ops[i]}, {"python_calls", calls[i]}, {"estimate_ns", e}});
  }
  auto median = [](std::vector<Ns> v) {
    std::sort(v.begin(), v.end());
    return v[(v.size() - 1) / 2];
  };
  const Ns e = median(estimate), step = median(step_ns);
  const double share = step > 0 ? static_cast<double>(e) / static_cast<double>(step) : 0.0;
  facts.doc["profiler_overhead"] = {
      {"method",
       fmt::format("recorded operators x {:.2f} us + recorded Python calls x {:.2f} us per step, at most "
                   "the GPU's idle time in the step, operators inside a dataloader fetch left out; costs measured "
                   "on one x86 host with record_shapes and profile_memory (they vary with the CPU): an "
                   "estimate",
                   kOpCostNs / 1e3, kPythonCallCostNs / 1e3)},
      {"op_cost_ns", kOpCostNs},
      {"python_call_cost_ns", kPythonCallCostNs},
      {"estimate_ns", e},
      {"share_of_step", share},
      {"step_without_profiler_ns", step - e},
      {"steps", std::move(per)}};
}

}  // namespace npu
