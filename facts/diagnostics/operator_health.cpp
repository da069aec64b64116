// "operator_health": the operator-level checks of the reference advisor (formats.md §2.2 rows
// 5-8, 17-21, 23, 24) as facts: AI CPU operators, dynamic shapes, block dims, PMU bound
// ratios, online compiles, stream syncs, Python GC, slow dataloader, memory APIs, SyncBatchNorm.
// "memory": peaks from memory_record.csv and the largest allocations of operator_memory.csv.
//
// Facts only: the reference's thresholds are recorded next to the numbers (as `reference_*`)
// so a rule can decide; nothing here is a verdict. See docs/facts-operators.md.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "facts/diagnostics/diagnostics.h"

namespace npu {
namespace {

// ---- Thresholds (all from the reference advisor, formats.md §2.2) ----
// Row 5: the AI CPU check only fires when the longest task of the run is at least 20 us.
constexpr Ns kAiCpuMinMaxTaskNs = 20'000;
// Rows 5/17/24 priority: a share of step/total time of 5% is "high", 3% "medium".
constexpr double kReferenceHighShare = 0.05;
constexpr double kReferenceMediumShare = 0.03;
// Row 8: an operator is bound by a pipe whose ratio reaches 0.8; below that on every pipe it is "no bound".
constexpr double kBoundRatio = 0.8;
// Row 17: 20 or more aclopCompileAndExecute calls (in a step) mean online compilation.
constexpr uint64_t kMaxOpCompileCount = 20;
// Row 18: 20 or more SyncBatchNorm events.
constexpr uint64_t kMinSyncBnCount = 20;
// Row 19: ASCEND_LAUNCH_BLOCKING is probably set when co_occur_ratio exceeds 0.5.
constexpr double kLaunchBlockingCoOccurRatio = 0.5;
// Row 20: a GC event counts when it lasts at least 1 ms.
constexpr Ns kGcMinNs = 1'000'000;
// Row 21: conjectured GC: a device free gap longer than 200 ms (200000 us) ...
constexpr Ns kConjecturedGcMinFreeNs = 200'000'000;
// ... with AscendCL time inside it below 1% of the gap ...
constexpr double kConjecturedGcMaxAclTimeRatio = 0.01;
// ... and fewer than 1e-4 AscendCL calls per us of gap (10 per 100 ms).
constexpr double kConjecturedGcMaxAclPerUs = 1e-4;
// Row 23: a dataloader event of 10 ms (10000 us) or longer is slow (>=).
constexpr Ns kSlowDataloaderNs = 10'000'000;
// Row 24: a memory API whose total time reaches 10 ms (10000 us).
constexpr Ns kMemoryApiMinTotalNs = 10'000'000;

// ---- List sizes ----
constexpr size_t kTop = 10;           // every list of entries
constexpr size_t kTopPmuTypes = 10;   // op types with PMU ratios
constexpr size_t kFewShapes = 3;      // distinct input shapes kept per AI CPU op type
constexpr size_t kAiCpuEvidence = 3;  // evidence rows per AI CPU op type
constexpr size_t kFewNames = 5;       // distinct operator names kept per AI CPU op type

double ratio(Ns part, Ns whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(0, p.size()) == p; }

// The id of the step holding ts, or kNoId.
int64_t step_of(const RunModel& m, Ns ts) {
  int i = step_index_at(m.steps, ts);
  return i >= 0 ? m.steps[static_cast<size_t>(i)].id : kNoId;
}

nlohmann::json step_json(int64_t id) { return id == kNoId ? nlohmann::json(nullptr) : nlohmann::json(id); }

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

// Count / total / max with the longest instance, kept per step.
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

struct StepAgg {
  Agg all;
  std::map<int64_t, Agg> by_step;  // kNoId = outside every step
  void add(const RunModel& m, const Slice& s, uint32_t index) {
    all.add(s.dur, index);
    by_step[step_of(m, s.ts)].add(s.dur, index);
  }
};

nlohmann::json slice_evidence(const RunModel& m, uint32_t i, std::string_view what) {
  return evidence_event(m, m.slices[i].loc, what);
}

// Per-step figures: the kTop steps with the most time in these calls (then by step id), and
// a summary over every step so nothing depends on the cap.
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
    arr.push_back({{"step", step_json(v[n].first)},
                   {"count", g.count},
                   {"total_ns", g.total},
                   {"max_ns", g.max},
                   {"evidence", nlohmann::json::array({slice_evidence(m, g.max_index, "longest " + what + " of the step")})}});
  }
  return arr;
}

// Counts over every step (ProfilerStep#N) of the run, including steps without any call.
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

nlohmann::json top_slices_json(const RunModel& m, const TopK& top, const std::string& what) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& it : top.items) {
    const Slice& s = m.slices[it.index];
    arr.push_back({{"name", m.str(s.name)},
                   {"ts_ns", s.ts},
                   {"dur_ns", s.dur},
                   {"step", step_json(step_of(m, s.ts))},
                   {"evidence", nlohmann::json::array({slice_evidence(m, it.index, what)})}});
  }
  return arr;
}

// ---------------------------------------------------------------------------------------
// Kernel-table checks
// ---------------------------------------------------------------------------------------

bool is_comm_core(std::string_view core) { return core == "HCCL" || core == "COMMUNICATION" || core == "HCCL_AICPU"; }

