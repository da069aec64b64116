// The what-if replay as facts (section "whatif", docs/whatif.md) and as the `whatif` command's
// answer: the run's steps replayed unchanged (which must reproduce the measured steps) and with
// each transformation (transforms.h) applied, alone and all together.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/whatif/transforms.h"

namespace npu {
struct DiagnosticContext;
struct Facts;

namespace whatif {

// A replay differing from the measured steps by more than this is not used for savings.
constexpr double kReproduceTolerance = 0.01;
// The two-stage replay holds at most this many consecutive steps, the middle ones of a longer run:
// its graph is three times the size of the one-lane one (an item per Enqueue and per Dequeue),
// and the host pipeline's saving per step is the same in any stretch of a steady loop.
constexpr size_t kTwoStageSteps = 64;

struct WhatIf {
  Graph graph;
  Replay base;
  std::vector<Transform> transforms;
  std::vector<Step> steps;   // the breakdown's (one pseudo-step without a schedule)
  std::vector<Ns> measured;  // per step: the breakdown's window
  Ns measured_total = 0;
  double deviation = 0;  // (replayed - measured) / measured over all steps
  // A serving run (Graph::serving): the measured turns between its iterations (turn_between), in
  // total, and the deviation of the replayed period (windows and turns) from the measured one.
  // Its savings are of the period: a fix that shortens the host's turn shortens no window.
  Ns measured_turns = 0;
  double period_deviation = 0;
  Ns measured_period() const { return measured_total + measured_turns; }
  bool usable = false;   // replayable and reproducing the measured steps
  std::string why_not;
  // torch_npu's task queue in the trace: the steps replayed again as a two-stage host pipeline
  // (replay_queue.cpp), for the host-pipeline transformations; else they use `graph`.
  bool two_stage = false;
  Graph queue_graph;
  Replay queue_base;
  Ns queue_measured_total = 0;  // the measured windows of the two-stage graph's steps (queue_graph.first_step...)
  double queue_deviation = 0;
  const Graph& host_graph() const { return two_stage ? queue_graph : graph; }
  const Replay& host_base() const { return two_stage ? queue_base : base; }
};

WhatIf prepare(const DiagnosticContext& ctx);

// The edits of the named transformations together (unknown or inapplicable names: `unknown`).
Edit combine(const WhatIf& w, const std::vector<std::string>& names, std::vector<std::string>* unknown = nullptr);

// The facts section "whatif" (docs/whatif.md): the unmodified replay, each transformation alone
// and the combined one.
nlohmann::json section(const WhatIf& w);

// One replay with the named transformations: {transforms, steps, measured_step_ns,
// replayed_step_ns, saving_ns, split: {computing_ns, communication_ns, copies_ns, idle_ns} per
// step on average, per_step: [{id, measured_ns, replayed_ns}]}.
nlohmann::json apply(const WhatIf& w, const std::vector<std::string>& names);

}  // namespace whatif

void diagnose_whatif(const DiagnosticContext& ctx, Facts& facts);  // facts/diagnostics/whatif.cpp: "whatif"

}  // namespace npu
