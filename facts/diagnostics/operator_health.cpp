// "operator_health": the operator-level checks of the reference advisor (its rows 5-8, 17-21,
// 23, 24) as facts, one file per check (operator_health.h lists them): AI CPU
// operators, dynamic shapes, block dims, PMU bound ratios, online compiles, stream syncs, Python
// GC, slow dataloader, memory APIs, SyncBatchNorm. Then "memory" (memory.cpp).
//
// Facts only: measurements; the rules decide (with their declared parameters). The bounds that
// define a count are recorded beside it (as `reference_*`). See docs/facts-operators.md.
#include "facts/diagnostics/operator_health.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "facts/diagnostics/host_trace_pass.h"

namespace npu {
namespace operator_health {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

nlohmann::json by_step_json(const RunModel& m, const StepAgg& a, const std::string& what) {
  std::vector<std::pair<int64_t, const Agg*>> v;
  for (const auto& [step, g] : a.by_step) v.emplace_back(step, &g);
  std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) {
    if (x.second->total != y.second->total) return x.second->total > y.second->total;
    return x.first < y.first;
  });
  nlohmann::json arr = nlohmann::json::array();
  for (size_t n = 0; n < v.size() && n < kTop; ++n) {
    const Agg& g = *v[n].second;
    arr.push_back(
        {{"step", step_json(v[n].first)},
         {"count", g.count},
         {"total_ns", g.total},
         {"max_ns", g.max},
         {"evidence", nlohmann::json::array({slice_evidence(m, g.max_index, "longest " + what + " of the step")})}});
  }
  return arr;
}

nlohmann::json step_summary_json(const RunModel& m, const StepAgg& a) {
  uint64_t with = 0, max_count = 0, min_count = 0, outside = 0;
  bool first = true;
  for (const Step& s : m.steps) {
    auto it = a.by_step.find(s.id);
    uint64_t c = it == a.by_step.end() ? 0 : it->second.count;
    if (c) ++with;
    max_count = std::max(max_count, c);
    min_count = first ? c : std::min(min_count, c);
    first = false;
  }
  auto it = a.by_step.find(kNoId);
  if (it != a.by_step.end()) outside = it->second.count;
  return {{"steps", m.steps.size()},
          {"steps_with_calls", with},
          {"max_step_count", max_count},
          {"min_step_count", min_count},
          {"outside_steps_count", outside}};
}

nlohmann::json top_slices_json(const RunFrame& f, const TopK& top, const std::string& what) {
  const RunModel& m = f.model();
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& it : top.items) {
    const Slice& s = m.slices[it.index];
    arr.push_back({{"name", m.str(s.name)},
                   {"ts_ns", s.ts},
                   {"dur_ns", s.dur},
                   {"step", step_json(f.step_id_of_host(s.ts))},
                   {"evidence", nlohmann::json::array({slice_evidence(m, it.index, what)})}});
  }
  return arr;
}

}  // namespace operator_health

namespace {

using namespace operator_health;

// The checks built from the host tracks of the trace (one pass over them).
void trace_checks(const DiagnosticContext& ctx, nlohmann::json& health, Facts& facts) {
  const RunModel& m = ctx.model;
  const HostTracePass p = run_host_trace_pass(ctx);
  if (m.slices.empty()) {
    for (const char* f : {"compile", "sync", "gc", "dataloader", "memory_api", "syncbn"})
      facts.unavailable(std::string("operator_health.") + f,
                        "no " + std::string(role_name(Role::Trace)) + " (or it has no slices)");
    return;
  }
  if (p.have_cann) {
    health["compile"] = op_compile_json(ctx, p);
    health["sync"] = stream_sync_json(ctx, p);
    health["memory_api"] = memory_api_json(m, p);
  } else {
    for (const char* f : {"compile", "sync", "memory_api"})
      facts.unavailable(std::string("operator_health.") + f,
                        run_platform(m) == "ascend" ? "no CANN process in the trace (AscendCL calls not recorded)"
                                                    : "AscendCL (CANN) check: Ascend runs only");
  }
  health["gc"] = gc_json(ctx, p);
  if (p.have_python) {
    health["dataloader"] = dataloader_json(ctx, p);
    health["syncbn"] = syncbn_json(m, p);
  } else {
    for (const char* f : {"dataloader", "syncbn"})
      facts.unavailable(std::string("operator_health.") + f, "no Python (host) process in the trace");
  }
}

}  // namespace

void diagnose_operator_health(const DiagnosticContext& ctx, Facts& facts) {
  const RunModel& m = ctx.model;
  nlohmann::json health = nlohmann::json::object();

  if (!m.kernels.empty()) {
    Ns compute_ns = 0, all_ns = 0, max_all = 0;
    for (const Kernel& k : m.kernels) {
      all_ns += k.dur;
      max_all = std::max(max_all, k.dur);
      if (!is_comm_core(m.str(k.accel_core))) compute_ns += k.dur;
    }
    ai_cpu_from_kernels(m, compute_ns, all_ns, max_all, health["ai_cpu"]);
    dynamic_shape(m, health, facts);
    block_dim(m, compute_ns, health, facts);
    pmu(m, ctx.options.pmu_bound_ratio, health, facts);
  } else {
    const std::string why = "no " + std::string(role_name(Role::KernelDetails)) + " rows";
    if (ctx.device.has_device) {
      ai_cpu_from_trace(ctx, health["ai_cpu"]);
    } else {
      facts.unavailable("operator_health.ai_cpu", why + " and no device tasks in the trace");
    }
    facts.unavailable("operator_health.dynamic_shape", why);
    facts.unavailable("operator_health.block_dim", why);
    facts.unavailable("operator_health.pmu", why);
  }
  trace_checks(ctx, health, facts);
  if (!health.empty()) facts.doc["operator_health"] = health;
  else facts.unavailable("operator_health", "no " + std::string(role_name(Role::KernelDetails)) + " rows and no trace");
  memory(ctx.frame, facts);
}

}  // namespace npu
