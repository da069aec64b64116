-- Collective transfers whose sizes are not multiples of 512 B move data more slowly.
rule {
  id = "communication.byte_alignment",
  title = "Communication transfers are not 512-byte aligned",
  category = "communication",
  severity = "low",
  needs = { "collectives.alignment", "collectives.ops", "collectives.steps" },
  params = {
    factor = { default = 0.3, min = 0, max = 1, doc = "share of the unaligned transfers' time aligning would save" },
  },
  doc = [[
Why: SDMA moves data between devices fastest when each transfer is a multiple of 512 bytes; an
odd-sized tail (a bucket or tensor size that is not a multiple of 128 fp32 / 256 bf16 elements)
is split into slower pieces. msprof-analyze's byte-alignment check flags the same operators.

How it is measured (facts.collectives.alignment, docs/facts-collectives.md): the HCCL plane tasks
inside each communication operator with transport SDMA, a link other than ON_CHIP and more than
512 B; an operator is not aligned when any of them moves a size that is not a multiple of 512 B.

Saving per step = `factor` x the unaligned transfers' time / steps: a guess at what aligned
sizes recover; confidence 0.2.
The advice fits the job: gradient buckets (DDP bucket_cap_mb; MindSpore's allreduce fusion
sizes) are training's; a job known to be inference (facts.job.training false) pads the tensors
it exchanges (tensor-parallel activations, hidden sizes) instead.
]],
}

local run = require "lib.run"

function check(facts, p, emit)
  local c = facts.collectives
  local a = c.alignment
  if a.ops_unaligned == 0 then return end
  local names, ev = {}, {}
  for _, op in ipairs(c.ops) do
    if op.alignment and op.alignment.unaligned_tasks > 0 then
      if #names < 4 then
        names[#names + 1] = string.format("%s (%d of %d transfers, e.g. %d B)", op.name, op.alignment.unaligned_tasks,
          op.alignment.checked_tasks, op.alignment.example_size_bytes)
      end
      for _, e in ipairs(op.alignment.evidence or {}) do if #ev < 4 then ev[#ev + 1] = e end end
    end
  end
  local n = c.steps > 0 and c.steps or 1
  local action = run.is_mindspore(facts)
    and ("Make communicated buffers multiples of 512 bytes: pad tensors to 128 fp32 (256 fp16/bf16) elements, or "
      .. "choose allreduce fusion sizes that are (comm_fusion \"size\" in whole MiB); then profile again.")
    or ("Make communicated buffers multiples of 512 bytes: pad gradient buckets / tensors to 128 fp32 (256 bf16) "
      .. "elements, or choose bucket sizes that are (e.g. bucket_cap_mb as a whole number of MiB); then profile again.")
  if run.inference(facts) then
    -- No gradients to bucket: what moves is the tensors the parallel layers exchange.
    action = "Make communicated tensors multiples of 512 bytes: pad the hidden size / the tensors the parallel layers "
      .. "exchange to 128 fp32 (256 fp16/bf16) elements; then profile again."
  end
  emit {
    observed = string.format("%d of %d communication operators move SDMA data in sizes that are not multiples of 512 B (%.3f ms of transfers): %s.",
      a.ops_unaligned, a.ops_checked, a.unaligned_ns / 1e6, table.concat(names, ", ")),
    why = "Unaligned transfer sizes are split into slower pieces by the DMA engine.",
    action = action,
    commands = {},
    saving_ns = p.factor * a.unaligned_ns / n,
    saving_formula = string.format("%.1f x unaligned transfer time / %d steps", p.factor, n),
    confidence = 0.2,
    evidence = ev,
  }
end