void ai_cpu_from_kernels(const RunModel& m, Ns compute_ns, Ns all_ns, Ns max_all, nlohmann::json& out) {
  struct TypeInfo {
    Agg agg;
    std::vector<std::string> dtypes;  // distinct, in order of appearance
    std::vector<std::string> shapes;  // first few distinct
    std::vector<std::string> names;   // first few distinct operator names
    bool int64 = false, dbl = false;
    TopK longest{kAiCpuEvidence};
  };
  std::map<StrId, TypeInfo> types;
  Agg all;
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    if (m.str(k.accel_core) != "AI_CPU") continue;
    all.add(k.dur, i);
    TypeInfo& t = types[k.type];
    t.agg.add(k.dur, i);
    t.longest.add(k.dur, i);
    std::string dt(m.str(k.input_dtypes));
    if (!dt.empty() && std::find(t.dtypes.begin(), t.dtypes.end(), dt) == t.dtypes.end()) t.dtypes.push_back(dt);
    std::string up = dt;
    for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (up.find("INT64") != std::string::npos) t.int64 = true;
    if (up.find("DOUBLE") != std::string::npos || up.find("FLOAT64") != std::string::npos) t.dbl = true;
    std::string nm(m.str(k.name));
    if (t.names.size() < kFewNames && std::find(t.names.begin(), t.names.end(), nm) == t.names.end())
      t.names.push_back(nm);
    std::string sh(m.str(k.input_shapes));
    if (!sh.empty() && t.shapes.size() < kFewShapes && std::find(t.shapes.begin(), t.shapes.end(), sh) == t.shapes.end())
      t.shapes.push_back(sh);
  }
  std::vector<std::pair<StrId, const TypeInfo*>> order;
  for (const auto& [type, info] : types) order.emplace_back(type, &info);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.second->agg.total != b.second->agg.total) return a.second->agg.total > b.second->agg.total;
    return a.first < b.first;
  });
  nlohmann::json by_type = nlohmann::json::array();
  for (size_t n = 0; n < order.size() && n < kTop; ++n) {
    const auto& [type, t] = order[n];
    nlohmann::json ev = nlohmann::json::array();
    for (const auto& it : t->longest.items)
      ev.push_back(evidence_row(m, "kernel_details.csv", m.kernels[it.index].line,
                                "AI_CPU " + std::string(m.str(type)) + " (" + std::to_string(it.dur) + " ns)"));
    by_type.push_back({{"type", m.str(type)},
                       {"count", t->agg.count},
                       {"total_ns", t->agg.total},
                       {"max_ns", t->agg.max},
                       {"share_of_compute", ratio(t->agg.total, compute_ns)},
                       {"names", t->names},
                       {"input_dtypes", t->dtypes},
                       {"input_shapes", t->shapes},
                       {"has_int64", t->int64},
                       {"has_double", t->dbl},
                       {"evidence", ev}});
  }
  out = {{"source", "kernel_details.csv"},
         {"count", all.count},
         {"total_ns", all.total},
         {"max_ns", all.count ? all.max : 0},
         {"share_of_compute", ratio(all.total, compute_ns)},
         {"share_of_all_tasks", ratio(all.total, all_ns)},
         {"distinct_types", types.size()},
         {"by_type", by_type},
         {"max_task_ns_all_ops", max_all},
         {"reference_min_max_task_ns", kAiCpuMinMaxTaskNs},
         {"reference_high_share", kReferenceHighShare},
         {"reference_medium_share", kReferenceMediumShare},
         {"reference_triggered", all.count > 0 && max_all >= kAiCpuMinMaxTaskNs}};
}

// Without kernel_details: the device tasks of the trace whose Task Type is AI_CPU.
void ai_cpu_from_trace(const DiagnosticContext& ctx, nlohmann::json& out) {
  const RunModel& m = ctx.model;
  std::map<StrId, Agg> by_name;
  Agg all;
  Ns compute_ns = 0, max_all = 0;
  for (uint32_t i : ctx.device.compute_slices) {
    const Slice& s = m.slices[i];
    compute_ns += s.dur;
    max_all = std::max(max_all, s.dur);
    if (m.str(s.task_type) != "AI_CPU") continue;
    all.add(s.dur, i);
    by_name[s.name].add(s.dur, i);
  }
  std::vector<std::pair<StrId, Agg>> v(by_name.begin(), by_name.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  nlohmann::json arr = nlohmann::json::array();
  for (size_t n = 0; n < v.size() && n < kTop; ++n)
    arr.push_back({{"name", m.str(v[n].first)},
                   {"count", v[n].second.count},
                   {"total_ns", v[n].second.total},
                   {"max_ns", v[n].second.max},
                   {"share_of_compute", ratio(v[n].second.total, compute_ns)},
                   {"evidence", nlohmann::json::array({slice_evidence(m, v[n].second.max_index, "longest AI_CPU task")})}});
  out = {{"source", "trace device tasks (no kernel_details.csv: no op types or dtypes)"},
         {"count", all.count},
         {"total_ns", all.total},
         {"max_ns", all.count ? all.max : 0},
         {"share_of_compute", ratio(all.total, compute_ns)},
         {"by_name", arr},
         {"max_task_ns_all_ops", max_all},
         {"reference_min_max_task_ns", kAiCpuMinMaxTaskNs},
         {"reference_triggered", all.count > 0 && max_all >= kAiCpuMinMaxTaskNs}};
}

void dynamic_shape(const RunModel& m, nlohmann::json& health, Facts& facts) {
  uint64_t dyn = 0, stat = 0, other = 0, none = 0;
  uint32_t first_static = kNone32, first_dynamic = kNone32;
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    if (k.op_state == kEmptyStr) {
      ++none;
      continue;
    }
    std::string s = lower(m.str(k.op_state));
    if (s == "dynamic") {
      ++dyn;
      if (first_dynamic == kNone32) first_dynamic = i;
    } else if (s == "static") {
      ++stat;
      if (first_static == kNone32) first_static = i;
    } else {
      ++other;
    }
  }
  if (dyn + stat + other == 0) {
    facts.unavailable("operator_health.dynamic_shape",
                      "kernel_details.csv has no OP State values (the column is absent in older exports)");
    return;
  }
  nlohmann::json ev = nlohmann::json::array();
  if (first_static != kNone32)
    ev.push_back(evidence_row(m, "kernel_details.csv", m.kernels[first_static].line, "first static operator"));
  if (first_dynamic != kNone32)
    ev.push_back(evidence_row(m, "kernel_details.csv", m.kernels[first_dynamic].line, "first dynamic operator"));
  health["dynamic_shape"] = {{"dynamic", dyn},
                             {"static", stat},
                             {"other", other},
                             {"no_state", none},
                             {"dynamic_ratio", static_cast<double>(dyn) / static_cast<double>(dyn + stat + other)},
                             {"all_dynamic", stat == 0},
                             {"evidence", ev}};
}

