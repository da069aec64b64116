// `npu-advisor whatif`: one run replayed with the named fixes (facts/whatif/whatif.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace npu::pipeline {

// The facts section "whatif" of the run (whatif::section) and, with `apply` not empty and a
// replay available, result: whatif::apply() (names it cannot apply in result.not_applied).
nlohmann::json whatif_run(const RunModel& m, const std::vector<std::string>& apply);

}  // namespace npu::pipeline
