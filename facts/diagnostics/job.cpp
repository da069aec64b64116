// "job": what the profiled program does, from its host operators, so that every command a rule
// prints fits it (training or inference, the optimizer and how it is implemented, torch.compile,
// the DataLoader, data parallelism, whether Python stacks were recorded). Every platform: the
// names are PyTorch's (torch.profiler and torch_npu record the same ones); MindSpore's backward
// graph is named "Gradients/...". Each distinct name is classified once.
#include "facts/diagnostics/diagnostics.h"

namespace npu {

namespace {

enum Kind : int8_t {
  kOther = 0,
  kOptimizerStep,    // "Optimizer.step#AdamW.step"
  kBackward,         // "autograd::engine::evaluate_function: ...", MindSpore "Gradients/..."
  kCompiled,         // torch.compile: "Torch-Compiled Region: 0/0", "CompiledFxGraph ...", "CompiledFunction"
  kFusedOptimizer,   // "aten::_fused_adamw_", "aten::_fused_sgd_"
  kForeach,          // "aten::_foreach_add_", ...
  kLoaderSingle,     // "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
  kLoaderWorkers,    // "..._MultiProcessingDataLoaderIter.__next__"
  kDdp,              // "DistributedDataParallel.forward"
  kFsdp,             // "FullyShardedDataParallel.forward", "FSDP::..."
  kOptimizerKernel,  // device: an optimizer's multi_tensor_apply_kernel (foreach / fused update functors)
  kGraphLaunch,      // "cudaGraphLaunch" / "hipGraphLaunch": a replay that hides its operators
  kFrameworkOp,      // "aten::..." (PyTorch, torch_npu), MindSpore scope names "Default/...": the
                     // framework's operators were recorded, so their absence means something
  kKinds
};

Kind classify(std::string_view n, bool mindspore, bool device) {
  auto starts = [&](std::string_view p) { return n.rfind(p, 0) == 0; };
  auto has = [&](std::string_view p) { return n.find(p) != std::string_view::npos; };
  if (mindspore && starts("Gradients/")) return kBackward;
  if (mindspore && starts("Default/")) return kFrameworkOp;
  // An optimizer's update kernels (foreach / fused): the parameter update (add with alpha: SGD),
  // Adam's moments (addcdiv / addcmul with scalar lists, lerp) or a fused optimizer's own functor.
  // Other multi-tensor kernels (copies, scaling) run in inference too.
  if (device)
    return has("multi_tensor_apply_kernel") &&
                   (has("FusedAdamMathFunctor") || has("FusedSgdMathFunctor") || has("BinaryOpListAlphaFunctor") ||
                    has("PointwiseOpScalarListFunctor") || has("TernaryOpScalarFunctor"))
               ? kOptimizerKernel
               : kOther;
  if (starts("Optimizer.step#")) return kOptimizerStep;
  if (n == "cudaGraphLaunch" || n == "hipGraphLaunch") return kGraphLaunch;
  if (starts("autograd::engine::evaluate_function")) return kBackward;
  if (starts("Torch-Compiled Region") || has("CompiledFxGraph") || n == "CompiledFunction") return kCompiled;
  if (starts("aten::_fused_adam") || starts("aten::_fused_sgd")) return kFusedOptimizer;
  if (starts("aten::_foreach_")) return kForeach;
  if (has("DataLoader") && has("_MultiProcessingDataLoaderIter")) return kLoaderWorkers;
  if (has("DataLoader") && has("_SingleProcessDataLoaderIter")) return kLoaderSingle;
  if (starts("DistributedDataParallel.forward")) return kDdp;
  if (starts("FullyShardedDataParallel") || starts("FSDP::")) return kFsdp;
  if (starts("aten::")) return kFrameworkOp;
  return kOther;
}

}  // namespace

void diagnose_job(const DiagnosticContext& ctx, Facts& facts) {
  const RunModel& m = ctx.model;
  const bool mindspore = m.meta.framework == "mindspore";
  std::vector<int8_t> kind(m.strings.size(), -1);
  uint64_t count[kKinds] = {};
  uint32_t first[kKinds];
  std::fill(std::begin(first), std::end(first), kNone32);
  uint64_t host_slices = 0;
  // foreach ops inside an optimizer step: the step ran the foreach implementation (grad clipping
  // also uses foreach ops, outside the step).
  uint64_t foreach_in_step = 0;
  for (uint32_t t = 0; t < m.tracks.size() && t < m.track_slices.size(); ++t) {
    const bool device = m.tracks[t].kind == TrackKind::Device;
    Ns step_end = -1;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      if (!device) ++host_slices;
      // A name is classified once, on the side it first appears (device names differ from host ones).
      int8_t& k = kind[s.name];
      if (k < 0) k = classify(m.str(s.name), mindspore, device);
      if (first[k] == kNone32) first[k] = i;
      ++count[k];
      if (k == kOptimizerStep) step_end = std::max(step_end, s.end());
      if (k == kForeach && s.ts <= step_end) ++foreach_in_step;
    }
  }

