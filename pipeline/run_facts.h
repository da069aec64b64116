// The facts of one loaded run, with their "input" section (which path, what kind): the one place
// that stamps it, so every command (facts, analyze, compare, clusters) agrees; the rules read it
// to name real folders in their commands. With `views`, also the run's view document (what the
// HTML report draws, views/views.h), computed beside the facts and never put into them.
// Called by the analysis entry only (pipeline/analysis.h).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "facts/diagnostics/facts_options.h"
#include "facts/facts.h"
#include "model/input.h"
#include "model/model.h"

namespace npu::pipeline {

// How the facts measure, beyond the model: the options of compute_facts (the thresholds the
// rules' declared parameters and --set resolve to, pipeline/facts_options.h) go here, and reach
// compute_facts only through run_facts.
struct FactsSettings {
  FactsOptions options;
};

Facts run_facts(const RunModel& model, const std::string& path, const Detection& d, const FactsSettings& settings,
                nlohmann::json* views = nullptr);

}  // namespace npu::pipeline
