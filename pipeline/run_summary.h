// The loaded-run summary document (reports/run_summary.h renders it), built from the model:
// what was found and counted, and the profiler's own step breakdown.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "model/input.h"
#include "model/model.h"
#include "reports/run_summary.h"

namespace npu {

nlohmann::json summarize_run(const RunModel& model, const Detection& input);

// A cluster: one summary per member (or its load error).
nlohmann::json summarize_cluster(const Detection& input, const std::vector<nlohmann::json>& members);

}  // namespace npu
