-- Unfused operator sequences with a fused torch_npu replacement, found in the host op names.
rule {
  id = "compute.fused_ops",
  title = "Operator sequences have a fused torch_npu replacement",
  category = "compute",
  severity = "low",
  needs = { "operators.host.by_name" },
  platforms = { "ascend" },
  frameworks = { "torch_npu", "pytorch" },  -- torch_npu fused APIs
  params = {
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the signature operators' host time a fused operator saves (half of it for foreach optimizers)" },
  },
  doc = [[
Why: every small operator costs a host launch and a device kernel with its own memory traffic.
torch_npu ships fused replacements for the common sequences (the reference's affinity-API
check, row 16):
  - optimizer `Optimizer.step#<X>.step` with X in Adam, AdamW, SGD, Adadelta, Lamb, AdamP,
    BertAdam, RMSprop, RMSpropTF -> torch_npu.optim.NpuFused<X> (one multi-tensor kernel chain
    instead of one per parameter);
  - RMSNorm written as pow/mean/rsqrt/mul (aten::rsqrt with aten::pow or aten::mean) ->
    torch_npu.npu_rms_norm;
  - SwiGLU written as silu * x (aten::silu) -> torch_npu.npu_swiglu;
  - rotary embedding written with neg/cat (aten::neg with aten::cat) -> torch_npu.npu_rotary_mul;
  - attention written as matmul/softmax/matmul (aten::softmax or aten::_softmax with
    aten::matmul or aten::bmm, and no npu_fusion_attention) -> torch_npu.npu_fusion_attention.
(gelu -> fast_gelu, which the reference also suggests, is left out: it changes the numerics.)
Commands fit the job (facts.job): an optimizer the job already steps fused (optimizer_impl
"fused": `fused=True`, aten::_fused_adam*) gets no NpuFused advice; foreach (multi-tensor) halves
the estimate, from the job facts or `_foreach_` host ops; a job known to be inference
(training false) gets the inference attention kernel,
torch_npu.npu_fused_infer_attention_score, instead of npu_fusion_attention (a training kernel
with its backward).

How it is measured: the names in operators.host.by_name (the 20 host ops with the most inclusive
time; a sequence whose ops are all small is not seen). The reference matches full aten
sequences with stacks; here only the signature ops are looked for, hence the modest confidence.

Saving per step (one finding per pattern) = `factor` x the inclusive host time of the
signature ops (the optimizer step; rsqrt/pow/mean; silu; neg; softmax) / number of steps: a fused
kernel removes most of the per-op launches and memory round trips but not the arithmetic.
The estimate is bounded by the time it comes from. Confidence 0.3 for the optimizer, 0.2 for
the others. Steps: overall.steps when known, otherwise the op count of the optimizer step (one
per step) or 1. Optional reads: overall.steps.
]],
}

