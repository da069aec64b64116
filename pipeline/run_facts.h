// The facts of one loaded run, with their "input" section (which path, what kind): the one place
// that stamps it, so every command (facts, analyze, compare, clusters) agrees; the rules read it
// to name real folders in their commands. With `views`, also the run's view document (what the
// HTML report draws, views/views.h), computed beside the facts and never put into them. `options`:
// the thresholds to measure with (pipeline/facts_options.h resolves them from the rule options).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "facts/diagnostics/facts_options.h"
#include "facts/facts.h"
#include "model/input.h"
#include "model/model.h"

namespace npu::pipeline {

Facts run_facts(const RunModel& model, const std::string& path, const Detection& d, nlohmann::json* views = nullptr,
                const FactsOptions& options = {});

}  // namespace npu::pipeline