// Block dims. The core count (info.json ai_core_num / aiv_num) is not loaded, so the largest
// block dim seen on each accelerator core stands in as a lower bound of it.
void block_dim(const RunModel& m, Ns compute_ns, nlohmann::json& health, Facts& facts) {
  struct Core {
    uint64_t kernels = 0;
    Ns total = 0;
    int32_t max_dim = -1;
    std::map<int32_t, Agg> dims;
  };
  std::map<std::string, Core> cores;
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    std::string_view core = m.str(k.accel_core);
    if (k.block_dim < 0 || (core != "AI_CORE" && core != "AI_VECTOR_CORE" && core != "MIX_AIC")) continue;
    Core& c = cores[std::string(core)];
    ++c.kernels;
    c.total += k.dur;
    c.max_dim = std::max(c.max_dim, k.block_dim);
    c.dims[k.block_dim].add(k.dur, i);
  }
  if (cores.empty()) {
    facts.unavailable("operator_health.block_dim",
                      "no AI_CORE / AI_VECTOR_CORE / MIX_AIC kernel has a Block Dim (or Block Num) value");
    return;
  }
  nlohmann::json by_core = nlohmann::json::object();
  uint64_t considered = 0;
  for (auto& [name, c] : cores) {
    considered += c.kernels;
    // Distinct block dims, most time first.
    std::vector<std::pair<int32_t, Agg>> dims(c.dims.begin(), c.dims.end());
    std::sort(dims.begin(), dims.end(), [](const auto& a, const auto& b) {
      if (a.second.total != b.second.total) return a.second.total > b.second.total;
      return a.first > b.first;
    });
    nlohmann::json dims_json = nlohmann::json::array();
    for (size_t n = 0; n < dims.size() && n < kTop; ++n)
      dims_json.push_back({{"block_dim", dims[n].first},
                           {"count", dims[n].second.count},
                           {"total_ns", dims[n].second.total},
                           {"evidence", nlohmann::json::array({evidence_row(
                                            m, "kernel_details.csv", m.kernels[dims[n].second.max_index].line,
                                            "longest kernel with block dim " + std::to_string(dims[n].first))})}});
    // Kernels using fewer than half of the largest block dim seen on this core.
    std::map<StrId, Agg> low_by_name;
    Agg low;
    for (uint32_t i = 0; i < m.kernels.size(); ++i) {
      const Kernel& k = m.kernels[i];
      if (k.block_dim < 0 || m.str(k.accel_core) != name || int64_t{k.block_dim} * 2 >= c.max_dim) continue;
      low.add(k.dur, i);
      low_by_name[k.name].add(k.dur, i);
    }
    std::vector<std::pair<StrId, Agg>> lows(low_by_name.begin(), low_by_name.end());
    std::sort(lows.begin(), lows.end(), [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
    nlohmann::json lows_json = nlohmann::json::array();
    for (size_t n = 0; n < lows.size() && n < kTop; ++n) {
      const Kernel& k = m.kernels[lows[n].second.max_index];
      lows_json.push_back({{"name", m.str(lows[n].first)},
                           {"type", m.str(k.type)},
                           {"block_dim", k.block_dim},
                           {"count", lows[n].second.count},
                           {"total_ns", lows[n].second.total},
                           {"evidence", nlohmann::json::array({evidence_row(m, "kernel_details.csv", k.line,
                                                                            "longest instance, block dim " +
                                                                                std::to_string(k.block_dim))})}});
    }
    by_core[name] = {{"kernels", c.kernels},
                     {"total_ns", c.total},
                     {"max_block_dim", c.max_dim},
                     {"distinct_block_dims", c.dims.size()},
                     {"block_dims", dims_json},
                     {"below_half_max",
                      {{"block_dim_below", (c.max_dim + 1) / 2},
                       {"count", low.count},
                       {"total_ns", low.total},
                       {"share_of_compute", ratio(low.total, compute_ns)},
                       {"by_name", lows_json}}}};
  }
  health["block_dim"] = {{"core_count_known", false},
                         {"core_count_note", "ai_core_num / aiv_num come from PROF info.json, which is not loaded; "
                                             "max_block_dim per core is only a lower bound of the core count"},
                         {"kernels", considered},
                         {"by_core", by_core}};
}

// PMU pipe ratios (aic_metrics=PipeUtilization), time-weighted per op type.
void pmu(const RunModel& m, nlohmann::json& health, Facts& facts) {
  // Ratio columns reported, and whether the reference's bound rule looks at them (it uses
  // vec/mac/scalar/mte1/mte2/mte3 and leaves fixpipe out).
  static const std::vector<std::pair<const char*, bool>> kRatios = {
      {"aic_mac_ratio", true},      {"aic_scalar_ratio", true},  {"aic_mte1_ratio", true},
      {"aic_mte2_ratio", true},     {"aic_fixpipe_ratio", false}, {"aiv_vec_ratio", true},
      {"aiv_scalar_ratio", true},   {"aiv_mte2_ratio", true},    {"aiv_mte3_ratio", true}};
  struct Col {
    const char* name;
    bool bound;
    size_t index;
  };
  std::vector<Col> cols;
  for (const auto& [name, bound] : kRatios)
    for (size_t c = 0; c < m.pmu_columns.size(); ++c)
      if (m.str(m.pmu_columns[c]) == name) cols.push_back({name, bound, c});
  if (cols.empty() || m.pmu_values.size() != m.kernels.size() * m.pmu_columns.size()) {
    facts.unavailable("operator_health.pmu",
                      "kernel_details.csv has no PMU pipe ratio columns (aic_metrics was not PipeUtilization)");
    return;
  }
  const size_t stride = m.pmu_columns.size();
  struct TypeAcc {
    StrId type = kEmptyStr, core = kEmptyStr;
    Agg agg;
    std::vector<double> sum, weight;
  };
  std::unordered_map<uint64_t, TypeAcc> acc;
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    if (is_comm_core(m.str(k.accel_core))) continue;
    const double* row = &m.pmu_values[i * stride];
    bool any = false;
    for (const Col& c : cols) any |= !std::isnan(row[c.index]);
    if (!any) continue;
    TypeAcc& t = acc[(uint64_t{k.type} << 32) | k.accel_core];
    if (t.sum.empty()) {
      t.type = k.type;
      t.core = k.accel_core;
      t.sum.assign(cols.size(), 0);
      t.weight.assign(cols.size(), 0);
    }
    t.agg.add(k.dur, i);
    double w = k.dur > 0 ? static_cast<double>(k.dur) : 1.0;
    for (size_t c = 0; c < cols.size(); ++c) {
      double v = row[cols[c].index];
      if (std::isnan(v)) continue;
      t.sum[c] += v * w;
      t.weight[c] += w;
    }
  }
  if (acc.empty()) {
    facts.unavailable("operator_health.pmu", "no kernel has PMU ratio values (all N/A)");
    return;
  }
  std::vector<const TypeAcc*> order;
  for (const auto& [key, t] : acc) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const TypeAcc* a, const TypeAcc* b) {
    if (a->agg.total != b->agg.total) return a->agg.total > b->agg.total;
    return a->type < b->type;
  });
  nlohmann::json arr = nlohmann::json::array();
  uint64_t no_bound = 0;
  for (size_t n = 0; n < order.size() && n < kTopPmuTypes; ++n) {
    const TypeAcc& t = *order[n];
    nlohmann::json ratios = nlohmann::json::object();
    double best = -1;
    std::string best_name;
    for (size_t c = 0; c < cols.size(); ++c) {
      if (t.weight[c] <= 0) continue;
      double v = t.sum[c] / t.weight[c];
      ratios[cols[c].name] = v;
      if (cols[c].bound && v > best) {
        best = v;
        best_name = cols[c].name;
      }
    }
    std::string bound = best >= kBoundRatio ? best_name : "none";
    if (bound == "none") ++no_bound;
    arr.push_back({{"type", m.str(t.type)},
                   {"accelerator_core", m.str(t.core)},
                   {"count", t.agg.count},
                   {"total_ns", t.agg.total},
                   {"ratios", ratios},
                   {"max_ratio", best},
                   {"bound", bound},
                   {"evidence", nlohmann::json::array({evidence_row(m, "kernel_details.csv",
                                                                    m.kernels[t.agg.max_index].line,
                                                                    "longest " + std::string(m.str(t.type)))})}});
  }
  nlohmann::json names = nlohmann::json::array();
  for (const Col& c : cols) names.push_back(c.name);
  health["pmu"] = {{"weighting", "duration-weighted mean over the type's kernels that have the value"},
                   {"ratio_columns", names},
                   {"types_with_ratios", acc.size()},
                   {"by_type", arr},
                   {"no_bound_types", no_bound},
                   {"reference_bound_ratio", kBoundRatio}};
}