local fusable = { Adam = true, AdamW = true, SGD = true, Adadelta = true, Lamb = true, AdamP = true,
  BertAdam = true, RMSprop = true, RMSpropTF = true }

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local by = {}
  local list = facts.operators.host.by_name
  for _, h in ipairs(list) do by[h.name] = h end
  local steps = steplib.count(facts)
  local job = run.job(facts)

  -- Optimizer: not when the job steps it fused already.
  for _, h in ipairs(list) do
    local cls = string.match(h.name or "", "^Optimizer%.step#([%w_]+)%.step$")
    if cls and fusable[cls] and job.optimizer_impl ~= "fused" then
      local n = steps or h.count or 1
      local foreach = job.optimizer_impl == "foreach"
      for _, x in ipairs(list) do
        if string.find(x.name or "", "_foreach_", 1, true) then foreach = true end
      end
      local f = foreach and p.factor / 2 or p.factor
      local ev = evidence.add({}, h.evidence, 1)
      ev[#ev + 1] = { fact = "operators.host.by_name[" .. h.name .. "].total_ns", value = h.total_ns }
      emit {
        title = "The optimizer runs unfused: use torch_npu's fused " .. cls,
        observed = string.format("%s: %d calls, %.3f ms host time (%.3f ms per step, longest %.3f ms)%s.",
          h.name, h.count, h.total_ns / 1e6, h.total_ns / n / 1e6, (h.max_ns or 0) / 1e6,
          foreach and "; it already runs multi-tensor (foreach ops)" or ""),
        why = "A per-parameter optimizer launches several small kernels per parameter tensor; the fused one works on "
          .. "flattened buffers with a few kernels.",
        action = "Replace torch.optim." .. cls .. " by torch_npu.optim.NpuFused" .. cls .. " (same arguments), "
          .. "and clip gradients with the fused optimizer's own optimizer.clip_grad_norm_fused_(max_norm).",
        commands = { "optimizer = torch_npu.optim.NpuFused" .. cls .. "(model.parameters(), lr=lr)" },
        saving_ns = f * h.total_ns / n,
        saving_formula = string.format("%.2f x optimizer step host time / %d steps", f, n),
        confidence = 0.3,
        evidence = ev,
      }
    end
  end

  local n = steps or 1
  local patterns = {
    { key = "aten::rsqrt", with = { "aten::pow", "aten::mean" }, sig = { "aten::rsqrt", "aten::pow", "aten::mean" },
      api = "torch_npu.npu_rms_norm", what = "RMSNorm written as pow/mean/rsqrt/mul",
      cmd = "y = torch_npu.npu_rms_norm(x, weight, epsilon=eps)[0]" },
    { key = "aten::silu", with = { "aten::mul" }, sig = { "aten::silu" },
      api = "torch_npu.npu_swiglu", what = "SwiGLU written as silu(a) * b",
      cmd = "y = torch_npu.npu_swiglu(gate_up, dim=-1)  # gate_up = one merged projection [gate | up]" },
    { key = "aten::neg", with = { "aten::cat" }, sig = { "aten::neg" },
      api = "torch_npu.npu_rotary_mul", what = "rotary embedding written with neg/cat (rotate_half)",
      cmd = "q = torch_npu.npu_rotary_mul(q, cos, sin)" },
  }
  local softmax = by["aten::softmax"] or by["aten::_softmax"]
  local has_fa = false
  for _, h in ipairs(list) do
    if string.find(h.name or "", "fusion_attention", 1, true) or string.find(h.name or "", "FlashAttention", 1, true) then has_fa = true end
  end
  if softmax and (by["aten::matmul"] or by["aten::bmm"]) and not has_fa then
    if run.inference(facts) then
      -- Forward only: the inference kernel (prefill and decode), not the training one.
      patterns[#patterns + 1] = { key = softmax.name, with = {}, sig = { softmax.name },
        api = "torch_npu.npu_fused_infer_attention_score", what = "attention written as matmul/softmax/matmul",
        cmd = "out = torch_npu.npu_fused_infer_attention_score(q, k, v, num_heads=head_num, input_layout=\"BNSD\", "
          .. "scale=scale)[0]" }
    else
      patterns[#patterns + 1] = { key = softmax.name, with = {}, sig = { softmax.name },
        api = "torch_npu.npu_fusion_attention", what = "attention written as matmul/softmax/matmul",
        cmd = "out = torch_npu.npu_fusion_attention(q, k, v, head_num, input_layout=\"BNSD\", scale=scale)[0]" }
    end
  end
  for _, pat in ipairs(patterns) do
    local k = by[pat.key]
    local partner = nil
    for _, w in ipairs(pat.with) do
      if by[w] then partner = w end
    end
    if k and (#pat.with == 0 or partner) then
      local t, names, ev = 0, {}, {}
      for _, s in ipairs(pat.sig) do
        local h = by[s]
        if h then
          t = t + h.total_ns
          names[#names + 1] = string.format("%s x%d %.3f ms", s, h.count, h.total_ns / 1e6)
          evidence.add(ev, h.evidence, 1)
        end
      end
      emit {
        title = "Unfused " .. pat.what .. ": use " .. pat.api,
        observed = string.format("Host ops %s%s suggest %s.", table.concat(names, ", "),
          partner and (" with " .. partner) or "", pat.what),
        why = "The unfused sequence launches several small kernels with a memory round trip each; the fused API does it in one.",
        action = "Replace the sequence by " .. pat.api .. " (check the numerics on a few steps).",
        commands = { pat.cmd },
        saving_ns = p.factor * t / n,
        saving_formula = string.format("%.2f x host time of %s / %d step(s)", p.factor, table.concat(pat.sig, "+"), n),
        confidence = 0.2,
        evidence = ev,
      }
    end
  end
end
