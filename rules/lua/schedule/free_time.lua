-- Idle time that no cause explains. The idle time itself is not a finding: the report opens
-- with it, split by cause (facts.idle_attribution); each cause has its own rule.
rule {
  id = "schedule.free_time",
  title = "The device idles for a large part of each step and nothing in the trace explains it",
  category = "schedule",
  severity = "high",
  needs = { "overall.free_ratio", "steps" },
  params = {
    free_ratio = { default = 0.10, min = 0, max = 1, doc = "reported when Free (with the step split: idle no cause explains) is at least this share of the step" },
  },
  -- Its saving is the unexplained idle time (rules/attribution.h), dropped when under 1 % of the step.
  pool = "idle.unexplained",
  residual = true,
  doc = [[
Free time is device time in which neither computation nor communication runs, inside the
device window of a step (docs/overlap.md). The facts split every idle stretch among causes
(idle_attribution, docs/facts-idle.md): online compiles, GC, synchronize calls, data loading,
barriers, and late launches (the device waited on the host). Those have their own rules. This
one fires when the time no cause explains is at least `free_ratio` of the step: the
device waited for something the trace does not show (device-side events or copies, host work
on threads the profiler did not record, launches the trace does not tie to tasks).

Without the split (no device timeline: the breakdown is the profiler's own table) it reports
Free above `free_ratio` of device time, as a symptom whose cause is not known.

Saving: the unexplained idle time per step (confidence 0.5: the cause is not known).
Optional reads: idle_attribution, job.python_stacks, run.profiler_level, run.config.with_stack.
Commands fit the job: the profiler call that records the host's Python stacks (and, on Ascend,
Level1) in its framework (torch_npu, MindSpore, Kineto with CUDA only on a GPU run), none when
the run recorded them already.
]],
}

local steplib = require "lib.steps"
local run = require "lib.run"

-- What to record next time so that the trace shows the cause: the host threads' Python stacks
-- (and, on Ascend, the CANN layer at Level1), in the job's framework and platform; nothing when
-- the run recorded them already (facts.job.python_stacks or with_stack, and Level1 or Level2).
-- Never a command of npu-advisor itself.
local function record_more(facts)
  local r = facts.run or {}
  local cfg = r.config or {}
  local stacks = (facts.job and facts.job.python_stacks == true) or cfg.with_stack == "true" or cfg.with_stack == "True"
  local level = r.profiler_level == "Level1" or r.profiler_level == "Level2"
  if r.framework == "torch_npu" and not (stacks and level) then
    return { "torch_npu.profiler.profile(..., with_stack=True, experimental_config=torch_npu.profiler._ExperimentalConfig("
      .. "profiler_level=torch_npu.profiler.ProfilerLevel.Level1))" }
  elseif r.framework == "mindspore" and not (stacks and level) then
    return { "mindspore.profiler.profile(..., with_stack=True, experimental_config=mindspore.profiler._ExperimentalConfig("
      .. "profiler_level=mindspore.profiler.ProfilerLevel.Level1))" }
  elseif r.framework == "pytorch" and not stacks then
    -- Kineto: the CUDA activity only where there is a GPU to trace.
    local activities = r.platform == "gpu" and "ProfilerActivity.CPU, ProfilerActivity.CUDA" or "ProfilerActivity.CPU"
    return { "torch.profiler.profile(activities=[" .. activities .. "], with_stack=True)" }
  end
  return nil
end

local function worst_step(facts)
  local worst, worst_id = -1, nil
  for _, s in ipairs(facts.steps) do
    if s.free_ratio > worst then worst, worst_id = s.free_ratio, s.id end
  end
  return worst, worst_id
end

function check(facts, p, emit)
  if run.startup_capture(facts) then return end  -- a start-up capture's idle is not serving's
  local o = facts.overall
  local split = facts.idle_attribution
  local steps = o.steps
  if split then
    local u = split.causes.unexplained
    if u.step_ratio < p.free_ratio then return end
    local longest = u.longest[1]
    emit {
      observed = string.format("%.3f ms per step (%.1f%% of the %.3f ms step) of idle time has no cause in the trace, "
        .. "in %d stretches%s; all idle time is %.3f ms per step.",
        u.per_step_ns / 1e6, 100 * u.step_ratio, split.per_step_ns / 1e6, u.stretches,
        longest and string.format(" (longest %.3f ms in step %s)", longest.dur_ns / 1e6, steplib.label(longest.step)) or "",
        split.idle_ns / split.steps / 1e6),
      why = "While the device is idle the job makes no progress; no host event, synchronize call or late launch in the "
        .. "trace accounts for this time.",
      action = "Open the longest unexplained stretches in the report's step timeline: look for device-side waits "
        .. "(events, copies), host work on threads the profiler did not record, or launches the trace does not "
        .. "tie to device tasks" .. (record_more(facts) and "; record the host's Python stacks next time so the trace "
        .. "shows it." or "; the host's Python stacks in this trace show what each thread ran meanwhile."),
      commands = record_more(facts),
      saving_ns = u.per_step_ns,
      saving_formula = "idle time attributed to no cause, per step (idle_attribution.causes.unexplained.per_step_ns)",
      confidence = 0.5,
      evidence = { { fact = "idle_attribution.causes.unexplained.step_ratio", value = u.step_ratio } },
    }
    return
  end
  if o.free_ratio < p.free_ratio then return end
  local worst, worst_id = worst_step(facts)
  local per_step_free = o.free_ns / steps
  local per_step_total = o.device_time_ns / steps
  emit {
    observed = string.format("Free is %.1f%% of device time (%.3f ms per step on average over %d steps); worst step %s at %.1f%%; "
      .. "no device timeline to tell its causes.",
      100 * o.free_ratio, per_step_free / 1e6, steps, steplib.label(worst_id), 100 * worst),
    why = "While the device is idle the job makes no progress; every idle microsecond is step time.",
    action = "Profile with the timeline (trace_view.json or the SQLite export's task tables) so the idle time can be "
      .. "matched to its causes; meanwhile check the host-dispatch findings, synchronisations and data loading.",
    saving_ns = math.max(0, per_step_free - p.free_ratio * per_step_total),
    saving_formula = string.format("free per step - %.0f%% x device time per step", 100 * p.free_ratio),
    confidence = 0.5,
    evidence = { { fact = "overall.free_ratio", value = o.free_ratio } },
  }
end
