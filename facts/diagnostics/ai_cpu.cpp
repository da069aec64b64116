// operator_health.ai_cpu (row 5): operators that ran on the AI CPU, from kernel_details.csv
// (with op types, dtypes and shapes) or else from the trace's device tasks.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "facts/diagnostics/operator_health.h"

namespace npu::operator_health {
namespace {

constexpr size_t kFewShapes = 3;      // distinct input shapes kept per AI CPU op type
constexpr size_t kAiCpuEvidence = 3;  // evidence rows per AI CPU op type
constexpr size_t kFewNames = 5;       // distinct operator names kept per AI CPU op type

}  // namespace

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
    if (!sh.empty() && t.shapes.size() < kFewShapes &&
        std::find(t.shapes.begin(), t.shapes.end(), sh) == t.shapes.end())
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
      ev.push_back(evidence_row(m, Role::KernelDetails, m.kernels[it.index].line,
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
  out = {{"source", role_name(Role::KernelDetails)},
         {"count", all.count},
         {"total_ns", all.total},
         {"max_ns", all.count ? all.max : 0},
         {"share_of_compute", ratio(all.total, compute_ns)},
         {"share_of_all_tasks", ratio(all.total, all_ns)},
         {"distinct_types", types.size()},
         {"by_type", by_type},
         {"max_task_ns_all_ops", max_all}};
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
    arr.push_back(
        {{"name", m.str(v[n].first)},
         {"count", v[n].second.count},
         {"total_ns", v[n].second.total},
         {"max_ns", v[n].second.max},
         {"share_of_compute", ratio(v[n].second.total, compute_ns)},
         {"evidence", nlohmann::json::array({slice_evidence(m, v[n].second.max_index, "longest AI_CPU task")})}});
  out = {
      {"source", "trace device tasks (no " + std::string(role_name(Role::KernelDetails)) + ": no op types or dtypes)"},
      {"count", all.count},
      {"total_ns", all.total},
      {"max_ns", all.count ? all.max : 0},
      {"share_of_compute", ratio(all.total, compute_ns)},
      {"by_name", arr},
      {"max_task_ns_all_ops", max_all}};
}

}  // namespace npu::operator_health