  nlohmann::json job;
  nlohmann::json ev = nlohmann::json::array();
  auto evidence = [&](Kind k, std::string_view what) {
    if (first[k] != kNone32) ev.push_back(evidence_event(m, m.slices[first[k]].loc, what));
  };
  // Training when the host shows an optimizer step or a backward op, or the device ran an
  // optimizer's multi-tensor kernel (a step captured in a graph shows only that). Inference when
  // the framework's operators were recorded (aten:: ops, MindSpore scopes) and none trains, and
  // no graph replay could hide them. Else unknown (null): a CANN-level capture (msprof) or a
  // trace of runtime calls only says nothing of the job.
  const bool training = count[kOptimizerStep] > 0 || count[kBackward] > 0 || count[kOptimizerKernel] > 0;
  if (training || (count[kFrameworkOp] > 0 && count[kGraphLaunch] == 0)) job["training"] = training;
  else job["training"] = nullptr;
  job["optimizer_kernels"] = count[kOptimizerKernel];
  job["graph_launches"] = count[kGraphLaunch];
  job["host_slices"] = host_slices;
  job["framework_ops"] = count[kFrameworkOp];
  job["optimizer_steps"] = count[kOptimizerStep];
  job["backward_ops"] = count[kBackward];
  job["optimizer"] = nullptr;
  job["optimizer_impl"] = nullptr;
  if (first[kOptimizerStep] != kNone32) {
    // "Optimizer.step#AdamW.step" -> "AdamW"
    std::string_view n = m.str(m.slices[first[kOptimizerStep]].name).substr(15);
    const std::string cls(n.substr(0, n.find('.')));
    job["optimizer"] = cls;
    job["optimizer_impl"] = count[kFusedOptimizer] > 0 || cls.find("Fused") != std::string::npos ? "fused"
                            : foreach_in_step > 0                                                ? "foreach"
                                                                                                 : "for_loop";
  }
  job["compiled"] = count[kCompiled] > 0;
  job["dataloader"] = count[kLoaderWorkers] > 0  ? nlohmann::json("workers")
                      : count[kLoaderSingle] > 0 ? nlohmann::json("single_process")
                                                 : nlohmann::json(nullptr);
  job["data_parallel"] = count[kFsdp] > 0  ? nlohmann::json("fsdp")
                         : count[kDdp] > 0 ? nlohmann::json("ddp")
                                           : nlohmann::json(nullptr);
  job["python_stacks"] = ctx.python.available();
  evidence(kOptimizerStep, "optimizer step");
  if (first[kOptimizerStep] == kNone32) evidence(kBackward, "backward op");
  if (first[kOptimizerStep] == kNone32 && first[kBackward] == kNone32)
    evidence(kOptimizerKernel, "optimizer kernel (multi_tensor_apply)");
  evidence(kFusedOptimizer, "fused optimizer op");
  evidence(kCompiled, "torch.compile region");
  evidence(count[kLoaderWorkers] ? kLoaderWorkers : kLoaderSingle, "DataLoader fetch");
  evidence(count[kFsdp] ? kFsdp : kDdp, "data-parallel wrapper");
  job["evidence"] = std::move(ev);
  facts.doc["job"] = std::move(job);
}

}  // namespace npu
