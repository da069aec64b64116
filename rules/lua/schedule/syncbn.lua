-- SyncBatchNorm synchronises every batch-norm layer across ranks.
rule {
  id = "schedule.syncbn",
  title = "Many SyncBatchNorm layers",
  category = "schedule",
  frameworks = { "torch_npu", "pytorch" },  -- torch SyncBatchNorm
  severity = "medium",
  platforms = { "ascend" },
  needs = { "operator_health.syncbn" },
  params = {
    min_count = { default = 20, min = 1, doc = "reported at this many SyncBatchNorm events or more (the reference's threshold)" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the SyncBatchNorm time dropping the synchronisation saves" },
  },
  doc = [[
Why: torch.nn.SyncBatchNorm runs an all-gather of the batch statistics in every layer, forward
and backward: many small collectives, each a synchronisation point, plus a slow Python path in
torch_npu's implementation. With many layers it slows dispatch and communication.

How it is measured (operator_health.syncbn): host slices named SyncBatchNorm (case-insensitive);
reported at `min_count` (the reference's threshold) or more.

Fix: drop `torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)` if plain BatchNorm converges
well enough (large per-device batches), or use the efficient forward the reference advisor
ships for torch_npu/utils/syncbatchnorm.py (one all_gather_togather of [sum, square sum,
count] per layer).
Saving per step = `factor` x SyncBatchNorm time / number of steps (overall.steps, else 1):
the layers keep their normalisation work. Confidence 0.3.
SyncBatchNorm synchronises only in training with more than one process (torch: `training` and
world size > 1; otherwise it runs plain batch norm): a job known to be inference
(facts.job.training false) or of world size 1 (run.distributed) has nothing to remove, and the
rule stays quiet. Optional reads: job.training, run.distributed.world_size.
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local s = facts.operator_health.syncbn
  if (s.count or 0) < p.min_count then return end
  -- No synchronisation to remove: eval mode, or a single process.
  if run.inference(facts) then return end
  local world = tonumber(facts.run and facts.run.distributed and facts.run.distributed.world_size)
  if world == 1 then return end
  local steps = steplib.count(facts) or 1
  local ev = evidence.add({}, s.evidence)
  ev[#ev + 1] = { fact = "operator_health.syncbn.count", value = s.count }
  emit {
    observed = string.format("%d SyncBatchNorm calls take %.3f ms (%.3f ms per step).", s.count, (s.total_ns or 0) / 1e6,
      (s.total_ns or 0) / steps / 1e6),
    why = "Each SyncBatchNorm layer synchronises all ranks for its statistics, forward and backward.",
    action = "Remove convert_sync_batchnorm if plain BatchNorm is accurate enough; otherwise patch torch_npu's "
      .. "SyncBatchNorm forward with the reference advisor's efficient version.",
    commands = { "grep -rn 'convert_sync_batchnorm\\|SyncBatchNorm' --include=*.py ." },
    saving_ns = p.factor * (s.total_ns or 0) / steps,
    saving_formula = string.format("%.2f x SyncBatchNorm time / %d step(s)", p.factor, steps),
    confidence = 0.3,
    evidence = ev,
  }
end
