-- Matrix and convolution groups far from their roof (facts.roofline).
rule {
  id = "compute.roofline_gemm",
  title = "Matrix operators run far below what the device can do for their shapes",
  category = "compute",
  severity = "medium",
  needs = { "roofline.groups", "roofline.device" },
  params = {
    target_fraction = { default = 0.7, min = 0.05, max = 1, doc = "the efficiency a group is measured against: groups at or above it get no finding, the gap is the time beyond their roof's time at it (the facts' roofline.target_fraction)" },
    min_step_share = { default = 0.05, min = 0, max = 1, doc = "reported when the groups' gaps add up to at least this share of the median step" },
  },
  doc = [[
Why: a GEMM or convolution's time has a floor: its FLOPs at the peak of the precision it runs in,
or its bytes at the memory bandwidth, whichever is longer (the roofline). A group far below that
roof has time to win that no precision switch gives: a memory-bound GEMM (small batch, large
weights) streams its weights at the HBM rate, so a larger batch, bf16 or int8 weights, fusing it
with its neighbours, or (Ascend) weights kept in the FRACTAL_NZ format the Cube reads raise its
FLOPs per byte; a compute-bound one below its peak wants aligned shapes (dims multiples of 16 /
64 / 128, no N=1000-style tail) and enough tiles to fill every SM or AI core.

How it is measured (facts.roofline, docs/facts-roofline.md): the gemm and conv groups whose
fraction of their roof is under `target_fraction`, not latency-bound (short instances belong to
the small-kernel rules), on a device whose limits are known. Reported when their gaps (time
beyond the roof's time at `target_fraction`) add up to at least `min_step_share` of the median
step. Groups at or above `target_fraction` of their roof get nothing.

Saving per step: the sum of the groups' gaps over the steps, bounded by their time. Confidence
0.4 (a roof is an upper bound; real kernels reach 0.7-0.9 of it).
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local rl = facts.roofline
  if not rl.device.known then return end
  local n = steplib.count(facts) or 1
  local gap, memory, compute, ev, texts = 0, 0, 0, {}, {}
  for _, g in ipairs(rl.groups) do
    if (g.kind == "gemm" or g.kind == "conv") and g.fraction and g.fraction < p.target_fraction
        and g.bound ~= "latency" then
      local ideal = math.max(g.peak_flops_per_s and g.peak_flops_per_s > 0 and g.flops / g.peak_flops_per_s or 0,
        g.bytes / rl.device.hbm_bytes_per_s)
      local gg = math.max(0, g.time_ns - ideal / p.target_fraction * 1e9)
      gap = gap + gg
      if g.bound == "memory" then memory = memory + gg else compute = compute + gg end
      if #texts < 4 then
        texts[#texts + 1] = string.format("%s %s (%s) x%d: %.2f of its %s roof, %.3f ms to gain", g.op, g.shapes,
          g.precision, g.count, g.fraction, g.bound, gg / n / 1e6)
        evidence.add(ev, g.evidence)
      end
    end
  end
  local o = facts.overall
  local step = o and o.step_time and o.step_time.median_ns or nil
  if gap == 0 or (step and step > 0 and gap / n < p.min_step_share * step) then return end
  local ascend = facts.run ~= nil and facts.run.platform == "ascend"
  local actions = {}
  if memory > 0 then
    actions[#actions + 1] = "memory-bound groups: raise their FLOPs per byte: a larger batch (or fewer, larger "
      .. "GEMMs), bf16 or int8 weights, fusing them with their neighbours"
      .. (ascend and ", weights kept in FRACTAL_NZ (torch_npu.npu_format_cast(w, 29))" or "")
  end
  if compute > 0 then
    actions[#actions + 1] = "compute-bound groups below their peak: align M, N, K to multiples of 64-128 and give "
      .. "every " .. (ascend and "AI core" or "SM") .. " tiles (wave quantisation)"
  end
  emit {
    observed = string.format("Matrix groups below %.2f of their roof lose %.3f ms per step%s: %s.", p.target_fraction,
      gap / n / 1e6, step and step > 0 and string.format(" (%.1f%% of the %.3f ms step)", 100 * gap / n / step, step / 1e6)
      or "", table.concat(texts, "; ")),
    why = "Each group's time is well above the floor its FLOPs and bytes set on this device.",
    action = table.concat(actions, "; ") .. ".",
    saving_ns = gap / n,
    saving_formula = string.format("sum of the groups' time beyond their roof's time at %.2f of it, per step (%d steps)",
      p.target_fraction, n),
    confidence = 0.4,
    evidence = ev,
  }
end
