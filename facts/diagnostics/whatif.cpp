// "whatif": the steps replayed unchanged and with each fix applied (docs/whatif.md).
#include "facts/whatif/whatif.h"

#include <cmath>

#include "facts/diagnostics/diagnostics.h"
#include "facts/roofline/tensor_cores.h"

namespace npu {
namespace whatif {

using nlohmann::json;

constexpr double kCombineFloor = 0.01;

namespace {

// What a saving is a share of: the steps' windows, or a serving run's iteration periods (its
// windows and the host's turns between them).
Ns saved(const Graph& g, const Replay& r) { return g.serving ? r.period_ns() : r.total_ns; }

// With torch_npu's task queue (async_task_queue arrows): the two-stage graph and its replay.
void prepare_two_stage(const DiagnosticContext& ctx, WhatIf& w) {
  if (!has_task_queue(ctx.model)) return;
  const size_t n = w.measured.size();
  const StepBlock block = n > kTwoStageSteps ? StepBlock{(n - kTwoStageSteps) / 2, kTwoStageSteps} : StepBlock{};
  w.queue_graph = build_graph(ctx.frame, ctx.host_causes().by_cause[static_cast<int>(HostCause::Sync)], true, block);
  if (!w.queue_graph.why_not.empty() || w.queue_graph.links.empty()) return;
  w.two_stage = true;
  w.queue_base = simulate(w.queue_graph);
  const size_t first = w.queue_graph.first_step;
  for (size_t i = first; i < first + w.queue_graph.steps.size(); ++i) w.queue_measured_total += w.measured[i];
  w.queue_deviation = w.queue_measured_total > 0 ? static_cast<double>(w.queue_base.total_ns - w.queue_measured_total) /
                                                       static_cast<double>(w.queue_measured_total)
                                                 : 1.0;
}

}  // namespace

WhatIf prepare(const DiagnosticContext& ctx) {
  WhatIf w;
  const RunModel& m = ctx.model;
  if (!ctx.device.has_device) {
    w.why_not = "no device tasks";
    return w;
  }
  const RunFrame& f = ctx.frame;
  const HostCauseSlices& causes = ctx.host_causes();
  w.graph = build_graph(f, causes.by_cause[static_cast<int>(HostCause::Sync)]);
  if (!w.graph.why_not.empty()) {
    w.why_not = w.graph.why_not;
    return w;
  }
  w.steps = f.steps();
  w.base = simulate(w.graph);
  for (const StepWindow& s : f.windows()) {
    w.measured.push_back(s.end - s.start);
    w.measured_total += s.end - s.start;
  }
  if (w.graph.serving) w.measured_turns = turns_between(f.windows());
  auto deviation = [](Ns replayed, Ns measured) {
    return measured > 0 ? static_cast<double>(replayed - measured) / static_cast<double>(measured) : 1.0;
  };
  w.deviation = deviation(w.base.total_ns, w.measured_total);
  w.period_deviation = deviation(w.base.period_ns(), w.measured_period());
  w.usable = std::fabs(w.deviation) <= kReproduceTolerance && std::fabs(w.period_deviation) <= kReproduceTolerance;
  if (std::fabs(w.deviation) > kReproduceTolerance)
    w.why_not = "the unmodified replay differs from the measured steps by " + std::to_string(w.deviation * 100) + "%";
  else if (!w.usable)
    w.why_not = "the unmodified replay differs from the measured iteration periods (windows and the turns between "
                "them) by " +
                std::to_string(w.period_deviation * 100) + "%";
  prepare_two_stage(ctx, w);
  w.transforms = make_transforms(m, w.graph, w.host_graph(), causes, roofline::tensor_core_times(ctx));
  // The host-pipeline savings are used only where the two-stage replay gives the steps back too.
  const double off = w.two_stage ? w.queue_deviation : w.deviation;
  if (std::fabs(off) > kReproduceTolerance)
    for (Transform& t : w.transforms)
      if (t.two_stage && t.applicable)
        t = {t.name, false, "the two-stage replay differs from the measured steps by " + std::to_string(off * 100) + "%",
             "", {}, true};
  return w;
}

Edit combine(const WhatIf& w, const std::vector<std::string>& names, std::vector<std::string>* unknown) {
  Edit e;
  // One graph per replay: the host-pipeline transformations only among themselves.
  bool host = !names.empty();
  for (const std::string& n : names) host = host && two_stage_transform(n);
  for (const std::string& n : names) {
    bool found = false;
    for (const Transform& t : w.transforms)
      if (t.name == n && t.applicable && t.two_stage == host) {
        e.add(t.edit);
        found = true;
      }
    if (!found && unknown) unknown->push_back(n);
  }
  return e;
}

json apply(const WhatIf& w, const std::vector<std::string>& names) {
  std::vector<std::string> unknown;
  const Edit e = combine(w, names, &unknown);
  bool host = !names.empty();
  for (const std::string& n : names) host = host && two_stage_transform(n);
  const Graph& g = host ? w.host_graph() : w.graph;
  const Replay r = simulate(g, &e, true);
  const Replay b = simulate(g, nullptr, true);
  const double n = static_cast<double>(std::max<size_t>(1, r.step_ns.size()));
  const size_t first = g.first_step;
  Ns measured_total = 0;
  for (size_t i = 0; i < r.step_ns.size(); ++i) measured_total += w.measured[first + i];
  auto split = [&](const Replay& x) {
    Ns c = 0, m = 0, p = 0;
    for (size_t i = 0; i < x.step_ns.size(); ++i)
      c += x.computing_ns[i], m += x.communication_ns[i], p += x.copies_ns[i];
    return json{{"computing_ns", static_cast<Ns>(c / n)},
                {"communication_ns", static_cast<Ns>(m / n)},
                {"copies_ns", static_cast<Ns>(p / n)},
                {"idle_ns", static_cast<Ns>((x.total_ns - c - m - p) / n)}};
  };
  json per = json::array();
  for (size_t i = 0; i < r.step_ns.size(); ++i)
    per.push_back({{"id", w.steps[first + i].id == kNoId ? json(nullptr) : json(w.steps[first + i].id)},
                   {"measured_ns", w.measured[first + i]},
                   {"replayed_ns", b.step_ns[i]},
                   {"after_ns", r.step_ns[i]}});
  json out = {{"transforms", names},
              {"not_applied", unknown},
              {"steps", r.step_ns.size()},
              {"measured_step_ns", static_cast<Ns>(static_cast<double>(measured_total) / n)},
              {"replayed_step_ns", static_cast<Ns>(static_cast<double>(b.total_ns) / n)},
              {"step_ns", static_cast<Ns>(static_cast<double>(r.total_ns) / n)},
              {"saving_ns", static_cast<Ns>(static_cast<double>(saved(g, b) - saved(g, r)) / n)},
              {"before", split(b)},
              {"after", split(r)},
              {"per_step", std::move(per)}};
  if (g.serving)
    out["period"] = {{"measured_ns", static_cast<Ns>(static_cast<double>(w.measured_period()) / n)},
                     {"replayed_ns", static_cast<Ns>(static_cast<double>(b.period_ns()) / n)},
                     {"after_ns", static_cast<Ns>(static_cast<double>(r.period_ns()) / n)}};
  json formulas = json::object();
  for (const Transform& t : w.transforms)
    for (const std::string& name : names)
      if (t.name == name && t.applicable) formulas[name] = t.formula;
  out["formulas"] = std::move(formulas);
  return out;
}

namespace {
json step_id(const WhatIf& w, size_t i) {
  return i < w.steps.size() && w.steps[i].id != kNoId ? json(w.steps[i].id) : json(nullptr);
}
}  // namespace

json section(const WhatIf& w) {
  const Graph& g = w.graph;
  if (w.base.step_ns.empty()) return {{"available", false}, {"why", w.why_not}};
  const double n = static_cast<double>(w.base.step_ns.size());
  auto per_step = [&](Ns total) { return static_cast<Ns>(static_cast<double>(total) / n); };
  // the two-stage graph may hold a block of the steps (kTwoStageSteps)
  const double nq = static_cast<double>(std::max<size_t>(1, w.queue_base.step_ns.size()));
  auto per_queue_step = [&](Ns total) { return static_cast<Ns>(static_cast<double>(total) / nq); };
  json out = {
      {"available", true},
      {"steps", w.base.step_ns.size()},
      {"measured_step_ns", per_step(w.measured_total)},
      {"replayed_step_ns", per_step(w.base.total_ns)},
      {"deviation", w.measured_total > 0 ? w.deviation : 0.0},
      {"reproduces", w.usable},
      {"tasks", g.tasks.size()},
      {"joined", g.joined},
      {"host_items", g.items.size()},
      {"typical",
       {{"launch_latency_ns", g.launch_latency}, {"stream_gap_ns", g.stream_gap}, {"launch_cost_ns", g.launch_cost}}}};
  if (w.two_stage) {
    const Graph& q = w.queue_graph;
    out["two_stage"] = {{"queue_links", q.links.size()},
                        {"host_items", q.items.size()},
                        {"steps", q.steps.size()},
                        {"step_ids", {step_id(w, q.first_step), step_id(w, q.first_step + q.steps.size() - 1)}},
                        {"measured_step_ns", per_queue_step(w.queue_measured_total)},
                        {"replayed_step_ns", per_queue_step(w.queue_base.total_ns)},
                        {"deviation", w.queue_measured_total > 0 ? w.queue_deviation : 0.0},
                        {"reproduces", std::fabs(w.queue_deviation) <= kReproduceTolerance},
                        {"queue_lag_ns", q.queue_lag},
                        {"queue_gap_ns", q.queue_gap}};
  }
  if (g.serving)
    out["period"] = {{"measured_ns", per_step(w.measured_period())},
                     {"replayed_ns", per_step(w.base.period_ns())},
                     {"measured_turn_ns", per_step(w.measured_turns)},
                     {"replayed_turn_ns", per_step(w.base.turns_ns)},
                     {"deviation", w.measured_period() > 0 ? w.period_deviation : 0.0},
                     {"reproduces", std::fabs(w.period_deviation) <= kReproduceTolerance}};
  if (!w.usable) out["why"] = w.why_not;
  json ts = json::object();
  std::vector<std::string> applicable;
  for (const Transform& t : w.transforms) {
    json j = {{"applicable", t.applicable}};
    for (const auto& [k, v] : t.detail.items()) j[k] = v;
    if (!t.applicable) {
      j["why"] = t.why;
    } else {
      const Replay& base = t.two_stage ? w.host_base() : w.base;
      const Replay r = simulate(t.two_stage ? w.host_graph() : g, &t.edit);
      j["formula"] = t.formula;
      const bool q = t.two_stage && w.two_stage;
      j["step_ns"] = q ? per_queue_step(r.total_ns) : per_step(r.total_ns);
      j["saving_ns"] = q ? per_queue_step(base.total_ns - r.total_ns) : per_step(saved(g, base) - saved(g, r));
      if (g.serving && !t.two_stage) j["period_ns"] = per_step(r.period_ns());
      // A fix the replay says would save under 1 % of the step is left out of the combined one,
      // and so is TF32, the lesser of two alternatives for the same kernels (bf16 is the other),
      // and the host-pipeline ones (another graph).
      if (t.name != "tf32" && !t.two_stage &&
          static_cast<double>(saved(g, w.base) - saved(g, r)) >= kCombineFloor * static_cast<double>(saved(g, w.base)))
        applicable.push_back(t.name);
    }
    ts[t.name] = std::move(j);
  }
  out["transforms"] = std::move(ts);
  const Edit all = combine(w, applicable);
  const Replay r = simulate(g, &all);
  out["combined"] = {{"transforms", applicable},
                     {"step_ns", per_step(r.total_ns)},
                     {"saving_ns", per_step(saved(g, w.base) - saved(g, r))}};
  if (g.serving) out["combined"]["period_ns"] = per_step(r.period_ns());
  return out;
}

}  // namespace whatif

void diagnose_whatif(const DiagnosticContext& ctx, Facts& facts) {
  const whatif::WhatIf w = whatif::prepare(ctx);
  facts.doc["whatif"] = whatif::section(w);
  if (w.base.step_ns.empty()) facts.unavailable("whatif", w.why_not);
}

}  // namespace npu
