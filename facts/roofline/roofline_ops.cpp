// Each operator instance of a run with its device time and its work (roofline_parts.h). GPU: the
// FLOPs of the host operator's recorded shapes, given to the kernels it launched (the innermost
// cpu_op around the launching runtime call, joined by the frame's correlation). Ascend: each
// kernel_details row from its own shapes.
#include <unordered_map>

#include "facts/roofline/launching_ops.h"
#include "facts/roofline/roofline_parts.h"

namespace npu::roofline {

std::unordered_map<uint32_t, uint32_t> ops_of_calls(const RunModel& m) {
  std::unordered_map<uint32_t, uint32_t> out;
  const StrId cpu_op = m.strings.find("cpu_op");
  if (cpu_op == kNone32) return out;
  std::vector<uint32_t> stack;
  std::vector<int8_t> runtime(m.strings.size(), -1);
  for (uint32_t t = 0; t < m.tracks.size() && t < m.track_slices.size(); ++t) {
    const TrackKind k = m.tracks[t].kind;
    if (k != TrackKind::HostOther && k != TrackKind::HostPython) continue;
    stack.clear();
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      while (!stack.empty() && m.slices[stack.back()].end() <= s.ts) stack.pop_back();
      if (s.cat == cpu_op) {
        stack.push_back(i);
        continue;
      }
      if (s.corr == kNoId || stack.empty()) continue;
      int8_t& r = runtime[s.cat];
      if (r < 0) r = kineto_category(m.str(s.cat)) == KinetoCat::HostRuntime ? 1 : 0;
      if (r) out.emplace(i, stack.back());
    }
  }
  return out;
}

std::string gpu_precision(GemmPrecision p, const std::string& dtype) {
  if (p == GemmPrecision::Fp32Simt) return "fp32";
  if (dtype == "fp32") return p == GemmPrecision::TensorCore ? "tf32" : "fp32";
  return dtype;
}

const OpWork* torch_work(const RunModel& m, const Slice& op, WorkCache& cache) {
  const OpInputs* in = m.op_inputs_of(op);
  const WorkCache::Key key{op.name, in ? in->dims : kNone32, in ? in->types : kNone32, 0, 0, 0};
  if (const OpWork* w = cache.get(key)) return w;
  OpWork w;
  std::vector<Shape> dims;
  if (!in) w.why = "no shapes recorded (record_shapes off)";
  else if (!parse_kineto_dims(m.str(in->dims), &dims)) w.why = "Input Dims not a list of shapes";
  else w = model_torch_op(m.str(op.name), dims, parse_kineto_types(m.str(in->types)));
  return cache.put(key, std::move(w));
}

namespace {

struct OpAcc {
  Ns time = 0;
  Ns longest = -1;
  GemmPrecision precision = GemmPrecision::NotGemm;
  int step = -1;
};

}  // namespace

std::vector<OpRun> gpu_op_runs(const DiagnosticContext& ctx, WorkCache& cache, Coverage& cov) {
  const RunModel& m = ctx.model;
  std::vector<OpRun> out;
  const bool shapes = !m.op_inputs.empty();
  static const std::unordered_map<uint32_t, uint32_t> kNoCalls;
  const auto& calls = shapes ? ctx.ops_of_calls() : kNoCalls;
  std::unordered_map<uint32_t, OpAcc> by_op;
  std::vector<int8_t> gemm_kind(m.strings.size(), -1);
  for (const LaunchedOp& lo : ctx.frame.launched()) {
    const Slice& k = m.slices[lo.slice];
    if (classify_device_task(m, k) != TaskClass::Compute) continue;
    cov.compute_ns += k.dur;
    if (!shapes) {
      cov.miss("no shapes recorded (record_shapes off)", k.dur);
      continue;
    }
    auto it = lo.call == kNone32 ? calls.end() : calls.find(lo.call);
    if (it == calls.end()) {
      cov.miss("kernel launched outside any operator", k.dur);
      continue;
    }
    OpAcc& a = by_op[it->second];
    a.time += k.dur;
    a.step = lo.step;
    int8_t& g = gemm_kind[k.name];
    if (g < 0) g = static_cast<int8_t>(gpu_gemm_precision(m.str(k.name)));
    if (k.dur > a.longest && static_cast<GemmPrecision>(g) != GemmPrecision::NotGemm) {
      a.longest = k.dur;
      a.precision = static_cast<GemmPrecision>(g);
    }
  }
  for (const auto& [op_slice, a] : by_op) {
    const Slice& op = m.slices[op_slice];
    const OpWork* w = torch_work(m, op, cache);
    if (!w->modelled) {
      cov.miss(w->why, a.time);
      continue;
    }
    cov.modelled_ns += a.time;
    const OpInputs* in = m.op_inputs_of(op);
    OpRun r;
    r.op = op.name;
    r.shapes = in->dims;
    r.types = in->types;
    r.precision = std::string(w->kind) == "bytes_only" ? "" : gpu_precision(a.precision, w->dtype);
    r.work = w;
    r.time = a.time;
    r.step = a.step;
    r.loc = op.loc;
    out.push_back(r);
  }
  return out;
}

std::vector<OpRun> ascend_op_runs(const DiagnosticContext& ctx, WorkCache& cache, Coverage& cov) {
  const RunModel& m = ctx.model;
  std::vector<OpRun> out;
  const StrId yes = m.strings.find("YES");
  for (const Kernel& k : m.kernels) {
    const std::string_view core = m.str(k.accel_core);
    if (core == "AI_CPU" || core == "HCCL" || core == "COMMUNICATION" || core.empty() || k.dur <= 0) continue;
    cov.compute_ns += k.dur;
    const WorkCache::Key key{k.type, k.input_shapes, k.input_dtypes, k.input_formats, k.output_shapes, k.output_dtypes};
    const OpWork* w = cache.get(key);
    if (!w) {
      std::vector<Shape> in, outs;
      OpWork built;
      if (k.input_shapes == kEmptyStr && k.output_shapes == kEmptyStr) built.why = "no shapes recorded";
      else if (!parse_ascend_shapes(m.str(k.input_shapes), &in) || !parse_ascend_shapes(m.str(k.output_shapes), &outs))
        built.why = "Input Shapes / Output Shapes not lists of dims";
      else
        built = model_ascend_op(m.str(k.type), in, outs, split_list(m.str(k.input_dtypes), ';'),
                                split_list(m.str(k.output_dtypes), ';'), split_list(m.str(k.input_formats), ';'));
      w = cache.put(key, std::move(built));
    }
    if (!w->modelled) {
      cov.miss(w->why, k.dur);
      continue;
    }
    cov.modelled_ns += k.dur;
    OpRun r;
    r.op = k.type;
    r.shapes = k.input_shapes;
    r.types = k.input_dtypes;
    r.formats = k.input_formats;
    const bool hf32 = w->dtype == "fp32" && k.hf32 == yes;
    r.precision = std::string(w->kind) == "bytes_only" ? "" : hf32 ? "hf32" : w->dtype;
    r.work = w;
    r.time = k.dur;
    r.step = ctx.frame.step_of_device(k.start);
    r.line = k.line;
    out.push_back(r);
  }
  return out;
}

}  // namespace npu::roofline
