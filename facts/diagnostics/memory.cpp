// "memory": peaks from memory_record.csv and the largest allocations of operator_memory.csv
// (docs/facts-operators.md).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "facts/diagnostics/operator_health.h"

namespace npu::operator_health {
namespace {

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

nlohmann::json peak_json(const RunFrame& f, const Peak& p, const std::string& what) {
  const RunModel& m = f.model();
  if (p.mb < 0) return nullptr;
  nlohmann::json j = {{"value_mb", p.mb}, {"ts_ns", p.ts}, {"step", step_json(f.step_id_of_host(p.ts))}};
  j["evidence"] = nlohmann::json::array();
  if (p.line) j["evidence"].push_back(evidence_row(m, Role::MemoryRecord, p.line, what));
  return j;
}

struct Comp {
  uint64_t records = 0;
  Peak alloc, reserved;
  bool has_alloc = false;
};

// The framework's total: the framework components (PTA, GE; not APP, the whole-process
// view, nor torch_npu's own PTA+GE sum) summed at each timestamp with the last value of each,
// which is how torch_npu builds PTA+GE. Some exports (msinsight_2rank rank 0) hold GE rows
// without a matching PTA+GE row, so the sum is the safer total; PTA+GE stays in components.
void framework_total(const RunFrame& f, std::map<std::string, Comp>& comps, nlohmann::json& mem) {
  const RunModel& m = f.model();
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
                    {"peak_allocated", peak_json(f, alloc, "peak allocated")},
                    {"peak_reserved", peak_json(f, reserved, "peak reserved")}};
  mem["peak_allocated_mb"] = alloc.mb >= 0 ? nlohmann::json(alloc.mb) : nlohmann::json(nullptr);
  mem["peak_reserved_mb"] = reserved.mb >= 0 ? nlohmann::json(reserved.mb) : nlohmann::json(nullptr);
}

// The peaks of memory_record.csv: per component, then the framework's total.
void peaks(const RunFrame& f, nlohmann::json& mem) {
  const RunModel& m = f.model();
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
        {"peak_allocated", c.has_alloc ? peak_json(f, c.alloc, name + " peak allocated") : nlohmann::json(nullptr)},
        {"peak_reserved", peak_json(f, c.reserved, name + " peak reserved")}};
  mem["components"] = comp_json;
  framework_total(f, comps, mem);
  mem["records"] = m.memory_records.size();
}

// The largest allocations of operator_memory.csv.
void top_allocations(const RunFrame& f, nlohmann::json& mem) {
  const RunModel& m = f.model();
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
                   {"step", o.alloc_ts == kNoId ? nlohmann::json(nullptr) : step_json(f.step_id_of_host(o.alloc_ts))},
                   {"evidence", nlohmann::json::array({evidence_row(m, Role::OperatorMemory, o.line, "allocation")})}});
  }
  mem["operator_allocations"] = m.operator_memory.size();
  mem["top_allocations"] = arr;
}

}  // namespace

void memory(const RunFrame& f, Facts& facts) {
  const RunModel& m = f.model();
  if (m.memory_records.empty() && m.operator_memory.empty()) {
    facts.unavailable("memory", "no " + std::string(role_name(Role::MemoryRecord)) + " or " +
                                    role_name(Role::OperatorMemory) + " (profile_memory was off)");
    return;
  }
  nlohmann::json mem;
  if (m.memory_records.empty())
    facts.unavailable("memory.peak",
                      "no " + std::string(role_name(Role::MemoryRecord)) + " rows (profile_memory was off)");
  else peaks(f, mem);
  if (m.operator_memory.empty())
    facts.unavailable("memory.top_allocations", "no " + std::string(role_name(Role::OperatorMemory)) + " rows");
  else top_allocations(f, mem);
  facts.doc["memory"] = mem;
}

}  // namespace npu::operator_health
