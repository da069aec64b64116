// "operators": where the device time goes, by operator type and by operator name, plus the
// communication operators and the host (framework) operators. See docs/facts-operators.md.
//
// Source: kernel_details.csv (one row per device task, with op types); when the run has no
// kernel rows, the device compute tasks of the trace grouped by task name (no op types).
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/stats.h"
#include "facts/diagnostics/diagnostics.h"

namespace npu {
namespace {

// How many entries each top list keeps.
constexpr size_t kTopOperators = 20;

// Communication rows of kernel_details: Accelerator Core HCCL (older) / COMMUNICATION (newer).
bool is_comm_core(std::string_view core) { return core == "HCCL" || core == "COMMUNICATION" || core == "HCCL_AICPU"; }

bool is_comm_kernel(const RunModel& m, const Kernel& k) {
  std::string_view core = m.str(k.accel_core);
  if (is_comm_core(core)) return true;
  return core.empty() && m.str(k.name).rfind("hcom_", 0) == 0;
}

// One group of operators (same type or same name, on the same accelerator core).
struct Group {
  StrId key = kEmptyStr;
  StrId core = kEmptyStr;
  uint64_t count = 0;
  Ns total = 0;
  Ns max = -1;
  uint32_t max_index = 0;  // kernel index or slice index of the longest instance
};

class Grouper {
 public:
  void add(StrId key, StrId core, Ns dur, uint32_t index) {
    uint64_t k = (uint64_t{key} << 32) | core;
    auto [it, fresh] = pos_.try_emplace(k, groups_.size());
    if (fresh) groups_.push_back(Group{key, core});
    Group& g = groups_[it->second];
    ++g.count;
    g.total += dur;
    if (dur > g.max) {
      g.max = dur;
      g.max_index = index;
    }
  }
  // Sorted by total time, descending (ties: by count, then key for a stable answer).
  std::vector<Group> top(size_t n) const {
    std::vector<Group> v = groups_;
    std::sort(v.begin(), v.end(), [](const Group& a, const Group& b) {
      if (a.total != b.total) return a.total > b.total;
      if (a.count != b.count) return a.count > b.count;
      return a.key < b.key;
    });
    if (v.size() > n) v.resize(n);
    return v;
  }
  size_t size() const { return groups_.size(); }

