// The serving transformations (transform_parts.h): what async scheduling and graphs captured for
// more batch sizes do to a serving engine's iterations. Their savings are of the iteration period
// (the windows and the host's turns between them, Replay::period_ns): the turn lies in no step.
#include <algorithm>

#include <fmt/format.h>

#include "facts/whatif/transform_parts.h"
#include "model/engine_patterns.h"  // InferencePhase

namespace npu::whatif {
namespace {

// Why a graph's steps are not a serving engine's iterations with a turn between two, or "".
std::string not_serving(const Graph& g) {
  if (!g.serving && g.iterations)
    return "the replay does not chain the windows of an Ascend run's iterations: the turn between two is not replayed";
  if (!g.serving) return "the steps are not a serving engine's iterations";
  if (g.steps.size() < 2) return "one iteration: the trace holds no turn between two";
  return "";
}

}  // namespace

Transform async_scheduling(const Graph& g) {
  Transform t;
  t.name = "async_scheduling";
  if (t.why = not_serving(g); !t.why.empty()) return t;
  Ns turns = 0, taken = 0;
  size_t n = 0, waits = 0;
  for (size_t i = 0; i + 1 < g.steps.size(); ++i) {
    const StepRef &a = g.steps[i], &b = g.steps[i + 1];
    const Ns from = g.items[a.end_mark].s, to = g.items[b.start_mark].s;
    if (to <= from) continue;
    // The turn overlaps the iteration before it on the device, at most as long as that runs.
    const Ns take = std::min(to - from, a.measured_end - a.measured_start);
    t.edit.removed.push_back({from, from + take});
    for (uint32_t j = a.end_mark + 1; j < b.start_mark; ++j)
      if (g.items[j].kind == ItemKind::Sync) t.edit.unblock.push_back({j, 0}), ++waits;
    turns += to - from, taken += take, ++n;
  }
  if (n == 0) {
    t.why = "no host time between one iteration's annotation and the next one's";
    t.edit = {};
    return t;
  }
  t.applicable = true;
  const double per_turn = per_graph_step(g, static_cast<double>(turns));
  t.formula = fmt::format(
      "the host's turn between two iterations ({} turns, {:.3f} ms per iteration, from one iteration's annotation end "
      "to the next one's start) overlapped with the device work of the iteration before it: {:.3f} ms per iteration "
      "taken off the host (at most that iteration's window each){}",
      n, to_ms(per_turn), to_ms(per_graph_step(g, static_cast<double>(taken))),
      waits ? fmt::format("; {} host waits for the device in the turns no longer block", waits) : "");
  t.detail["host_turn_ns"] = static_cast<Ns>(per_turn);
  return t;
}

Transform capture_sizes(const RunModel& m, const Graph& g, const Intervals& fetches) {
  Transform t;
  t.name = "capture_sizes";
  if (!g.serving) {
    t.why = not_serving(g);
    return t;
  }
  // Each step's phase, as its annotation says it (the steps are the engine's iterations).
  const std::vector<InferencePhase>& phase = m.meta.iteration_phases;
  auto decode = [&](size_t i) {
    const size_t step = g.first_step + i;
    return step < phase.size() && phase[step] == InferencePhase::Decode;
  };
  std::vector<uint8_t> graphed(g.steps.size(), 0);
  for (const DeviceTask& d : g.tasks)
    if (d.step >= 0 && d.launched && graph_launch(m, g.items[d.launcher])) graphed[static_cast<size_t>(d.step)] = 1;
  std::vector<uint8_t> eager(g.steps.size(), 0);
  size_t eager_n = 0, graphed_n = 0;
  for (size_t i = 0; i < g.steps.size(); ++i) {
    graphed_n += graphed[i];
    if (!graphed[i] && decode(i)) eager[i] = 1, ++eager_n;
  }
  if (graphed_n == 0) {
    t.why = "no iteration replays a graph: nothing to time a captured iteration by (graphs applies)";
    return t;
  }
  if (eager_n == 0) {
    t.why = "no decode iteration ran eager";
    return t;
  }
  Ns node_cost = 0, gap = 0;
  bool measured = false;
  graph_costs(m, g, &node_cost, &gap, &measured);
  uint64_t launches = 0;
  const uint64_t runs = graph_runs(g, fetches, &eager, node_cost, gap, t.edit, &launches);
  if (runs == 0) {
    t.why = "no eager decode iteration launches two or more device tasks between host waits";
    t.edit = {};
    return t;
  }
  t.applicable = true;
  t.formula = fmt::format(
      "the {} eager decode iterations (of {}; {} replay graphs) replayed from graphs: {} runs of launches between host "
      "waits ({} launches) each made one graph launch, host cost {:.2f} us per graph node, kernels {:.2f} us apart "
      "({})",
      eager_n, g.steps.size(), graphed_n, runs, launches, static_cast<double>(node_cost) / 1e3,
      static_cast<double>(gap) / 1e3,
      measured ? "measured in the trace's graph replays" : "defaults: the trace's replays give no measure");
  t.detail["eager_iterations"] = eager_n;
  return t;
}

}  // namespace npu::whatif