// ---------------------------------------------------------------------------------------
// Trace checks: one pass over the host tracks
// ---------------------------------------------------------------------------------------

enum NameBits : uint16_t {
  kClassified = 1 << 0,
  kCompile = 1 << 1,     // AscendCL@aclopCompileAndExecute
  kSyncStream = 1 << 2,  // AscendCL@aclrtSynchronizeStream*
  kSyncDevice = 1 << 3,  // AscendCL@aclrtSynchronizeDevice*
  kLaunch = 1 << 4,      // Node@launch*
  kAcl = 1 << 5,         // AscendCL@*
  kMemApi = 1 << 6,      // one of kMemApis
  kDataloader = 1 << 7,  // name contains "dataloader" (any case)
  kSyncBn = 1 << 8,      // name is "SyncBatchNorm" (any case)
};

// Row 24: the memory APIs the reference watches (exact names).
constexpr const char* kMemApis[] = {"AscendCL@aclMallocMemInner", "AscendCL@aclrtFreePhysical", "AscendCL@aclrtFree"};

uint16_t classify_name(std::string_view n) {
  uint16_t b = kClassified;
  if (starts_with(n, "AscendCL@")) {
    b |= kAcl;
    if (n == "AscendCL@aclopCompileAndExecute") b |= kCompile;
    if (starts_with(n, "AscendCL@aclrtSynchronizeStream")) b |= kSyncStream;
    if (starts_with(n, "AscendCL@aclrtSynchronizeDevice")) b |= kSyncDevice;
    for (const char* api : kMemApis)
      if (n == api) b |= kMemApi;
  }
  if (starts_with(n, "Node@launch")) b |= kLaunch;
  std::string l = lower(n);
  if (l.find("dataloader") != std::string::npos) b |= kDataloader;
  if (l == "syncbatchnorm") b |= kSyncBn;
  return b;
}