 private:
  std::unordered_map<uint64_t, size_t> pos_;
  std::vector<Group> groups_;
};

Ns step_device_time(const Facts& facts) {
  auto it = facts.doc.find("overall");
  if (it == facts.doc.end() || !it->is_object()) return 0;
  auto d = it->find("device_time_ns");
  return d != it->end() && d->is_number_integer() ? d->get<Ns>() : 0;
}

enum class Source { Kernels, Trace };

nlohmann::json entry(const RunModel& m, const Group& g, const char* key_name, Ns compute_ns, Ns step_ns, Source src) {
  nlohmann::json j;
  j[key_name] = m.str(g.key);
  j["accelerator_core"] = m.str(g.core);
  j["count"] = g.count;
  j["total_ns"] = g.total;
  j["mean_ns"] = g.count ? g.total / static_cast<Ns>(g.count) : 0;
  j["max_ns"] = g.max;
  j["share_of_compute"] = stats::ratio(g.total, compute_ns);
  j["share_of_step"] = step_ns > 0 ? nlohmann::json(stats::ratio(g.total, step_ns)) : nlohmann::json(nullptr);
  std::string what = "longest " + std::string(m.str(g.key)) + " (" + std::to_string(g.max) + " ns)";
  j["evidence"] = nlohmann::json::array({src == Source::Kernels
                                             ? evidence_row(m, Role::KernelDetails, m.kernels[g.max_index].line, what)
                                             : evidence_event(m, m.slices[g.max_index].loc, what)});
  return j;
}

nlohmann::json list(const RunModel& m, const Grouper& g, const char* key_name, Ns compute_ns, Ns step_ns, Source src) {
  nlohmann::json a = nlohmann::json::array();
  for (const Group& x : g.top(kTopOperators)) a.push_back(entry(m, x, key_name, compute_ns, step_ns, src));
  return a;
}

// Matrix operators (Ascend kernel rows) by the precision they ran in: the Cube multiplies fp32
// inputs in fp32 (or HF32 when allowed: "HF32 Eligible" YES), several times slower than fp16 /
// bf16. A matrix op is a type naming MatMul, Gemm or Conv, on a Cube-capable core (not AI_CPU,
// not the vector core alone); fp32 when its "Input Data Types" hold FLOAT and no 16-bit type.
nlohmann::json matmul_precision(const RunModel& m) {
  enum : int8_t { kUnseen = -1, kNotMatrix, kMatrix };
  std::vector<int8_t> matrix(m.strings.size(), kUnseen);
  std::vector<int8_t> dtype(m.strings.size(), kUnseen);  // 0 unknown, 1 fp32, 2 16-bit, 3 other
  auto classify_dtypes = [&](std::string_view d) -> int8_t {
    bool fp32 = false, low = false;
    size_t b = 0;
    while (b <= d.size()) {
      size_t e = d.find(';', b);
      if (e == std::string_view::npos) e = d.size();
      std::string_view t = d.substr(b, e - b);
      if (t.rfind("DT_", 0) == 0) t.remove_prefix(3);
      if (t == "FLOAT" || t == "FLOAT32") fp32 = true;
      if (t == "FLOAT16" || t == "BF16" || t == "BFLOAT16" || t == "HALF") low = true;
      b = e + 1;
    }
    return low ? 2 : fp32 ? 1 : (d.empty() || d == "N/A") ? 0 : 3;
  };
  Grouper fp32_types;
  uint64_t n = 0, fp32_n = 0, unknown_n = 0;
  Ns ns = 0, fp32_ns = 0, hf32_ns = 0, low_ns = 0, unknown_ns = 0;
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    int8_t& mk = matrix[k.type];
    if (mk == kUnseen) {
      const std::string_view t = m.str(k.type);
      mk = (t.find("MatMul") != std::string_view::npos || t.find("Matmul") != std::string_view::npos ||
            t.find("Gemm") != std::string_view::npos || t.find("GEMM") != std::string_view::npos ||
            t.rfind("Conv", 0) == 0)
               ? kMatrix
               : kNotMatrix;
    }
    const std::string_view core = m.str(k.accel_core);
    if (mk != kMatrix || core == "AI_CPU" || core == "AI_VECTOR_CORE" || core == "MIX_AIV") continue;
    ++n;
    ns += k.dur;
    int8_t& dt = dtype[k.input_dtypes];
    if (dt == kUnseen) dt = classify_dtypes(m.str(k.input_dtypes));
    if (dt == 0) {
      ++unknown_n;
      unknown_ns += k.dur;
    } else if (dt == 2) {
      low_ns += k.dur;
    } else if (dt == 1) {
      ++fp32_n;
      fp32_ns += k.dur;
      if (m.str(k.hf32) == "YES") hf32_ns += k.dur;
      // Keyed by type and by whether HF32 was allowed (the fix differs).
      fp32_types.add(k.type, k.hf32, k.dur, i);
    }
  }
  nlohmann::json by = nlohmann::json::array();
  for (const Group& g : fp32_types.top(5)) {
    const Kernel& k = m.kernels[g.max_index];
    std::string what = "longest fp32 " + std::string(m.str(g.key)) + " (" + std::to_string(g.max) + " ns)";
    by.push_back({{"type", m.str(g.key)},
                  {"hf32_eligible", m.str(g.core).empty() ? nlohmann::json(nullptr) : nlohmann::json(m.str(g.core))},
                  {"count", g.count},
                  {"total_ns", g.total},
                  {"input_dtypes", m.str(k.input_dtypes)},
                  {"evidence", nlohmann::json::array({evidence_row(m, Role::KernelDetails, k.line, what)})}});
  }
  return {{"matrix_kernels", n},
          {"matrix_ns", ns},
          {"fp32_kernels", fp32_n},
          {"fp32_ns", fp32_ns},
          {"fp32_hf32_eligible_ns", hf32_ns},
          {"low_precision_ns", low_ns},
          {"unknown_dtype_kernels", unknown_n},
          {"unknown_dtype_ns", unknown_ns},
          {"fp32_by_type", std::move(by)}};
}

// Host operators: torch "cpu_op" slices of the Python process (Kineto: of the host threads;
// "Operator" in 2021 traces), ProfilerStep#N excluded.
// Inclusive durations: nested ops (aten::linear > aten::matmul > aten::mm) each count their
// full time, so totals of different names overlap and must not be summed.
void host_operators(const RunModel& m, nlohmann::json& out, Facts& facts) {
  const StrId cpu_op = m.strings.find("cpu_op");
  const StrId operator_cat = m.strings.find("Operator");
  Grouper host;
  uint64_t n = 0;
  bool have_python = false;
  std::vector<int8_t> skip(m.strings.size(), -1);  // per name: 1 = ProfilerStep#
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::HostPython && m.tracks[t].kind != TrackKind::HostOther) continue;
    have_python = true;
    if (cpu_op == kNone32 && operator_cat == kNone32) continue;
    auto r = m.track_slices[t];
    for (uint32_t i = r.begin; i < r.end; ++i) {
      const Slice& s = m.slices[i];
      if (s.cat == kEmptyStr || (s.cat != cpu_op && s.cat != operator_cat)) continue;
      int8_t& sk = skip[s.name];
      if (sk < 0) sk = m.str(s.name).rfind("ProfilerStep#", 0) == 0 ? 1 : 0;
      if (sk) continue;
      host.add(s.name, kEmptyStr, s.dur, i);
      ++n;
    }
  }
  if (!have_python || n == 0) {
    facts.unavailable("operators.host", have_python ? "the Python process has no cpu_op slices"
                                                    : "no Python (host) process in the trace");
    return;
  }
  nlohmann::json a = nlohmann::json::array();
  for (const Group& g : host.top(kTopOperators)) {
    std::string what = "longest " + std::string(m.str(g.key)) + " (" + std::to_string(g.max) + " ns)";
    a.push_back({{"name", m.str(g.key)},
                 {"count", g.count},
                 {"total_ns", g.total},
                 {"mean_ns", g.total / static_cast<Ns>(g.count)},
                 {"max_ns", g.max},
                 {"evidence", nlohmann::json::array({evidence_event(m, m.slices[g.max_index].loc, what)})}});
  }
  out["host"] = {{"time", "inclusive"}, {"operators", n}, {"distinct", host.size()}, {"by_name", a}};
}

