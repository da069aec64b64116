-- Kernels launched on fewer blocks than the device has cores leave cores idle.
rule {
  id = "compute.block_dim",
  title = "Some kernels use less than half of the cores",
  category = "compute",
  severity = "low",
  needs = { "operator_health.block_dim" },
  platforms = { "ascend" },
  params = {
    min_share = { default = 0.05, min = 0, max = 1, doc = "reported when kernels below half the largest plausible block dim take at least this share of compute" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of their time a full block dim saves" },
    max_cores = { default = 64, min = 1, doc = "a block dim above this is no core count (more than any Ascend core type has)" },
  },
  doc = [[
Why: an AI Core / AI Vector Core kernel runs on Block Dim cores. A kernel with a block dim well
below the core count leaves the other cores idle for its whole duration (small shapes,
unfavourable tiling, a kernel that does not split the work).

How it is measured (operator_health.block_dim, kernel_details.csv): the core count is not in the
loaded files (PROF info.json), so the largest block dim seen on each core type stands in for
it (a lower bound). A block dim above `max_cores` (more than any Ascend core type has) is a
kernel that loops over its blocks and says nothing about the core count: then the largest
plausible value of the block-dim histogram is used (msinsight rank 1 has one kernel at 1639).
Kernels with block dim < half of that reference are counted; reported when their time is at
least `min_share` of compute on some core type. The reference checks
block_dim % core_num with the real core count, skips all-dynamic runs (most eager PyTorch
runs), and has no time threshold.

Saving per step = `factor` x time of those kernels / number of steps: a kernel on less than
half the cores could at best run about twice as fast if its work splits. Confidence 0.15: the
core count is unknown and small kernels may not split. Steps: overall.steps when known,
otherwise the profile counts as one step. Optional reads: overall.steps, operators.totals.compute_ns,
operator_health.dynamic_shape.
Commands fit the job: `npu-smi info` (the core count), and AOE in the job's framework
(torch_npu.npu.set_aoe and the aoe tool; MindSpore: set_context(aoe_tune_mode="online")), none
when every operator has a dynamic shape (AOE tunes static shapes only).
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local bd = facts.operator_health.block_dim
  local steps = steplib.count(facts) or 1
  local total, parts, ev, names = 0, {}, {}, {}
  for core, c in pairs(bd.by_core or {}) do
    local b = c.below_half_max
    local ref = c.max_block_dim or 0
    local t, cnt, note = 0, 0, ""
    local compute = nil
    if b and (b.share_of_compute or 0) > 0 then compute = b.total_ns / b.share_of_compute end
    if compute == nil and facts.operators and facts.operators.totals then compute = facts.operators.totals.compute_ns end
    if ref > p.max_cores then
      -- A block dim beyond any core count: that kernel loops over its blocks. Use the largest
      -- plausible block dim instead and recount from the block-dim histogram (top 10 values).
      local alt = 0
      for _, x in ipairs(c.block_dims or {}) do
        if x.block_dim <= p.max_cores and x.block_dim > alt then alt = x.block_dim end
      end
      note = string.format(", ignoring block dim %d > %d", ref, p.max_cores)
      ref = alt
      for _, x in ipairs(c.block_dims or {}) do
        if 2 * x.block_dim < ref then t, cnt = t + x.total_ns, cnt + x.count end
      end
    elseif b then
      t, cnt = b.total_ns or 0, b.count or 0
    end
    if ref > 0 and t > 0 and compute and compute > 0 and t >= p.min_share * compute then
      total = total + t
      parts[#parts + 1] = string.format("%s: %d kernels with block dim < %d (half of the largest seen, %d%s) take %.3f ms (%.1f%% of compute)",
        core, cnt, (ref + 1) // 2, ref, note, t / 1e6, 100 * t / compute)
      local k = 0
      for _, x in ipairs((b and b.by_name) or {}) do
        if 2 * (x.block_dim or 0) < ref and k < 3 then
          k = k + 1
          names[#names + 1] = string.format("%s (block dim %s, %.3f ms)", x.name, tostring(x.block_dim), (x.total_ns or 0) / 1e6)
          evidence.add(ev, x.evidence, 1)
        end
      end
    end
  end
  if total == 0 then return end
  table.sort(parts)
  ev[#ev + 1] = { fact = "operator_health.block_dim.core_count_known", value = bd.core_count_known }
  emit {
    observed = table.concat(parts, "; ") .. (#names > 0 and (". Longest: " .. table.concat(names, ", ")) or "") .. ".",
    why = "A kernel on few blocks leaves the other cores idle while it runs.",
    action = "Check the shapes of these operators (very small or odd dimensions split badly); batch or merge small "
      .. "operations; tune them with AOE (static shapes). The core count is unknown here: confirm with "
      .. "`npu-smi info` / the PROF info.json ai_core_num before acting.",
    commands = { "npu-smi info", table.unpack(run.aoe_commands(facts)) },
    saving_ns = p.factor * total / steps,
    saving_formula = string.format("%.2f x time of kernels below half the largest plausible block dim / %d step(s)", p.factor, steps),
    confidence = 0.15,
    evidence = ev,
  }
end
