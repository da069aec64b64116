// One side of `compare BASE NEW` / `gate --baseline BASE NEW` (docs/compare-gate.md): any single
// input `analyze` takes, or a facts file written by `facts`; its facts and its ranked findings.
#pragma once
#include <string>

#include "compare/compare.h"
#include "pipeline/load_settings.h"
#include "pipeline/rule_run.h"

namespace npu::pipeline {

// Throws LoadError for an input that cannot be one side (a cluster, a bad file, rules that
// cannot run). The loaders' warnings are in the side's `warnings`, for the caller to show.
compare::CompareSide load_compare_side(const std::string& path, const LoadSettings& settings, const RuleOptions& rules);

}  // namespace npu::pipeline
