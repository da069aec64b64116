// Facts: the one contract between the C++ analyses and everything after them (rules,
// reports, compare, cluster). A versioned JSON document whose sections are documented in
// docs/facts.md; dumped by `npu-advisor facts`, read back by read_facts().
//
// Conventions: durations and timestamps are integers in ns (`*_ns`), ratios are 0..1
// (`*_ratio`), memory in MB (`*_mb`), bandwidth in GB/s (`*_gbps`). Every derived number
// carries `evidence`: a few references back into the inputs ({file, byte|line, what}).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace npu {

constexpr int kFactsSchemaVersion = 2;
constexpr const char* kFactsSchema = "npu-advisor.facts";

// The per-step lists of the facts (steps, dispatch.steps, gpu.steps, idle_attribution.by_step,
// profiler_overhead.steps) hold the first kMaxStepDetail steps; every total, median and count
// still covers all of them (overall.steps). A capture of 1e6 tiny steps cost 20 KB a step.
constexpr size_t kMaxStepDetail = 20000;

struct Facts {
  nlohmann::json doc = nlohmann::json::object();

  // Records that a fact could not be computed, and why (shown as a skipped check).
  void unavailable(std::string_view fact, std::string_view why);
  // A warning of the facts' own (a detail left out), after the loaders' in run.warnings and
  // in `warnings` (for the report, which shows them after the loaders').
  void warn(const std::string& text);
  std::vector<std::string> warnings;
  bool has(std::string_view section) const { return doc.contains(std::string(section)); }
};

// Evidence references. `what` says in a few words what the referenced record shows.
// `loc` is a Slice/Flow location: a byte offset, or a (part, rowid) pair (RunModel::decode_loc),
// written as {file, byte} or {file, table, rowid}.
nlohmann::json evidence_event(const RunModel& m, uint64_t loc, std::string_view what);
// An event of another file of the run (RunModel::files index `file`, `byte` its offset there: a
// graph capture trace beside the replay); file < 0: a location of the trace (evidence_event).
nlohmann::json evidence_event_in(const RunModel& m, int32_t file, uint64_t byte, std::string_view what);
nlohmann::json evidence_row(const RunModel& m, Role role, uint32_t line, std::string_view what);
nlohmann::json evidence_file(const RunModel& m, Role role, std::string_view what);
// A step id as the facts write it: null for none (outside every step, or the pseudo-step).
inline nlohmann::json step_json(int64_t id) { return id == kNoId ? nlohmann::json(nullptr) : nlohmann::json(id); }

// The run's metadata (framework, rank, device, profiler level, versions, env, config,
// distributed args, the groups' names) as the "run" object that facts and the run summary share.
nlohmann::json run_metadata_json(const RunModel& m);
// The groups' names as run.parallel_groups: [{group (the id communication records use), name, ranks, id}].
nlohmann::json parallel_groups_json(const std::vector<ParallelGroup>& groups);

// Reads a facts document (written by `npu-advisor facts`); throws LoadError when it is not
// one or has a newer major schema version.
Facts read_facts(const std::string& path);
// The same checks on a document already parsed from `path` (named in the errors).
Facts facts_from_json(nlohmann::json doc, const std::string& path);

}  // namespace npu
