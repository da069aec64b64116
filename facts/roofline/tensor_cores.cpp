// fp32 matrix kernels on the CUDA cores -> the tensor cores, from the roofline (tensor_cores.h).
#include "facts/roofline/tensor_cores.h"

#include <algorithm>
#include <tuple>
#include <unordered_set>

#include <fmt/format.h>

#include "facts/roofline/roofline_parts.h"

namespace npu::roofline {

Ns TensorCoreTimes::new_duration(uint32_t slice) const {
  auto it = std::lower_bound(kernels.begin(), kernels.end(), slice,
                             [](const std::pair<uint32_t, Ns>& k, uint32_t v) { return k.first < v; });
  return it != kernels.end() && it->first == slice ? it->second : -1;
}

std::string TensorCoreTimes::not_counted_text() const {
  std::string out;
  for (const auto& [why, m] : not_counted)
    out += fmt::format("{}{}: {} kernels, {:.3f} ms", out.empty() ? "" : "; ", why, m.count,
                       static_cast<double>(m.ns) / 1e6);
  return out;
}

namespace {

// The fp32 kernels of one (op, shapes, types) group and the work of its operator instances.
struct Fp32Group {
  double flops = 0, bytes = 0;
  int elem_bytes = 4;
  uint64_t ops = 0;  // operator instances
  Ns time = 0;
  std::vector<std::pair<uint32_t, Ns>> kernels;  // (slice, duration)
};

// Operator instances already on the tensor cores, by (op, shapes, precision): count and time.
struct Done {
  uint64_t count = 0;
  Ns time = 0;
};

using GroupKey = std::tuple<StrId, StrId, StrId>;           // op, dims, types
using DoneKey = std::tuple<StrId, StrId, std::string>;      // op, dims, precision

struct Walk {
  std::map<GroupKey, Fp32Group> groups;
  std::map<DoneKey, Done> done;
  std::map<std::string, TensorCoreTimes::Miss> missed;
};

// Every GEMM kernel the run launched: fp32 ones of kComputeBoundGemmNs or more into their
// operator's group (or missed, with why), tensor-core ones into `done`.
Walk walk(const DiagnosticContext& ctx) {
  const RunModel& m = ctx.model;
  Walk w;
  const bool shapes = !m.op_inputs.empty();
  static const std::unordered_map<uint32_t, uint32_t> kNoCalls;
  const auto& calls = shapes ? ctx.ops_of_calls() : kNoCalls;
  WorkCache cache;
  std::vector<int8_t> kind(m.strings.size(), -1);
  std::unordered_set<uint32_t> counted;  // operator slices whose work is in a group
  std::map<uint32_t, Ns> done_ops;       // tensor-core operator slice -> its kernels' time
  for (const LaunchedOp& lo : ctx.frame.launched()) {
    const Slice& k = m.slices[lo.slice];
    int8_t& g = kind[k.name];
    if (g < 0) g = static_cast<int8_t>(gpu_gemm_precision(m.str(k.name)));
    const auto p = static_cast<GemmPrecision>(g);
    if (p == GemmPrecision::NotGemm || (p == GemmPrecision::Fp32Simt && k.dur < kComputeBoundGemmNs)) continue;
    auto miss = [&](const std::string& why) {  // counted in the steps only, where the replay saves
      if (p != GemmPrecision::Fp32Simt || lo.step < 0) return;
      TensorCoreTimes::Miss& x = w.missed[why];
      ++x.count;
      x.ns += k.dur;
    };
    if (!shapes) {
      miss("no shapes recorded (record_shapes off)");
      continue;
    }
    auto it = lo.call == kNone32 ? calls.end() : calls.find(lo.call);
    if (it == calls.end()) {
      miss("kernel launched outside any operator");
      continue;
    }
    const Slice& op = m.slices[it->second];
    const OpWork* work = torch_work(m, op, cache);
    if (!work->modelled || work->flops <= 0) {
      miss(work->modelled ? std::string(m.str(op.name)) + ": no FLOP model" : work->why);
      continue;
    }
    const OpInputs* in = m.op_inputs_of(op);
    if (p == GemmPrecision::TensorCore) {
      Done& d = w.done[{op.name, in->dims, gpu_precision(p, work->dtype)}];
      if (done_ops.emplace(it->second, 0).second) ++d.count;
      d.time += k.dur;
      continue;
    }
    Fp32Group& grp = w.groups[{op.name, in->dims, in->types}];
    if (counted.insert(it->second).second) {
      ++grp.ops;
      grp.flops += work->flops;
      grp.bytes += work->bytes;
      grp.elem_bytes = work->elem_bytes > 0 ? work->elem_bytes : 4;
    }
    grp.time += k.dur;
    grp.kernels.emplace_back(lo.slice, k.dur);
  }
  return w;
}

// One precision's new times for the walked groups.
TensorCoreTimes times_in(const Walk& w, const DevicePeaks& dev, const std::string& precision, double target) {
  TensorCoreTimes t;
  t.precision = precision;
  t.target = target;
  t.not_counted = w.missed;
  t.device = dev.name;
  t.peak_flops_per_s = dev.peak(precision);
  t.bytes_per_s = dev.bytes_per_s;
  if (!dev.known) t.why = dev.why;
  else if (t.peak_flops_per_s <= 0 || t.bytes_per_s <= 0) t.why = "no " + precision + " or HBM peak for " + dev.name;
  if (!t.why.empty() || target <= 0) return t;
  // bf16 autocast reads and writes 2-byte operands; TF32 keeps fp32 storage.
  for (const auto& [key, g] : w.groups) {
    const double bytes = precision == "bf16" ? g.bytes * 2.0 / g.elem_bytes : g.bytes;
    double ns = std::max(g.flops / (target * t.peak_flops_per_s), bytes / (target * t.bytes_per_s)) * 1e9;
    auto d = w.done.find({std::get<0>(key), std::get<1>(key), precision});
    if (d != w.done.end() && d->second.count > 0) {
      // Per instance no faster than the run's own instances of that op and shape in that precision.
      const double floor = static_cast<double>(d->second.time) / static_cast<double>(d->second.count) *
                           static_cast<double>(g.ops);
      if (floor > ns) ns = floor, ++t.held;
    }
    ns = std::min(ns, static_cast<double>(g.time));
    const double scale = g.time > 0 ? ns / static_cast<double>(g.time) : 1.0;
    for (const auto& [slice, dur] : g.kernels)
      t.kernels.emplace_back(slice, static_cast<Ns>(static_cast<double>(dur) * scale));
    ++t.groups;
  }
  std::sort(t.kernels.begin(), t.kernels.end());
  return t;
}

}  // namespace

std::array<TensorCoreTimes, 2> tensor_core_times(const DiagnosticContext& ctx) {
  const DevicePeaks& dev = ctx.device_peaks();  // its warning is the roofline section's
  const Walk w = walk(ctx);
  const double target = ctx.options.roofline_target_fraction;
  return {times_in(w, dev, "tf32", target), times_in(w, dev, "bf16", target)};
}

}  // namespace npu::roofline
