// Each operator instance of a run with its device time and its work (roofline_parts.h). GPU: the
// FLOPs of the host operator's recorded shapes, given to the kernels it launched (the innermost
// cpu_op around the launching runtime call, joined by the frame's correlation; a graph replay's
// kernel: the innermost cpu_op its capture recorded around its launch, with that capture's
// shapes). Ascend: each kernel_details row from its own shapes.
#include <map>
#include <tuple>
#include <unordered_map>

#include "facts/roofline/launching_ops.h"
#include "facts/roofline/roofline_parts.h"
#include "model/graph_capture.h"

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

namespace {

// An operator's model from its name and recorded inputs (null: none recorded), cached.
const OpWork* work_of(const RunModel& m, StrId name, const OpInputs* in, WorkCache& cache) {
  const WorkCache::Key key{name, in ? in->dims : kNone32, in ? in->types : kNone32, 0, 0, 0};
  if (const OpWork* w = cache.get(key)) return w;
  OpWork w;
  std::vector<Shape> dims;
  if (!in) w.why = "no shapes recorded (record_shapes off)";
  else if (!parse_kineto_dims(m.str(in->dims), &dims)) w.why = "Input Dims not a list of shapes";
  else w = model_torch_op(m.str(name), dims, parse_kineto_types(m.str(in->types)));
  return cache.put(key, std::move(w));
}

}  // namespace

const OpWork* torch_work(const RunModel& m, const Slice& op, WorkCache& cache) {
  return work_of(m, op.name, m.op_inputs_of(op), cache);
}

namespace {

struct OpAcc {
  Ns time = 0;
  Ns longest = -1;
  GemmPrecision precision = GemmPrecision::NotGemm;
  int step = -1;
  void add(const RunModel& m, const Slice& k, int s, std::vector<int8_t>& gemm_kind) {
    time += k.dur;
    step = s;
    int8_t& g = gemm_kind[k.name];
    if (g < 0) g = static_cast<int8_t>(gpu_gemm_precision(m.str(k.name)));
    if (k.dur > longest && static_cast<GemmPrecision>(g) != GemmPrecision::NotGemm) {
      longest = k.dur;
      precision = static_cast<GemmPrecision>(g);
    }
  }
};

// The kernels one replay (its graph launch call) ran for one operator its capture recorded.
using ReplayedOpKey = std::tuple<uint32_t, int32_t, uint64_t>;  // replay call, capture file, operator's loc
struct ReplayedAcc {
  OpAcc acc;
  const CapturedLaunch* launch = nullptr;
};

bool any_captured_shapes(const GraphReplays& g) {
  for (const CapturedLaunch& l : g.launches)
    if (l.dims != kEmptyStr) return true;
  return false;
}

}  // namespace

std::vector<OpRun> gpu_op_runs(const DiagnosticContext& ctx, WorkCache& cache, Coverage& cov) {
  const RunModel& m = ctx.model;
  std::vector<OpRun> out;
  // A graph replay's kernel is its captured operator's (model/graph_capture.h: the capture's
  // recorded inputs), an eager kernel the operator around its launch call's.
  const GraphReplays& replays = m.graph_replays;
  const bool captured_shapes = any_captured_shapes(replays);
  const bool shapes = !m.op_inputs.empty();
  static const std::unordered_map<uint32_t, uint32_t> kNoCalls;
  const auto& calls = shapes ? ctx.ops_of_calls() : kNoCalls;
  std::unordered_map<uint32_t, OpAcc> by_op;
  std::map<ReplayedOpKey, ReplayedAcc> by_replayed_op;
  std::vector<int8_t> gemm_kind(m.strings.size(), -1);
  for (const LaunchedOp& lo : ctx.frame.launched()) {
    const Slice& k = m.slices[lo.slice];
    if (classify_device_task(m, k) != TaskClass::Compute) continue;
    cov.compute_ns += k.dur;
    if (const CapturedLaunch* l = captured_shapes ? replays.launch_of(lo.slice) : nullptr) {
      if (l->leaf_op == kEmptyStr) {
        cov.miss("replayed kernel captured outside any operator", k.dur);
        continue;
      }
      ReplayedAcc& r = by_replayed_op[{lo.call, l->file, l->leaf_loc}];
      r.launch = l;
      r.acc.add(m, k, lo.step, gemm_kind);
      continue;
    }
    if (!shapes) {
      cov.miss("no shapes recorded (record_shapes off)", k.dur);
      continue;
    }
    auto it = lo.call == kNone32 ? calls.end() : calls.find(lo.call);
    if (it == calls.end()) {
      cov.miss("kernel launched outside any operator", k.dur);
      continue;
    }
    by_op[it->second].add(m, k, lo.step, gemm_kind);
  }
  // One operator instance: its model from (name, inputs), its evidence at (file, loc).
  auto add_run = [&](StrId name, const OpInputs* in, const OpAcc& a, uint64_t loc, int32_t file) {
    const OpWork* w = work_of(m, name, in, cache);
    if (!w->modelled) {
      cov.miss(w->why, a.time);
      return;
    }
    cov.modelled_ns += a.time;
    OpRun r;
    r.op = name;
    r.shapes = in->dims;
    r.types = in->types;
    r.precision = std::string(w->kind) == "bytes_only" ? "" : gpu_precision(a.precision, w->dtype);
    r.work = w;
    r.time = a.time;
    r.step = a.step;
    r.loc = loc;
    r.file = file;
    out.push_back(r);
  };
  for (const auto& [op_slice, a] : by_op) {
    const Slice& op = m.slices[op_slice];
    add_run(op.name, m.op_inputs_of(op), a, op.loc, -1);
  }
  for (const auto& [key, r] : by_replayed_op) {
    const CapturedLaunch& l = *r.launch;
    const OpInputs in{0, l.dims, l.types};
    add_run(l.leaf_op, l.dims == kEmptyStr ? nullptr : &in, r.acc, l.leaf_loc, l.file);
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
