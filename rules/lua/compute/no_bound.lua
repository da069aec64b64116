-- Kernels with no busy pipe are latency-bound: tuning or fusion can speed them up.
rule {
  id = "compute.no_bound",
  title = "Operator types with no dominant pipe (latency-bound kernels)",
  category = "compute",
  severity = "low",
  needs = { "operator_health.pmu" },
  platforms = { "ascend" },
  params = {
    min_share = { default = 0.05, min = 0, max = 1, doc = "reported when types with no bound pipe take at least this share of compute" },
    bound_ratio = { default = 0.8, min = 0, max = 1, doc = "a type is bound by its busiest pipe when that pipe's ratio reaches this (the reference's operator_bound_ratio); the facts' bound and no_bound_types use it, the saving measures against it" },
  },
  doc = [[
Why: a kernel whose busiest pipe (cube MAC, vector, scalar, MTE1/2/3 memory moves) is below
`bound_ratio` of its time is bound by nothing in particular: pipeline bubbles, synchronisation between
pipes, scalar control, small tiles. Such kernels usually speed up with better tiling (AOE),
larger shapes, or fusion with their neighbours.

How it is measured (operator_health.pmu, kernel_details.csv with PipeUtilization metrics): per
listed (type, core) group the duration-weighted mean of each pipe ratio; `bound` is "none" when
no candidate pipe reaches `bound_ratio` (the reference's operator_bound_ratio; the facts use the
parameter). The reference looks at the
first operator only and skips all-dynamic runs; here every listed type counts. Reported when the
no-bound types take at least `min_share` of the compute time (operators.totals.compute_ns).

Saving per step = sum over those types of time x (bound_ratio - max_ratio) / bound_ratio / number
of steps: the time the kernel would lose if its busiest pipe reached the `bound_ratio` mark. Confidence
0.15 (generic advice). Steps: overall.steps when known, otherwise the profile is one step.
Optional reads: operators.totals.compute_ns, overall.steps, operator_health.dynamic_shape.
Commands fit the job: AOE in the job's framework (torch_npu.npu.set_aoe and the aoe tool;
MindSpore: set_context(aoe_tune_mode="online")), none when every operator has a dynamic shape
(AOE tunes static shapes only); the fused APIs named are the framework's, and for a job known to
be inference (facts.job.training false) the inference attention kernel.
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local pmu = facts.operator_health.pmu
  local steps = steplib.count(facts) or 1
  local compute = facts.operators and facts.operators.totals and facts.operators.totals.compute_ns
  local t_sum, gain, parts, ev = 0, 0, {}, {}
  for _, t in ipairs(pmu.by_type or {}) do
    if t.bound == "none" and t.max_ratio then
      t_sum = t_sum + t.total_ns
      gain = gain + t.total_ns * math.max(0, p.bound_ratio - t.max_ratio) / p.bound_ratio
      parts[#parts + 1] = string.format("%s/%s %.3f ms (busiest pipe %.2f)", t.type, t.accelerator_core, t.total_ns / 1e6, t.max_ratio)
      if #ev < 3 then evidence.add(ev, t.evidence, 1) end
    end
  end
  if t_sum == 0 then return end
  local share_txt = ""
  if compute and compute > 0 then
    if t_sum < p.min_share * compute then return end
    share_txt = string.format(" (%.1f%% of compute)", 100 * t_sum / compute)
  end
  ev[#ev + 1] = { fact = "operator_health.pmu.no_bound_types", value = pmu.no_bound_types }
  -- The fused APIs of the job's framework; forward-only attention for inference.
  local fused = run.inference(facts) and "npu_rms_norm, npu_swiglu, npu_fused_infer_attention_score"
    or "npu_rms_norm, npu_swiglu, npu_fusion_attention"
  local action = "Fuse these small vector operators with their neighbours (fused torch_npu APIs, e.g. " .. fused
    .. "), use larger shapes per call, and tune static-shape kernels with AOE."
  if run.is_mindspore(facts) then
    action = "Fuse these small vector operators with their neighbours (fused MindSpore operators, e.g. ops.rms_norm, "
      .. "ops.flash_attention_score), use larger shapes per call, and tune static-shape kernels with AOE."
  end
  emit {
    observed = string.format("%d operator types with no pipe above %.1f take %.3f ms%s: %s.", #parts, p.bound_ratio,
      t_sum / 1e6, share_txt, table.concat(parts, ", ")),
    why = "No pipe is saturated: the kernels lose time to bubbles, scalar control or small tiles rather than to a hardware limit.",
    action = action,
    commands = run.aoe_commands(facts),
    saving_ns = gain / steps,
    saving_formula = string.format("sum of type time x (%.1f - busiest pipe) / %.1f / %d step(s)", p.bound_ratio, p.bound_ratio, steps),
    confidence = 0.15,
    evidence = ev,
  }
end