struct FreeGap {
  Interval iv;
  uint64_t acl_count = 0;
  Ns acl_ns = 0;
};

struct TracePass {
  StepAgg compile, sync;
  std::map<std::string, Agg> sync_by_api;
  TopK compile_top{kTop}, sync_top{kTop};
  uint64_t launches = 0;
  uint64_t co_occur_same_thread = 0;
  struct Mark {
    Ns ts;
    uint64_t loc;
    bool launch;
  };
  std::vector<Mark> marks;  // sync-stream and launch events, for the reference's global ordering
  bool have_cann = false, have_python = false, have_gc_track = false;
  Agg gc, gc_long;
  TopK gc_top{kTop};
  Agg dataloader;
  TopK dataloader_slow{kTop};
  uint32_t first_slow_dataloader = kNone32;
  Ns first_slow_dataloader_ts = 0;
  uint64_t dataloader_slow_count = 0;
  Ns dataloader_slow_total = 0;
  std::map<std::string, StepAgg> mem_api;
  Agg syncbn;
  std::vector<FreeGap> gaps;  // conjectured GC candidates (only when no GC events)
};

void run_trace_pass(const DiagnosticContext& ctx, TracePass& p) {
  const RunModel& m = ctx.model;
  std::vector<uint16_t> bits(m.strings.size(), 0);
  auto name_bits = [&](StrId id) {
    uint16_t& b = bits[id];
    if (!b) b = classify_name(m.str(id));
    return b;
  };
  const StrId gc_cat = m.strings.find("GC");
  const StrId python_function = m.strings.find("python_function");
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const TrackKind kind = m.tracks[t].kind;
    const auto r = m.track_slices[t];
    if (kind == TrackKind::HostCANN) {
      if (r.end > r.begin) p.have_cann = true;
      bool prev_launch = false;  // previous sync-or-launch event on this thread was a launch
      size_t g = 0;              // free gaps are sorted and so are this track's slices
      for (uint32_t i = r.begin; i < r.end; ++i) {
        const Slice& s = m.slices[i];
        const uint16_t b = name_bits(s.name);
        if (!(b & (kAcl | kLaunch))) continue;
        if (b & kLaunch) {
          ++p.launches;
          p.marks.push_back({s.ts, s.loc, true});
          prev_launch = true;
        }
        if (b & kSyncStream) {
          if (prev_launch) ++p.co_occur_same_thread;
          p.marks.push_back({s.ts, s.loc, false});
          prev_launch = false;
        }
        if (b & (kSyncStream | kSyncDevice)) {
          p.sync.add(m, s, i);
          p.sync_top.add(s.dur, i);
          p.sync_by_api[std::string(m.str(s.name))].add(s.dur, i);
        }
        if (b & kCompile) {
          p.compile.add(m, s, i);
          p.compile_top.add(s.dur, i);
        }
        if (b & kMemApi) p.mem_api[std::string(m.str(s.name))].add(m, s, i);
        if ((b & kAcl) && !p.gaps.empty()) {
          while (g < p.gaps.size() && p.gaps[g].iv.end <= s.ts) ++g;
          // Every gap the call overlaps (a long call can span several).
          for (size_t k = g; k < p.gaps.size() && p.gaps[k].iv.start <= s.end(); ++k) {
            const Interval& gap = p.gaps[k].iv;
            Ns overlap = std::max<Ns>(0, std::min(s.end(), gap.end) - std::max(s.ts, gap.start));
            bool starts_inside = s.ts >= gap.start && s.ts < gap.end;
            if (overlap == 0 && !starts_inside) continue;
            ++p.gaps[k].acl_count;
            p.gaps[k].acl_ns += overlap;
          }
        }
      }
    } else if (kind == TrackKind::HostGC) {
      p.have_gc_track = true;
      for (uint32_t i = r.begin; i < r.end; ++i) {
        const Slice& s = m.slices[i];
        p.gc.add(s.dur, i);
        if (s.dur >= kGcMinNs) p.gc_long.add(s.dur, i);
        p.gc_top.add(s.dur, i);
      }
    } else if (kind == TrackKind::HostPython || kind == TrackKind::HostOther) {
      if (r.end > r.begin) p.have_python = true;
      for (uint32_t i = r.begin; i < r.end; ++i) {
        const Slice& s = m.slices[i];
        // Kineto with_stack: every Python frame inside DataLoader.__next__ is a python_function
        // slice whose name holds "dataloader.py"; counting them would count one fetch many times.
        if (kind == TrackKind::HostOther && python_function != kNone32 && s.cat == python_function) continue;
        if (gc_cat != kNone32 && s.cat == gc_cat) {
          p.gc.add(s.dur, i);
          if (s.dur >= kGcMinNs) p.gc_long.add(s.dur, i);
          p.gc_top.add(s.dur, i);
          continue;
        }
        const uint16_t b = name_bits(s.name);
        if (b & kDataloader) {
          p.dataloader.add(s.dur, i);
          if (s.dur >= kSlowDataloaderNs) {
            ++p.dataloader_slow_count;
            p.dataloader_slow_total += s.dur;
            p.dataloader_slow.add(s.dur, i);
            if (p.first_slow_dataloader == kNone32 || s.ts < p.first_slow_dataloader_ts) {
              p.first_slow_dataloader = i;
              p.first_slow_dataloader_ts = s.ts;
            }
          }
        }
        if (b & kSyncBn) p.syncbn.add(s.dur, i);
      }
    }
  }
}

