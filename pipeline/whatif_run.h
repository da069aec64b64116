// `npu-advisor whatif`: one run replayed with the named fixes (facts/whatif/whatif.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace npu::pipeline {

// {available, why, reproduces, deviation, transforms_known: {name: {applicable, why, formula,
// saving_ns}}, and, with `apply` not empty, result: whatif::apply()}. Unknown names in
// `apply` are a LoadError-free error: listed in result.not_applied.
nlohmann::json whatif_run(const RunModel& m, const std::vector<std::string>& apply);

}  // namespace npu::pipeline
