-- Matrix operators in fp32 on Ascend's Cube (kernel_details input data types).
rule {
  id = "compute.cube_precision",
  title = "Matrix operators run in fp32 on the Cube, not in HF32 or a 16-bit dtype",
  category = "compute",
  severity = "medium",
  needs = { "operators.matmul_precision", "operators.totals" },
  platforms = { "ascend" },
  params = {
    min_compute_share = { default = 0.20, min = 0, max = 1, doc = "reported when fp32 matrix operators take at least this share of the computing time" },
    min_ns_per_step = { default = 500000, min = 0, doc = "... and at least this long per step, ns" },
    speedup = { default = 2.0, min = 1, doc = "the speed-up assumed for HF32/bf16 over fp32 (without the roofline)" },
  },
  doc = [[
Why: the Cube multiplies fp16 / bf16 inputs at its full rate. Given fp32 inputs it runs in fp32,
or in HF32 (fp32 storage, a shorter mantissa in the products) where HF32 is allowed: torch_npu
allows it for convolutions by default (`torch.npu.conv.allow_hf32`, True) but not for matrix
multiplications (`torch.npu.matmul.allow_hf32`, False), so an fp32 model's MatMul runs in full
fp32. Its Conv / MatMul time is then a large part of the computing time that a dtype change
shortens.

How it is measured (facts.operators.matmul_precision, docs/facts-operators.md): kernel_details
rows whose type names MatMul, Gemm or Conv, on a Cube-capable core, whose `Input Data Types`
hold FLOAT and no 16-bit type; the `HF32 Eligible` column says whether HF32 was allowed.
Reported when that time is at least `min_compute_share` of the computing time and at
least `min_ns_per_step` per step.

Fix, in order of safety: allow HF32 where it is off (one line: `torch.npu.matmul.allow_hf32 =
True`; `torch.npu.conv.allow_hf32 = True` for convolutions with HF32 Eligible NO), then run the
forward (and the loss, in training) under bf16 autocast (`torch.autocast("npu",
dtype=torch.bfloat16)`), keeping the optimizer in fp32. MindSpore: mixed precision
(`mindspore.amp.auto_mixed_precision(net, amp_level="O2")`).

With the roofline (facts.roofline, docs/facts-roofline.md), the advice follows each fp32 group's
bound: HF32 is advised only where fp32 groups are compute-bound (past the ridge point of the
fp32 Cube rate): a memory-bound fp32 GEMM (a fully-connected layer at batch 32, ~16 FLOP/byte)
streams its weights at the HBM rate whatever the Cube's rate, so HF32 changes nothing; bf16
(half the bytes) or a larger batch (more FLOPs per byte) does. Saving per step then: compute-bound
groups, their time minus their FLOPs at the roofline's target fraction (facts.roofline.target_fraction:
`compute.roofline_gemm.target_fraction`, its one owner) of the BF16 peak; memory-bound ones, their
time minus half their bytes at that fraction of the bandwidth.

Saving per step without the roofline (formula, no replay: the kernel rows are not in the replay's graph): fp32 matrix
time per step x (1 - 1/speedup), speedup 2.0 assumed (no Ascend before/after pair yet; on the
GPU the precision saving comes from the roofline, compute.precision): bounded by the fp32 matrix time itself, so
never more than that share of the step. Confidence 0.4.
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

-- The fp32 matrix groups of the roofline by bound, and the saving bf16 would give each; nil
-- without a roofline that judged them.
local function roofline_split(facts, p)
  local rl = facts.roofline
  if not rl or not rl.device or not rl.device.known or not rl.groups or not rl.target_fraction then return nil end
  local target = rl.target_fraction
  local peaks = rl.device.peak_flops_per_s or {}
  local bf16, bw = peaks.bf16 or 0, rl.device.hbm_bytes_per_s or 0
  local out = { compute_ns = 0, memory_ns = 0, memory_groups = 0, saving_ns = 0, evidence = {}, memory_text = "" }
  local texts, seen = {}, false
  for _, g in ipairs(rl.groups) do
    if (g.precision == "fp32" or g.precision == "hf32") and g.kind ~= "bytes_only" and g.bound and bf16 > 0 and bw > 0 then
      seen = true
      if g.bound == "compute" then
        out.compute_ns = out.compute_ns + g.time_ns
        -- HF32 helps only groups still in full fp32 (hf32 ones already use it)
        if g.precision == "fp32" then
          local conv = string.find(g.op, "Conv", 1, true) ~= nil
          out[conv and "fp32_conv_ns" or "fp32_matmul_ns"] = (out[conv and "fp32_conv_ns" or "fp32_matmul_ns"] or 0) + g.time_ns
        end
        out.saving_ns = out.saving_ns + math.max(0, g.time_ns - g.flops / (target * bf16) * 1e9)
      else
        out.memory_ns = out.memory_ns + g.time_ns
        out.memory_groups = out.memory_groups + 1
        out.saving_ns = out.saving_ns + math.max(0, g.time_ns - g.bytes / 2 / (target * bw) * 1e9)
        if #texts < 3 then
          texts[#texts + 1] = string.format("%s %s: %.0f FLOP/byte, %.0f GB/s", g.op, g.shapes, g.intensity or 0,
            g.achieved_bytes_per_s / 1e9)
          evidence.add(out.evidence, g.evidence)
        end
      end
    end
  end
  if not seen then return nil end
  out.memory_text = table.concat(texts, "; ")
  return out
end

function check(facts, p, emit)
  local mp = facts.operators.matmul_precision
  local fp32 = mp.fp32_ns or 0
  if fp32 == 0 then return end
  local compute = facts.operators.totals.compute_ns or 0
  local n = steplib.count(facts) or 1
  local per_step = fp32 / n
  if compute <= 0 or fp32 < p.min_compute_share * compute or per_step < p.min_ns_per_step then return end
  local ev, names, hf32_off_matmul, hf32_off_conv = {}, {}, false, false
  for i, g in ipairs(mp.fp32_by_type or {}) do
    local off = g.hf32_eligible == "NO"
    if off and string.find(g.type, "Conv", 1, true) then hf32_off_conv = true end
    if off and not string.find(g.type, "Conv", 1, true) then hf32_off_matmul = true end
    if i <= 4 then
      names[#names + 1] = string.format("%s x%d (%.3f ms, %s%s)", g.type, g.count, g.total_ns / 1e6, g.input_dtypes,
        g.hf32_eligible and (", HF32 " .. (off and "off" or "allowed")) or "")
      evidence.add(ev, g.evidence)
    end
  end
  ev[#ev + 1] = { fact = "operators.matmul_precision.fp32_ns", value = fp32 }
  local rl = roofline_split(facts, p)
  if rl then
    evidence.add(ev, rl.evidence)
    hf32_off_matmul = hf32_off_matmul and (rl.fp32_matmul_ns or 0) > 0
    hf32_off_conv = hf32_off_conv and (rl.fp32_conv_ns or 0) > 0
  end
  local o = facts.overall
  local step = o and o.step_time and o.step_time.median_ns or nil
  local commands, action
  local inference = run.inference(facts)
  if run.is_mindspore(facts) then
    action = "Run the network in mixed precision (the Cube's 16-bit rate), keeping the loss scale and the optimizer in fp32."
    commands = { "net = mindspore.amp.auto_mixed_precision(net, amp_level=\"O2\")" }
  else
    commands = {}
    if hf32_off_matmul then commands[#commands + 1] = "torch.npu.matmul.allow_hf32 = True" end
    if hf32_off_conv then commands[#commands + 1] = "torch.npu.conv.allow_hf32 = True" end
    commands[#commands + 1] = inference and "with torch.autocast(\"npu\", dtype=torch.bfloat16): out = model(x)"
      or "with torch.autocast(\"npu\", dtype=torch.bfloat16): loss = loss_fn(model(x), y)"
    action = (rl and rl.memory_ns > 0 and string.format("%d fp32 matrix group(s), %.3f ms per step, are memory-bound "
      .. "(%s): HF32 changes nothing there; bf16 halves their bytes and a larger batch raises their FLOPs per byte. ",
      rl.memory_groups, rl.memory_ns / n / 1e6, rl.memory_text) or "")
      .. (#commands > 1 and "Allow HF32 where it is off first (one line, fp32 storage); then " or "Run ")
      .. (inference and "the forward under bf16 autocast and check the outputs."
        or "the forward and the loss under bf16 autocast, keeping the optimizer in fp32; check the loss curve.")
  end
  emit {
    observed = string.format("%d fp32 matrix operators take %.3f ms per step, %.0f%% of the computing time%s "
      .. "(16-bit matrix operators: %.3f ms per step): %s.", mp.fp32_kernels, per_step / 1e6, 100 * fp32 / compute,
      step and step > 0 and string.format(" and %.1f%% of the %.3f ms step", 100 * per_step / step, step / 1e6) or "",
      (mp.low_precision_ns or 0) / n / 1e6, table.concat(names, ", ")),
    why = "The Cube runs fp32 inputs at a fraction of its 16-bit rate; HF32 and bf16 use more of it.",
    action = action,
    commands = commands,
    saving_ns = rl and math.min(per_step, rl.saving_ns / n) or per_step * (1 - 1 / p.speedup),
    saving_formula = rl and string.format("roofline: compute-bound fp32 groups' time minus their FLOPs at %.2f of the "
      .. "BF16 peak, memory-bound ones' time minus half their bytes at %.2f of the bandwidth, per step (%d steps)",
      facts.roofline.target_fraction, facts.roofline.target_fraction, n)
      or string.format("fp32 matrix time per step (%.3f ms) x (1 - 1/%.1f), speedup assumed", per_step / 1e6, p.speedup),
    confidence = 0.4,
    evidence = ev,
  }
end
