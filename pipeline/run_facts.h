// The facts of one loaded run, with their "input" section (which path, what kind): the one place
// that stamps it, so every command (facts, analyze, compare, clusters) agrees; the rules read it
// to name real folders in their commands.
#pragma once
#include <string>

#include "facts/diagnostics/diagnostics.h"
#include "facts/facts.h"
#include "model/input.h"
#include "model/model.h"

namespace npu::pipeline {

Facts run_facts(const RunModel& model, const std::string& path, const Detection& d, const FactsOptions& options = {});

}  // namespace npu::pipeline