// The device operators tallied: compute by type and by name, communication by name, and the
// count and time of each accelerator core.
struct Tally {
  Grouper by_type, by_name, comm;
  Ns compute_ns = 0, comm_ns = 0;
  uint64_t compute_n = 0, comm_n = 0;
  std::map<std::string, std::pair<uint64_t, Ns>> by_core;
};

// From kernel_details.csv.
void tally_kernels(const RunModel& m, Tally& t) {
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    auto& c = t.by_core[std::string(m.str(k.accel_core))];
    ++c.first;
    c.second += k.dur;
    if (is_comm_kernel(m, k)) {
      t.comm.add(k.name, k.accel_core, k.dur, i);
      t.comm_ns += k.dur;
      ++t.comm_n;
      continue;
    }
    t.by_type.add(k.type, k.accel_core, k.dur, i);
    t.by_name.add(k.name, k.accel_core, k.dur, i);
    t.compute_ns += k.dur;
    ++t.compute_n;
  }
}

// From the trace's device tasks, which carry no operator type.
void tally_device_tasks(const DiagnosticContext& ctx, Tally& t, Facts& facts) {
  const RunModel& m = ctx.model;
  // GPU kernels have no task type; their category ("kernel") stands in for it.
  const bool gpu = m.meta.platform == "gpu";
  for (uint32_t i : ctx.device.compute_slices) {
    const Slice& s = m.slices[i];
    StrId core = gpu ? s.cat : s.task_type;
    auto& c = t.by_core[std::string(m.str(core))];
    ++c.first;
    c.second += s.dur;
    t.by_name.add(s.name, core, s.dur, i);
    t.compute_ns += s.dur;
    ++t.compute_n;
  }
  for (uint32_t i : ctx.device.comm_slices) {
    const Slice& s = m.slices[i];
    StrId core = gpu ? s.cat : s.task_type;
    auto& c = t.by_core[core ? std::string(m.str(core)) : std::string("COMMUNICATION")];
    ++c.first;
    c.second += s.dur;
    t.comm.add(s.name, core, s.dur, i);
    t.comm_ns += s.dur;
    ++t.comm_n;
  }
  facts.unavailable("operators.by_type", gpu ? "Kineto kernels carry no operator type: kernels are grouped by name"
                                             : "no " + std::string(role_name(Role::KernelDetails)) +
                                                   " rows: the trace's device tasks carry no operator "
                                                   "types, so operators are grouped by task name only");
}

}  // namespace