void trace_checks(const DiagnosticContext& ctx, nlohmann::json& health, Facts& facts) {
  const RunModel& m = ctx.model;
  TracePass p;
  // Conjectured-GC candidates need the device free gaps before the pass (only used when the
  // run turns out to have no GC events; computing them is cheap).
  if (ctx.device.has_device) {
    Intervals busy = ctx.device.compute;
    busy.insert(busy.end(), ctx.device.comm.begin(), ctx.device.comm.end());
    for (const Interval& iv : difference(Intervals{ctx.device.window}, union_of(busy)))
      if (iv.length() > kConjecturedGcMinFreeNs) p.gaps.push_back({iv});
  }
  run_trace_pass(ctx, p);
  if (m.slices.empty()) {
    for (const char* f : {"compile", "sync", "gc", "dataloader", "memory_api", "syncbn"})
      facts.unavailable(std::string("operator_health.") + f, "no trace_view.json (or it has no slices)");
    return;
  }

  // compile (row 17)
  if (p.have_cann) {
    nlohmann::json c = {{"count", p.compile.all.count},
                        {"total_ns", p.compile.all.total},
                        {"max_ns", p.compile.all.count ? p.compile.all.max : 0},
                        {"by_step", by_step_json(m, p.compile, "aclopCompileAndExecute")},
                        {"longest", top_slices_json(m, p.compile_top, "aclopCompileAndExecute")},
                        {"reference_max_count", kMaxOpCompileCount},
                        {"reference_high_share", kReferenceHighShare},
                        {"reference_medium_share", kReferenceMediumShare}};
    c["per_step"] = step_summary_json(m, p.compile);
    uint64_t worst = 0;  // the most calls in one step (or outside steps when there are none)
    for (const auto& [step, a] : p.compile.by_step) worst = std::max(worst, a.count);
    c["max_step_count"] = worst;
    health["compile"] = c;

    // sync (row 19)
    nlohmann::json apis = nlohmann::json::object();
    for (const auto& [name, a] : p.sync_by_api) apis[name] = {{"count", a.count}, {"total_ns", a.total}, {"max_ns", a.max}};
    // The reference's order: sync-stream and launch events of all threads sorted by ts.
    std::sort(p.marks.begin(), p.marks.end(),
              [](const TracePass::Mark& a, const TracePass::Mark& b) { return a.ts != b.ts ? a.ts < b.ts : a.loc < b.loc; });
    uint64_t co = 0;
    for (size_t i = 1; i < p.marks.size(); ++i)
      if (!p.marks[i].launch && p.marks[i - 1].launch) ++co;
    uint64_t sync_stream = 0;
    for (const auto& [name, a] : p.sync_by_api)
      if (starts_with(name, "AscendCL@aclrtSynchronizeStream")) sync_stream += a.count;
    health["sync"] = {{"count", p.sync.all.count},
                      {"total_ns", p.sync.all.total},
                      {"max_ns", p.sync.all.count ? p.sync.all.max : 0},
                      {"by_api", apis},
                      {"by_step", by_step_json(m, p.sync, "synchronize call")},
                      {"per_step", step_summary_json(m, p.sync)},
                      {"longest", top_slices_json(m, p.sync_top, "synchronize call")},
                      {"sync_stream_count", sync_stream},
                      {"node_launch_count", p.launches},
                      {"co_occur", co},
                      {"co_occur_ratio", p.launches ? static_cast<double>(co) / static_cast<double>(p.launches) : 0.0},
                      {"co_occur_same_thread", p.co_occur_same_thread},
                      {"co_occur_same_thread_ratio",
                       p.launches ? static_cast<double>(p.co_occur_same_thread) / static_cast<double>(p.launches) : 0.0},
                      {"reference_co_occur_ratio", kLaunchBlockingCoOccurRatio}};

    // memory_api (row 24)
    nlohmann::json arr = nlohmann::json::array();
    for (const char* api : kMemApis) {
      auto it = p.mem_api.find(api);
      if (it == p.mem_api.end()) {
        arr.push_back({{"api", api}, {"count", 0}, {"total_ns", 0}, {"max_ns", 0}, {"evidence", nlohmann::json::array()}});
        continue;
      }
      const StepAgg& a = it->second;
      int64_t worst_step = kNoId;
      Ns worst_total = -1;
      for (const auto& [step, g] : a.by_step)
        if (g.total > worst_total) {
          worst_total = g.total;
          worst_step = step;
        }
      arr.push_back({{"api", api},
                     {"count", a.all.count},
                     {"total_ns", a.all.total},
                     {"max_ns", a.all.max},
                     {"max_step", {{"step", step_json(worst_step)}, {"total_ns", worst_total}}},
                     {"evidence", nlohmann::json::array({slice_evidence(m, a.all.max_index, "longest call")})}});
    }
    health["memory_api"] = {{"by_api", arr}, {"reference_min_total_ns", kMemoryApiMinTotalNs}};
  } else {
    for (const char* f : {"compile", "sync", "memory_api"})
      facts.unavailable(std::string("operator_health.") + f,
                        run_platform(m) == "ascend" ? "no CANN process in the trace (AscendCL calls not recorded)"
                                                    : "AscendCL (CANN) check: Ascend runs only");
  }

  // gc (rows 20, 21)
  nlohmann::json gc;
  bool detected = p.have_gc_track || p.gc.count > 0;
  gc["detected"] = detected;
  if (detected) {
    gc["count"] = p.gc.count;
    gc["total_ns"] = p.gc.total;
    gc["max_ns"] = p.gc.count ? p.gc.max : 0;
    gc["count_ge_min"] = p.gc_long.count;
    gc["total_ge_min_ns"] = p.gc_long.total;
    gc["longest"] = top_slices_json(m, p.gc_top, "GC event");
    gc["reference_min_ns"] = kGcMinNs;
  } else {
    nlohmann::json conj = nlohmann::json::array();
    std::vector<FreeGap> gaps = p.gaps;
    std::sort(gaps.begin(), gaps.end(), [](const FreeGap& a, const FreeGap& b) { return a.iv.length() > b.iv.length(); });
    uint64_t like = 0;
    for (const FreeGap& g : gaps) {
      double len = static_cast<double>(g.iv.length());
      double acl_ratio = static_cast<double>(g.acl_ns) / len;
      double acl_per_us = static_cast<double>(g.acl_count) / (len / 1000.0);
      bool reference_like = p.have_cann && acl_ratio < kConjecturedGcMaxAclTimeRatio && acl_per_us < kConjecturedGcMaxAclPerUs;
      if (reference_like) ++like;
      if (conj.size() >= kTop) continue;
      conj.push_back({{"start_ns", g.iv.start},
                      {"end_ns", g.iv.end},
                      {"dur_ns", g.iv.length()},
                      {"step", step_json(step_of(m, g.iv.start))},
                      {"acl_count", g.acl_count},
                      {"acl_ns", g.acl_ns},
                      {"acl_time_ratio", acl_ratio},
                      {"acl_per_us", acl_per_us},
                      {"reference_like", reference_like},
                      {"evidence", nlohmann::json::array({evidence_file(m, "trace_view.json",
                                                                        "device free gap: no compute or communication "
                                                                        "task between start_ns and end_ns")})}});
    }
    gc["conjectured"] = {{"source", "device free gaps (device window minus compute and communication tasks)"},
                         {"gaps_over_min", gaps.size()},
                         {"reference_like_gaps", like},
                         {"gaps", conj},
                         {"acl_counted", p.have_cann},
                         {"reference_min_free_ns", kConjecturedGcMinFreeNs},
                         {"reference_max_acl_time_ratio", kConjecturedGcMaxAclTimeRatio},
                         {"reference_max_acl_per_us", kConjecturedGcMaxAclPerUs}};
    if (!ctx.device.has_device) gc["conjectured"]["source"] = "none: no device tasks in the trace";
  }
  health["gc"] = gc;

  // dataloader (row 23)
  if (p.have_python) {
    nlohmann::json d = {{"count", p.dataloader.count},
                        {"total_ns", p.dataloader.total},
                        {"max_ns", p.dataloader.count ? p.dataloader.max : 0},
                        {"slow_count", p.dataloader_slow_count},
                        {"slow_total_ns", p.dataloader_slow_total},
                        {"slow", top_slices_json(m, p.dataloader_slow, "slow dataloader event")},
                        {"reference_slow_ns", kSlowDataloaderNs}};
    if (p.first_slow_dataloader != kNone32) {
      const Slice& s = m.slices[p.first_slow_dataloader];
      d["first_slow"] = {{"name", m.str(s.name)},
                         {"ts_ns", s.ts},
                         {"dur_ns", s.dur},
                         {"evidence", nlohmann::json::array({slice_evidence(m, p.first_slow_dataloader,
                                                                            "first slow dataloader event")})}};
    }
    if (p.dataloader.count)
      d["evidence"] = nlohmann::json::array({slice_evidence(m, p.dataloader.max_index, "longest dataloader event")});
    health["dataloader"] = d;

    // syncbn (row 18)
    nlohmann::json sb = {{"count", p.syncbn.count},
                         {"total_ns", p.syncbn.total},
                         {"reference_min_count", kMinSyncBnCount},
                         {"evidence", nlohmann::json::array()}};
    if (p.syncbn.count) sb["evidence"].push_back(slice_evidence(m, p.syncbn.max_index, "longest SyncBatchNorm"));
    health["syncbn"] = sb;
  } else {
    for (const char* f : {"dataloader", "syncbn"})
      facts.unavailable(std::string("operator_health.") + f, "no Python (host) process in the trace");
  }
}

