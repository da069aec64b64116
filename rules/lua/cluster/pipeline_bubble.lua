-- Pipeline-parallel stages wait for each other: the bubbles of the schedule.
rule {
  id = "cluster.pipeline_bubble",
  title = "Pipeline bubbles: stages wait for each other",
  category = "cluster",
  severity = "high",
  needs = { "cluster.pipeline.stages" },
  params = {
    ratio = { default = 0.1, min = 0, max = 1, doc = "reported when a stage's median bubble is above this share of its step" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the stage's median bubble the fix recovers" },
    confidence = { default = 0.4, min = 0, max = 1, doc = "the finding's confidence" },
  },
  doc = [[
Why: with pipeline parallelism each stage waits for the previous stage's activations (forward)
and the next stage's gradients (backward). The time a rank spends receiving is the pipeline
bubble (the profiler's `Bubble`): the schedule's idle time, not a slow rank. With p stages and m
micro-batches, a 1F1B schedule idles about (p - 1) / (m + p - 1) of the step.

How it is measured (facts.cluster.pipeline): per pipeline stage (cluster_step_trace_time.csv
stage rows; without them all ranks form one group), each rank's Bubble per aligned step; the
stage's median against its median step. Reported for the stage with the largest share when it
is above `ratio`. The cluster's imbalance and slow-rank checks compare ranks only within
their stage and leave receive time out, so a bubble is never read as a slow rank.

Saving per step = `factor` x the stage's median bubble: what doubling the micro-batches or
interleaving stages typically recovers. Confidence 0.4 (the right fix depends on the schedule).
The advice names the job's framework: Megatron/MindSpeed's options for PyTorch, MindSpore's
micro_size and interleaved pipeline for MindSpore.
]],
}

local function rank_list(rs)
  local lo, hi, contiguous = rs[1], rs[#rs], true
  for i = 2, #rs do if rs[i] ~= rs[i - 1] + 1 then contiguous = false end end
  if contiguous and #rs > 2 then return string.format("ranks %d-%d", lo, hi) end
  local parts = {}
  for i, r in ipairs(rs) do
    if i > 8 then parts[#parts + 1] = "..." break end
    parts[#parts + 1] = tostring(r)
  end
  return "ranks " .. table.concat(parts, ",")
end

function check(facts, p, emit)
  local pl = facts.cluster.pipeline
  local worst
  for _, s in ipairs(pl.stages) do
    if s.bubble_ratio > p.ratio and (worst == nil or s.bubble_ratio > worst.bubble_ratio) then worst = s end
  end
  if worst == nil then return end
  local stage = ""
  if worst.stage ~= nil and pl.stage_count ~= nil then
    stage = string.format(" (pipeline stage %d of %d)", worst.stage + 1, pl.stage_count)
  end
  local others = {}
  for _, s in ipairs(pl.stages) do
    if s ~= worst and s.stage ~= nil then
      others[#others + 1] = string.format("stage %d: %.3f ms (%.0f%%)", s.stage + 1, s.bubble_per_step_median_ns / 1e6, 100 * s.bubble_ratio)
    end
  end
  local tail = #others > 0 and ("; other stages: " .. table.concat(others, ", ")) or ""
  -- The schedule's knobs in the job's framework.
  local knobs = "Raise the number of micro-batches per step (the bubble share is about (stages - 1) / (micro-batches + "
    .. "stages - 1)); use an interleaved / virtual-stage schedule (Megatron --num-layers-per-virtual-pipeline-stage, "
    .. "MindSpeed's virtual pipeline)"
  if facts.run and facts.run.framework == "mindspore" then
    knobs = "Raise the number of micro-batches per step (micro_size of nn.PipelineCell; the bubble share is about "
      .. "(stages - 1) / (micro-batches + stages - 1)); use the interleaved pipeline schedule (pipeline_interleave, "
      .. "AutoParallel.pipeline(interleave=True) in MindSpore 2.6+)"
  end
  emit {
    observed = string.format("%s%s spend %.3f to %.3f ms per step receiving from the next/previous stage (Bubble; "
      .. "median %.3f ms, %.0f%% of their %.3f ms step)%s.", rank_list(worst.ranks), stage,
      worst.bubble_per_step_min_ns / 1e6, worst.bubble_per_step_max_ns / 1e6, worst.bubble_per_step_median_ns / 1e6,
      100 * worst.bubble_ratio, worst.step_median_ns / 1e6, tail),
    why = "A pipeline stage idles until its neighbour's activations or gradients arrive; with few micro-batches "
      .. "per step the fill and drain of the pipeline are a large part of the step.",
    action = knobs .. "; balance the layers across stages so no stage is the long pole (the stage with "
      .. "the least bubble is the slowest); overlap the send/receive with compute where the framework allows it.",
    saving_ns = p.factor * worst.bubble_per_step_median_ns,
    saving_formula = string.format("%.2f x the stage's median Bubble per step", p.factor),
    confidence = p.confidence,
    evidence = { { fact = "cluster.pipeline.bubble_ratio_max", value = pl.bubble_ratio_max } },
    data = { ranks = #worst.ranks, bubble_ratio = worst.bubble_ratio },
  }
end
