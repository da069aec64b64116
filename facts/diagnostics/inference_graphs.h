// The graph side of the "inference" facts (docs/facts-inference.md, "Graph replays opened up"):
// the classes of the iterations' device time (from their captures where replays were paired)
// and the graph coverage (replay share, eager iterations, eager work inside graphed ones).
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/inference/iterations.h"

namespace npu {

// {class: share of the op time} over the classes with any time; null without op time.
nlohmann::json class_shares(const std::array<Ns, kOpClasses>& ns);
// inference.graphs: the captures and pairing, coverage and classes; `warm`: the warm-up
// iterations the steady state leaves out.
nlohmann::json graphs_json(const RunModel& m, const InferenceRun& run, const std::vector<bool>& warm);

}  // namespace npu