void diagnose_operators(const DiagnosticContext& ctx, Facts& facts) {
  const RunModel& m = ctx.model;
  const Ns step_ns = step_device_time(facts);
  Tally t;
  nlohmann::json out;
  Source src = Source::Kernels;

  if (!m.kernels.empty()) {
    src = Source::Kernels;
    out["source"] = role_name(Role::KernelDetails);
    tally_kernels(m, t);
  } else if (ctx.device.has_device) {
    src = Source::Trace;
    out["source"] = "trace device tasks";
    tally_device_tasks(ctx, t, facts);
  } else {
    // Host operators alone, when the trace has them.
    host_operators(m, out, facts);
    const std::string why =
        "no " + std::string(role_name(Role::KernelDetails)) + " rows and no device tasks in the trace";
    if (out.contains("host")) {
      out["source"] = nullptr;
      facts.unavailable("operators.device", why);
      facts.doc["operators"] = out;
    } else {
      facts.unavailable("operators", why);
    }
    return;
  }

  out["by_type"] =
      src == Source::Kernels ? list(m, t.by_type, "type", t.compute_ns, step_ns, src) : nlohmann::json::array();
  out["by_name"] = list(m, t.by_name, "name", t.compute_ns, step_ns, src);
  out["communication"] = list(m, t.comm, "name", t.compute_ns, step_ns, src);
  if (src == Source::Kernels) out["matmul_precision"] = matmul_precision(m);
  nlohmann::json cores = nlohmann::json::object();
  for (const auto& [core, v] : t.by_core)
    cores[core.empty() ? "N/A" : core] = {{"count", v.first}, {"total_ns", v.second}};
  out["totals"] = {{"kernels", t.compute_n + t.comm_n},
                   {"compute_kernels", t.compute_n},
                   {"communication_kernels", t.comm_n},
                   {"compute_ns", t.compute_ns},
                   {"communication_ns", t.comm_ns},
                   {"step_device_time_ns", step_ns > 0 ? nlohmann::json(step_ns) : nlohmann::json(nullptr)},
                   {"distinct_types", t.by_type.size()},
                   {"distinct_names", t.by_name.size()},
                   {"by_accelerator_core", cores}};
  if (step_ns <= 0) facts.unavailable("operators.share_of_step", "no per-step device time (overall) to divide by");
  host_operators(m, out, facts);
  facts.doc["operators"] = out;
}

}  // namespace npu
