// Compare two runs' facts: what got slower, and why (docs/compare-gate.md).
//
// build_compare() reads only the two facts documents (and the ranked findings the rule engine
// produced on each), never the raw inputs, so a facts file written by `npu-advisor facts` today
// compares with a run loaded tomorrow. Every section is optional on either side: what a side
// lacks is said in `notes` and the section reports `available: false`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/facts.h"

namespace npu::compare {

constexpr const char* kCompareSchema = "npu-advisor.compare";
constexpr int kCompareSchemaVersion = 1;

struct CompareSide {
  std::string path;
  std::string kind;         // "facts file", or the input kind ("AscendRun", "TraceFile", ...)
  std::string description;  // one line
  Facts facts;
  nlohmann::json views;  // what the compare page draws (views/views.h); null for a facts file
  nlohmann::json findings = nlohmann::json::array();  // ranked_findings() of the rule engine
  nlohmann::json verdicts = nlohmann::json::object();  // verdict_document() of the rule engine
  std::vector<std::string> warnings;                  // the loaders' (records skipped, ...); none for a facts file
  std::vector<std::string> rejected;                  // those of them that dropped records (LoadStats::rejected)
};

struct CompareOptions {
  bool skip_warmup = true;        // drop the first step of a side that has >= 4 steps
  size_t min_steps_for_test = 3;  // per side (after the warm-up drop) for the noise test
  double confidence = 0.95;       // of the bootstrap interval
  int resamples = 4000;
  uint64_t seed = 20261122;
  size_t why_limit = 10;
};

// The compare document (schema "npu-advisor.compare", version 1).
nlohmann::json build_compare(const CompareSide& base, const CompareSide& next, const CompareOptions& opt = {});

// The noise test on two per-step series: a bootstrap interval of the difference of medians
// (and a Mann-Whitney U p-value), or {possible: false, why} with fewer than min_steps values
// on a side. Shared with the gate.
// paired: the two series are the same steps (same ids, same order): the test is then on the
// per-step differences (bootstrap of their median, Wilcoxon signed-rank), which removes the
// step-to-step structure both runs share (a periodic slow step, say).
nlohmann::json noise_test(const std::vector<double>& base, const std::vector<double>& next, const CompareOptions& opt,
                          bool paired);

}  // namespace npu::compare
