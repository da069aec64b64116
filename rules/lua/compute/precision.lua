-- Matrix multiplications in fp32 on the CUDA cores (Kineto traces).
rule {
  id = "compute.precision",
  title = "Matrix multiplications run in fp32 on the CUDA cores, not on the tensor cores",
  category = "compute",
  severity = "high",
  whatif = "bf16",  -- its saving is replayed (docs/whatif.md); the kernels' change below is the fallback
  needs = { "gpu.gemm", "gpu.steps" },
  platforms = { "gpu" },
  params = {
    min_step_share = { default = 0.10, min = 0, max = 1, doc = "reported when fp32 matrix kernels take at least this share of the median step" },
    min_saving_share = { default = 0.05, min = 0, max = 1, doc = "... and the replay (when it can tell) gives bf16 at least this share of the step" },
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
step bound by its host or its copies faster GEMMs save nothing. Where the kernels have no model,
the replay of them taking no time at all (`bound_ns`) must reach that share.

Fix, in order of safety: allow TF32 (one line, no code change; `torch.set_float32_matmul_precision
("high")` does the same), then run the forward and the loss under bf16 autocast (keep the
optimizer and its states in fp32; check the loss curve); an inference job (facts.job) autocasts
its forward, no loss. Ascend's Cube is compute.cube_precision.

Saving per step: replayed (docs/whatif.md, transformation `bf16`; the text gives TF32's replay
too). The kernels' new durations come from the roofline (docs/facts-roofline.md, "The precision
change"): each fp32 operator group (op, shapes) takes max(FLOPs / (target x the BF16 or TF32
peak), bytes / (target x HBM bandwidth)), bf16 with 2-byte operands, at the roofline's target
fraction (`compute.roofline_gemm.target_fraction`, the one owner of it), never less than a group
of the same shapes already in that precision takes. Kernels without a model (no shapes
recorded, launched outside an operator, an op without a FLOP model) keep their time: they are
not counted, and the text says how much they are. Without a usable replay: the modelled kernels'
time less their new time (facts.whatif.transforms.bf16), not replayed; without a model of any
of them, no saving is given. Confidence 0.6.
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
  if bf16 and step and step > 0 then
    if bf16.applicable and (bf16.saving_ns or 0) < p.min_saving_share * step then return end
    -- without a model of the kernels, the replay still bounds it: even at no time they save too little
    if bf16.bound_ns and bf16.bound_ns < p.min_saving_share * step then return end
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
    observed = observed .. string.format("; replayed at the roofline's times, TF32 saves %.3f ms per step and bf16 "
      .. "autocast %.3f ms", (tf32.saving_ns or 0) / 1e6, (bf16.saving_ns or 0) / 1e6)
  end
  -- The rule's own estimate (used without a usable replay): the modelled kernels' change in bf16.
  local t = w and w.transforms and w.transforms.bf16 or nil
  local saving, formula = 0, "not estimated: " .. ((t and t.why) or "no replay (facts.whatif) to time the kernels on the tensor cores")
  if t and t.kernels_ns and t.kernels_after_ns then
    saving = math.max(0, t.kernels_ns - t.kernels_after_ns)
    formula = string.format("the modelled fp32 matrix kernels' time per step (%.3f ms) less the roofline's bf16 time of "
      .. "them (%.3f ms), not replayed", t.kernels_ns / 1e6, t.kernels_after_ns / 1e6)
  end
  if t and (t.not_counted_ns or 0) > 0 then
    observed = observed .. string.format("; %.3f ms per step of them have no roofline model (no shapes or no FLOP "
      .. "model) and are not counted in the saving", t.not_counted_ns / 1e6)
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
    saving_ns = saving,
    saving_formula = formula,
    confidence = 0.6,
    evidence = ev,
  }
end
