-- Matrix multiplications in fp32 on the CUDA cores (Kineto traces).
rule {
  id = "compute.precision",
  title = "Matrix multiplications run in fp32 on the CUDA cores, not on the tensor cores",
  category = "compute",
  severity = "high",
  whatif = "bf16",  -- its saving is replayed (docs/whatif.md); the formula below is the fallback
  needs = { "gpu.gemm", "gpu.steps" },
  platforms = { "gpu" },
  params = {
    min_step_share = { default = 0.10, min = 0, max = 1, doc = "reported when fp32 matrix kernels take at least this share of the median step" },
    min_saving_share = { default = 0.05, min = 0, max = 1, doc = "... and the replay (when it can tell) gives bf16 at least this share of the step" },
    speedup = { default = 7.5, min = 1, doc = "the speed-up assumed for TF32/bf16 tensor cores over fp32 CUDA cores" },
  },
  doc = [[
Why: with TF32 off (PyTorch's default for matmuls since 1.12) an fp32 model multiplies its
matrices in fp32 on the CUDA cores (FFMA). The tensor cores do the same work many times faster
in TF32 (fp32 storage, 10-bit mantissa in the products) or bf16. A GEMM-bound fp32 MLP (6 x
Linear(4096)) on an H200 took 48.7 ms per step, 10.0 ms with TF32 and 6.5 ms under bf16 autocast.

How it is measured (facts.gpu.gemm, docs/facts-gpu.md): matrix kernels (GEMM, GEMV,
implicit-GEMM convolutions) by their names: fp32 on the CUDA cores (`*_ffma_*`, `*simt_sgemm*`,
`sgemm*`, `gemmSN_*<float`) of 10 us or more (shorter ones are bound by latency: a launch-bound
step of tiny GEMMs gains nothing), against tf32/bf16/fp16 tensor-core kernels. Their time per
step is the mean over the steps' windows (gpu.steps[].fp32_simt_ns: a trace also holds kernels
outside the steps, such as the tail of the step before the first it records). Reported when
that time is at least `min_step_share` of the median step and, when the replay
can tell (facts.whatif), bf16 would shorten the step by at least `min_saving_share`: in a
step bound by its host or its copies faster GEMMs save nothing.

Fix, in order of safety: allow TF32 (one line, no code change; `torch.set_float32_matmul_precision
("high")` does the same), then run the forward and the loss under bf16 autocast (keep the
optimizer and its states in fp32; check the loss curve); an inference job (facts.job) autocasts
its forward, no loss. Ascend's Cube is compute.cube_precision.
Saving per step: replayed (docs/whatif.md, transformation `bf16`: those kernels 7.5x faster;
the text gives TF32's replay too). Without a usable replay: fp32 matrix time per step x
(1 - 1 / `speedup`). Confidence 0.6.
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local g = facts.gpu.gemm
  if (g.fp32_simt_ns or 0) == 0 then return end
  local _, per_step = steplib.per_step(facts.gpu.steps, "fp32_simt_ns", g.fp32_simt_ns)
  local o = facts.overall
  local step = o and o.step_time and o.step_time.median_ns or nil
  if step and step > 0 and per_step < p.min_step_share * step then return end
  -- The replay's view: faster GEMMs in a step bound by something else save nothing.
  local w = facts.whatif
  local replayed = w and w.available and w.reproduces and w.transforms
  local bf16 = replayed and w.transforms.bf16 or nil
  local tf32 = replayed and w.transforms.tf32 or nil
  if bf16 and bf16.applicable and step and step > 0 and (bf16.saving_ns or 0) < p.min_saving_share * step then
    return
  end
  local ev, names = {}, {}
  for i, k in ipairs(g.fp32_by_name or {}) do
    if i > 2 then break end
    names[#names + 1] = string.format("%s x%d (%.3f ms)", string.sub(k.name, 1, 60), k.count, k.total_ns / 1e6)
    evidence.add(ev, k.evidence)
  end
  ev[#ev + 1] = { fact = "gpu.gemm.fp32_simt_ns", value = g.fp32_simt_ns }
  local observed = string.format("fp32 matrix kernels on the CUDA cores (%d in the trace) take %.3f ms per step%s (tensor-core "
    .. "matrix kernels: %.3f ms per step)", g.fp32_simt_kernels, per_step / 1e6,
    step and string.format(", %.0f%% of the %.3f ms step", 100 * per_step / step, step / 1e6) or "",
    select(2, steplib.per_step(facts.gpu.steps, "tensor_core_ns", g.tensor_core_ns or 0)) / 1e6)
  if #names > 0 then observed = observed .. "; " .. table.concat(names, ", ") end
  if tf32 and tf32.applicable and bf16 and bf16.applicable then
    observed = observed .. string.format("; replayed, TF32 saves %.3f ms per step and bf16 autocast %.3f ms",
      (tf32.saving_ns or 0) / 1e6, (bf16.saving_ns or 0) / 1e6)
  end
  emit {
    observed = observed .. ".",
    why = "Without TF32 or a 16-bit dtype the tensor cores sit idle: fp32 FFMA matrix work runs several times slower.",
    action = run.inference(facts) and "Allow TF32 first (one line, fp32 storage); for the full speed-up run the forward "
      .. "under bf16 autocast (or load the weights in bf16) and check the outputs." or "Allow TF32 first (one line, fp32 "
      .. "storage); for the full speed-up run the forward and the loss under bf16 autocast, keeping the optimizer in fp32.",
    commands = {
      "torch.backends.cuda.matmul.allow_tf32 = True; torch.backends.cudnn.allow_tf32 = True",
      run.inference(facts) and "with torch.autocast(\"cuda\", dtype=torch.bfloat16): out = model(x)"
        or "with torch.autocast(\"cuda\", dtype=torch.bfloat16): loss = loss_fn(model(x), y)",
    },
    saving_ns = per_step * (1 - 1 / p.speedup),
    saving_formula = string.format("fp32 matrix time per step (%.3f ms) x (1 - 1/%.1f)", per_step / 1e6, p.speedup),
    confidence = 0.6,
    evidence = ev,
  }
end
