-- The device sits idle (Free) for a large share of the step: nothing to run.
rule {
  id = "schedule.free_time",
  title = "The device is idle for a large part of each step",
  category = "schedule",
  severity = "high",
  needs = { "overall.free_ratio", "steps" },
  params = { free_ratio = 0.10 },
  -- A symptom, not a cause: its saving is the idle time no cause above it explains
  -- (rules/attribution.h); dropped when that is under 1 % of the step.
  residual = true,
  doc = [[
Free time is device time in which neither computation nor communication runs, inside the
device window of a step (docs/overlap.md). A high Free share means the device waits: for the
host to launch work (see dispatch.* rules), for data, for synchronisation, or for Python
(garbage collection, logging). This rule reports the share and the worst steps; the dispatch
rules say whether the host is the cause.

Saving: the Free time above the threshold share, per step (confidence 0.5: the cause is not
known here).
]],
}

local steplib = require "lib.steps"

function check(facts, p, emit)
  local o = facts.overall
  if o.free_ratio < p.free_ratio then return end
  local steps = o.steps
  local worst, worst_id = -1, nil
  for _, s in ipairs(facts.steps) do
    if s.free_ratio > worst then worst, worst_id = s.free_ratio, s.id end
  end
  local per_step_free = o.free_ns / steps
  local per_step_total = o.device_time_ns / steps
  local excess = per_step_free - p.free_ratio * per_step_total
  emit {
    observed = string.format("Free is %.1f%% of device time (%.3f ms per step on average over %d steps); worst step %s at %.1f%%.",
      100 * o.free_ratio, per_step_free / 1e6, steps, steplib.label(worst_id), 100 * worst),
    why = "While the device is idle nothing trains; every idle microsecond is step time.",
    action = "Find what the device waits for: check the host-dispatch findings (launch lag, task queue), "
      .. "synchronisations, data loading and Python pauses in the same steps.",
    saving_ns = math.max(0, excess),
    saving_formula = string.format("free per step - %.0f%% x device time per step", 100 * p.free_ratio),
    confidence = 0.5,
    evidence = { { fact = "overall.free_ratio", value = o.free_ratio } },
  }
end
