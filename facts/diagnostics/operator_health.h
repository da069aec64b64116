// The operator-level checks behind "operator_health" (docs/facts-operators.md), one file per
// check, and what they share: per-step aggregates, top-k lists and their JSON. Only the files of
// this section include it. Facts only: measurements, no verdicts and no thresholds of a check
// (the rules declare those as parameters, docs/rules.md). The "rows" cited are the reference
// advisor's checks the figures serve; the few bounds that define what a count counts (a GC event
// of at least 1 ms, a slow fetch of 10 ms) are written beside it as `reference_*` keys.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/stats.h"
#include "facts/diagnostics/diagnostics.h"

namespace npu::operator_health {

constexpr size_t kTop = 10;  // entries in every list

using stats::ratio;  // base/stats.h

std::string lower(std::string_view s);

inline bool starts_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

// Accelerator cores of communication tasks in kernel_details.csv.
inline bool is_comm_core(std::string_view core) {
  return core == "HCCL" || core == "COMMUNICATION" || core == "HCCL_AICPU";
}

// The k longest items seen (by duration), longest first.
struct TopK {
  struct Item {
    Ns dur;
    uint32_t index;
  };
  size_t k;
  std::vector<Item> items;
  explicit TopK(size_t k_) : k(k_) {}
  void add(Ns dur, uint32_t index) {
    if (items.size() == k && dur <= items.back().dur) return;
    auto it = std::upper_bound(items.begin(), items.end(), dur, [](Ns d, const Item& x) { return d > x.dur; });
    items.insert(it, Item{dur, index});
    if (items.size() > k) items.pop_back();
  }
};

// Count / total / max with the longest instance.
struct Agg {
  uint64_t count = 0;
  Ns total = 0;
  Ns max = -1;
  uint32_t max_index = 0;
  void add(Ns dur, uint32_t index) {
    ++count;
    total += dur;
    if (dur > max) {
      max = dur;
      max_index = index;
    }
  }
};

// An Agg over the run and one per step.
struct StepAgg {
  Agg all;
  std::map<int64_t, Agg> by_step;  // kNoId = outside every step
  void add(const RunFrame& f, const Slice& s, uint32_t index) {
    all.add(s.dur, index);
    by_step[f.step_id_of_host(s.ts)].add(s.dur, index);
  }
};

inline nlohmann::json slice_evidence(const RunModel& m, uint32_t i, std::string_view what) {
  return evidence_event(m, m.slices[i].loc, what);
}

// The kTop steps with the most time in these calls (then by step id).
nlohmann::json by_step_json(const RunModel& m, const StepAgg& a, const std::string& what);
// Counts over every step of the run, including steps without any call, so nothing depends on
// the by_step cap.
nlohmann::json step_summary_json(const RunModel& m, const StepAgg& a);
// The slices of a TopK with their step and evidence.
nlohmann::json top_slices_json(const RunFrame& f, const TopK& top, const std::string& what);

// ---- Kernel-table checks: each writes health[<its key>] or records why it cannot ----
// compute_ns: kernel time outside communication cores; all_ns: every kernel; max_all: the
// longest kernel.
void ai_cpu_from_kernels(const RunModel& m, Ns compute_ns, Ns all_ns, Ns max_all, nlohmann::json& out);  // ai_cpu.cpp
void ai_cpu_from_trace(const DiagnosticContext& ctx, nlohmann::json& out);                               // ai_cpu.cpp
void dynamic_shape(const RunModel& m, nlohmann::json& health, Facts& facts);             // dynamic_shape.cpp
void block_dim(const RunModel& m, Ns compute_ns, nlohmann::json& health, Facts& facts);  // block_dim.cpp
// pmu.cpp: a type is bound by its busiest pipe when that pipe's ratio reaches bound_ratio.
void pmu(const RunModel& m, double bound_ratio, nlohmann::json& health, Facts& facts);

// The trace checks, built from one HostTracePass, are declared beside it (host_trace_pass.h).

// The "memory" section (memory.cpp): peaks of memory_record.csv, largest allocations of
// operator_memory.csv.
void memory(const RunFrame& f, Facts& facts);

}  // namespace npu::operator_health