// ---------------------------------------------------------------------------------------
// memory
// ---------------------------------------------------------------------------------------

struct Peak {
  double mb = -1;
  Ns ts = 0;
  uint32_t line = 0;
  void offer(double v, Ns t, uint32_t l) {
    // The first time the peak is reached.
    if (v > mb || (v == mb && t < ts)) {
      mb = v;
      ts = t;
      line = l;
    }
  }
};

nlohmann::json peak_json(const RunModel& m, const Peak& p, const std::string& what) {
  if (p.mb < 0) return nullptr;
  nlohmann::json j = {{"value_mb", p.mb}, {"ts_ns", p.ts}, {"step", step_json(step_of(m, p.ts))}};
  j["evidence"] = nlohmann::json::array();
  if (p.line) j["evidence"].push_back(evidence_row(m, "memory_record.csv", p.line, what));
  return j;
}

void memory(const RunModel& m, Facts& facts) {
  if (m.memory_records.empty() && m.operator_memory.empty()) {
    facts.unavailable("memory", "no memory_record.csv or operator_memory.csv (profile_memory was off)");
    return;
  }
  nlohmann::json mem;
  if (m.memory_records.empty()) {
    facts.unavailable("memory.peak", "no memory_record.csv rows (profile_memory was off)");
  } else {
    struct Comp {
      uint64_t records = 0;
      Peak alloc, reserved;
      bool has_alloc = false;
    };
    std::map<std::string, Comp> comps;
    for (const MemoryRecord& r : m.memory_records) {
      Comp& c = comps[std::string(m.str(r.component))];
      ++c.records;
      c.reserved.offer(r.reserved_mb, r.ts, r.line);
      c.alloc.offer(r.allocated_mb, r.ts, r.line);
      if (r.allocated_mb > 0) c.has_alloc = true;
    }
    nlohmann::json comp_json = nlohmann::json::object();
    for (const auto& [name, c] : comps)
      comp_json[name.empty() ? "N/A" : name] = {
          {"records", c.records},
          {"peak_allocated", c.has_alloc ? peak_json(m, c.alloc, name + " peak allocated") : nlohmann::json(nullptr)},
          {"peak_reserved", peak_json(m, c.reserved, name + " peak reserved")}};
    mem["components"] = comp_json;

    // The framework's total: the framework components (PTA, GE; not APP, the whole-process
    // view, nor torch_npu's own PTA+GE sum) summed at each timestamp with the last value of each,
    // which is how torch_npu builds PTA+GE. Some exports (msinsight_2rank rank 0) hold GE rows
    // without a matching PTA+GE row, so the sum is the safer total; PTA+GE stays in components.
    Peak alloc, reserved;
    std::string method;
    std::vector<const MemoryRecord*> recs;
    for (const MemoryRecord& r : m.memory_records) {
      std::string_view c = m.str(r.component);
      if (c != "APP" && c != "PTA+GE") recs.push_back(&r);
    }
    if (!recs.empty()) {
      std::stable_sort(recs.begin(), recs.end(), [](auto* a, auto* b) { return a->ts < b->ts; });
      std::map<StrId, std::pair<double, double>> last;
      for (size_t i = 0; i < recs.size(); ++i) {
        last[recs[i]->component] = {recs[i]->allocated_mb, recs[i]->reserved_mb};
        if (i + 1 < recs.size() && recs[i + 1]->ts == recs[i]->ts) continue;
        double a = 0, rs = 0;
        for (const auto& [c, v] : last) {
          a += v.first;
          rs += v.second;
        }
        alloc.offer(a, recs[i]->ts, recs[i]->line);
        reserved.offer(rs, recs[i]->ts, recs[i]->line);
      }
      method = last.size() == 1 ? "single framework component" : "framework components summed at each timestamp";
    } else if (comps.count("PTA+GE")) {
      method = "component PTA+GE";
      alloc = comps["PTA+GE"].alloc;
      reserved = comps["PTA+GE"].reserved;
    } else {
      method = "none: only APP (whole-process) records";
    }
    mem["overall"] = {{"method", method},
                      {"peak_allocated", peak_json(m, alloc, "peak allocated")},
                      {"peak_reserved", peak_json(m, reserved, "peak reserved")}};
    mem["peak_allocated_mb"] = alloc.mb >= 0 ? nlohmann::json(alloc.mb) : nlohmann::json(nullptr);
    mem["peak_reserved_mb"] = reserved.mb >= 0 ? nlohmann::json(reserved.mb) : nlohmann::json(nullptr);
    mem["records"] = m.memory_records.size();
  }

  if (m.operator_memory.empty()) {
    facts.unavailable("memory.top_allocations", "no operator_memory.csv rows");
  } else {
    std::vector<uint32_t> idx(m.operator_memory.size());
    for (uint32_t i = 0; i < idx.size(); ++i) idx[i] = i;
    size_t n = std::min(kTop, idx.size());
    std::partial_sort(idx.begin(), idx.begin() + static_cast<long>(n), idx.end(), [&](uint32_t a, uint32_t b) {
      const auto &x = m.operator_memory[a], &y = m.operator_memory[b];
      return x.size_kb != y.size_kb ? x.size_kb > y.size_kb : x.line < y.line;
    });
    nlohmann::json arr = nlohmann::json::array();
    for (size_t i = 0; i < n; ++i) {
      const OperatorMemory& o = m.operator_memory[idx[i]];
      auto opt = [](Ns v) { return v == kNoId ? nlohmann::json(nullptr) : nlohmann::json(v); };
      arr.push_back({{"name", m.str(o.name)},
                     {"size_mb", o.size_kb / 1024.0},
                     {"alloc_ts_ns", opt(o.alloc_ts)},
                     {"release_ts_ns", opt(o.release_ts)},
                     {"duration_ns", opt(o.duration)},
                     {"step", o.alloc_ts == kNoId ? nlohmann::json(nullptr) : step_json(step_of(m, o.alloc_ts))},
                     {"evidence", nlohmann::json::array({evidence_row(m, "operator_memory.csv", o.line, "allocation")})}});
    }
    mem["operator_allocations"] = m.operator_memory.size();
    mem["top_allocations"] = arr;
  }
  facts.doc["memory"] = mem;
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
    pmu(m, health, facts);
  } else {
    const char* why = "no kernel_details.csv rows";
    if (ctx.device.has_device) {
      ai_cpu_from_trace(ctx, health["ai_cpu"]);
    } else {
      facts.unavailable("operator_health.ai_cpu", "no kernel_details.csv rows and no device tasks in the trace");
    }
    facts.unavailable("operator_health.dynamic_shape", why);
    facts.unavailable("operator_health.block_dim", why);
    facts.unavailable("operator_health.pmu", why);
  }
  trace_checks(ctx, health, facts);
  if (!health.empty()) facts.doc["operator_health"] = health;
  else facts.unavailable("operator_health", "no kernel_details.csv rows and no trace");
  memory(m, facts);
}

}  // namespace npu
