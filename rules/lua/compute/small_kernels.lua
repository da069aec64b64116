-- Most GPU kernels are too short to pay for their launch (Kineto traces).
rule {
  id = "compute.small_kernels",
  title = "Many small GPU kernels: launch overhead rivals the work",
  category = "compute",
  severity = "medium",
  needs = { "gpu.kernels", "gpu.steps" },
  platforms = { "gpu" },
  params = {
    min_share = { default = 0.5, min = 0, max = 1, doc = "reported when kernels under 10 us launched one by one are at least this share of all kernels" },
    min_per_step = { default = 100, min = 0, doc = "... at least this many per step" },
    min_time_share = { default = 0.05, min = 0, max = 1, doc = "... and at least this share of kernel time" },
    launch_ns = { default = 5000, min = 0, doc = "the launch cost assumed per small kernel, ns" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of that launch cost (capped at GPU idle) fusion saves" },
  },
  doc = [[
Why: a kernel shorter than ~10 us costs about as much host time to launch (cudaLaunchKernel
plus the PyTorch dispatcher, 5-20 us per operator) as it runs on the GPU. A step made of
thousands of them is bound by the launch rate, and the GPU mostly idles (see
dispatch.launch_bound, which measures the idle this causes). Elementwise chains (activation,
bias, dropout, residual add, norm), per-parameter optimizer loops and tiny batches produce
them.

How it is measured (facts.gpu.kernels, gpu.steps): kernels of the trace's GPU shorter than
gpu.thresholds.small_kernel_ns (10 us), launched one by one: kernels replayed from CUDA/HIP graphs
(gpu.graph_replay) cost no launch each and are left out, since graphs are already the fix.
Reported when those are at least `min_share` of all kernels, at least `min_per_step`
per step, and small kernels are at least `min_time_share` of kernel time: below that the
GPU is busy with large kernels while the small ones are launched, so their launches hide behind
that work.

Fix: `torch.compile` fuses elementwise chains into single kernels; a fused optimizer
(`fused=True`) for the optimizer the job steps (facts.job: Adam, AdamW, SGD, not fused already; none for
inference); fused layers (FlashAttention via `F.scaled_dot_product_attention`, apex/TE fused
LayerNorm); a larger batch; CUDA graphs
(`mode="reduce-overhead"`) when shapes are static.

Saving per step = `factor` x min(small kernels per step x `launch_ns`, GPU idle per
step (overall.free_ns / overall.steps)): fusion removes launches, each worth about one launch
cost of GPU idle when the step is launch-bound; never more than the idle there is. Confidence
0.3 (it is the same idle as dispatch.launch_bound: do not add them).
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"

function check(facts, p, emit)
  local k = facts.gpu.kernels
  local steps = facts.gpu.steps
  local n = #steps
  if n == 0 or (k.count or 0) == 0 then return end
  local small = 0
  for _, s in ipairs(steps) do small = small + (s.small_kernels or 0) end
  -- Graph-replayed kernels have no launch of their own: only the ones launched one by one count.
  local g = facts.gpu.graph_replay
  local replayed = g and g.small_kernels or 0
  local launched = (k.small or small) - replayed
  if launched <= 0 or small == 0 then return end
  local per_step = small / n * launched / (k.small or small)
  if launched / k.count < p.min_share or per_step < p.min_per_step then return end
  if (k.small_share_of_time or 0) < p.min_time_share then return end
  local cost = per_step * p.launch_ns
  local formula = string.format("%.2f x %.0f small kernels per step x %.1f us launch", p.factor, per_step, p.launch_ns / 1e3)
  local o = facts.overall
  if o and o.free_ns and o.steps and o.steps > 0 and o.free_ns / o.steps < cost then
    cost = o.free_ns / o.steps
    formula = formula .. ", capped at GPU idle per step"
  end
  local ev = {}
  if facts.operators and facts.operators.by_name then
    for i, x in ipairs(facts.operators.by_name) do
      if i > 2 then break end
      evidence.add(ev, x.evidence)
    end
  end
  ev[#ev + 1] = { fact = "gpu.kernels.small", value = k.small }
  -- A compiled model is not told to compile again (its small kernels are what inductor left); a
  -- fused optimizer only for the optimizer the job steps, none for inference (facts.job).
  local commands = run.compiled(facts) and {} or { "model = torch.compile(model)" }
  commands[#commands + 1] = run.fused_optimizer(facts, "model.parameters()")
  emit {
    observed = string.format("%.0f%% of %d kernels are shorter than 10 us and launched one by one (%.0f per step, "
      .. "%.1f%% of kernel time); median kernel %.1f us.%s", 100 * launched / k.count, k.count, per_step,
      100 * (k.small_share_of_time or 0), (k.median_ns or 0) / 1e3,
      replayed > 0 and string.format(" %d more are replayed from CUDA graphs (no launch each).", replayed) or ""),
    why = "Each launch costs microseconds of host time; kernels shorter than that leave the GPU waiting on the CPU.",
    action = "Fuse: torch.compile the model (elementwise chains become one kernel), use "
      .. (run.inference(facts) and "" or "fused optimizers and ") .. "fused attention/norm layers, or raise the batch size.",
    commands = commands,
    saving_ns = p.factor * cost,
    saving_formula = formula,
    confidence = 0.3,
    evidence = ev,
  }
end
