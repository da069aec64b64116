-- One operator type takes most of the compute time: that is where tuning pays.
rule {
  id = "compute.top_operators",
  title = "One operator type dominates the compute time",
  category = "compute",
  severity = "low",
  needs = { "operators.by_type" },
  platforms = { "ascend" },
  params = {
    min_share = { default = 0.30, min = 0, max = 1, doc = "reported when one operator type takes more than this share of compute" },
    headroom = { default = 0.10, min = 0, max = 1, doc = "the share of the type's time tuning saves when no PMU ratio tells" },
  },
  doc = [[
Why: when one operator type takes most of the device's compute time, it is the only place where
kernel-level work (shapes, formats, dtypes, fusion, tuning) moves the step time.

How it is measured (operators.by_type, from kernel_details.csv): the top (OP Type, Accelerator
Core) group by total time; reported when its share of compute (share_of_compute) exceeds
`min_share`. Without kernel_details.csv (no op types) the rule is skipped. When
operator_health.pmu lists the type, its pipe utilisation says what to try: a pipe at >= 0.8 is
the bound (mte2 = memory-bound: fewer bytes, better formats; mac = compute-bound: already
efficient, only fewer FLOPs help); no pipe >= 0.8 means the kernel is latency- or
scalar-bound (see compute.no_bound).

Saving per step = the type's time per step x headroom, where headroom is 1 - the highest pipe
ratio of the type when PMU data exists (what is left before the busiest pipe saturates), else
`headroom`. Confidence 0.15: the tips are generic and the real gain depends on the
model; 0.1 when a pipe is already at >= 0.8 (near a hardware limit, kernel tuning rarely helps). The AOE commands tune static-shape operators only (see dispatch.op_compile for
dynamic shapes). Steps: overall.steps when known, otherwise the profile counts as one step.
Commands fit the job: AOE in the job's framework (torch_npu.npu.set_aoe and the aoe tool;
MindSpore: set_context(aoe_tune_mode="online")), none when every operator has a dynamic shape
(operator_health.dynamic_shape.all_dynamic: AOE tunes static shapes only); the tips name the
framework's own APIs (torch_npu's, or MindSpore's ops).
Optional reads: operator_health.pmu, operator_health.dynamic_shape, overall.steps.
]],
}

local function tips(t, bound, ms)
  local ty = t or ""
  if string.find(ty, "MatMul") or string.find(ty, "BatchMatMul") or string.find(ty, "GEMM") then
    local s = "keep M/N/K multiples of 16 (fp16/bf16) and the inner axis a multiple of 256; run in bf16/fp16, not fp32; "
      .. "merge small matmuls (fused QKV, grouped matmul); avoid transposes before them"
      .. (ms and "" or " (torch_npu.npu_confusion_transpose)")
    if bound and string.find(bound, "mte2") then
      s = s .. "; it is memory-bound (MTE2): fewer bytes per FLOP help most (larger tiles/batches, NZ weights"
        .. (ms and ")" or ": torch_npu.npu_format_cast(weight, 29))")
    elseif bound and string.find(bound, "mac") then
      s = s .. "; it is compute-bound (MAC): the kernel is efficient, only fewer FLOPs help"
    end
    return s
  end
  if string.find(ty, "FlashAttention") then
    return "keep head_dim and sequence length multiples of 128; use sparse_mode (causal) instead of a dense mask "
      .. (ms and "in ops.flash_attention_score" or "in torch_npu.npu_fusion_attention")
      .. "; avoid padding-heavy batches (varlen layout TND)"
  end
  if string.find(ty, "Conv") then
    return "keep channels multiples of 16, run in fp16/bf16 (AMP), keep the private format (no TransData around convolutions)"
  end
  if string.find(ty, "TransData") or string.find(ty, "Transpose") then
    if ms then return "format/layout conversions: keep tensors in one format and avoid transposes between operators" end
    return "format/layout conversions: keep tensors in one format (torch_npu.npu.config.allow_internal_format = False) and "
      .. "avoid .contiguous() after permute"
  end
  return (ms and "look for a fused MindSpore operator covering it" or "look for a fused torch_npu API covering it")
    .. ", check its shapes and dtype, and tune it with AOE"
end

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local top = facts.operators.by_type[1]
  if not top or (top.share_of_compute or 0) <= p.min_share then return end
  local steps = steplib.count(facts) or 1

  local pmu_entry = nil
  local oh = facts.operator_health
  if oh and oh.pmu then
    for _, t in ipairs(oh.pmu.by_type or {}) do
      if t.type == top.type and t.accelerator_core == top.accelerator_core then pmu_entry = t end
    end
  end
  local headroom, bound_txt, hsrc = p.headroom, "", "default headroom"
  if pmu_entry and pmu_entry.max_ratio then
    headroom = math.max(0, 1 - pmu_entry.max_ratio)
    hsrc = string.format("1 - highest pipe ratio %.2f", pmu_entry.max_ratio)
    if pmu_entry.bound ~= "none" then
      bound_txt = string.format("; bound by %s at %.2f", pmu_entry.bound, pmu_entry.max_ratio)
    else
      bound_txt = string.format("; no pipe above 0.8 (highest %.2f)", pmu_entry.max_ratio)
    end
  end
  local second = facts.operators.by_type[2]
  local second_txt = ""
  if second then
    second_txt = string.format(" Next: %s (%s) %.1f%%.", second.type, second.accelerator_core, 100 * (second.share_of_compute or 0))
  end
  local ev = evidence.add({}, top.evidence)
  ev[#ev + 1] = { fact = "operators.by_type[1].share_of_compute", value = top.share_of_compute }
  local per_step = top.total_ns / steps
  emit {
    observed = string.format("%s on %s: %d kernels, %.3f ms (%.1f%% of compute, %.3f ms per step, mean %.1f us)%s.%s",
      top.type, top.accelerator_core, top.count, top.total_ns / 1e6, 100 * top.share_of_compute, per_step / 1e6,
      (top.mean_ns or 0) / 1e3, bound_txt, second_txt),
    why = "Most of the device's compute time is in this operator type, so it is where kernel-level tuning pays.",
    action = "Try: " .. tips(top.type, pmu_entry and pmu_entry.bound, run.is_mindspore(facts)) .. ".",
    commands = run.aoe_commands(facts),
    saving_ns = per_step * headroom,
    saving_formula = string.format("%s time per step x %.3f (%s)", top.type, headroom, hsrc),
    confidence = (pmu_entry and pmu_entry.bound ~= "none") and 0.1 or 0.15,
    evidence = ev,
  }
end
