-- Python garbage collection pauses the launching thread.
rule {
  id = "schedule.gc",
  title = "Python garbage collection pauses the step",
  category = "schedule",
  frameworks = { "torch_npu", "pytorch" },  -- Python GC of the PyTorch loop
  severity = "medium",
  pool = "idle.gc",  -- its saving is idle time of this cause (rules/attribution.h)
  whatif = "gc",  -- its saving is replayed (docs/whatif.md); the formula below is the fallback
  platforms = { "ascend" },
  needs = { "operator_health.gc" },
  params = {
    min_ns = { default = 1000000, min = 0, doc = "a recorded GC event counts when it lasts at least this long, ns (the reference's threshold); the facts count them with it (operator_health.gc.count_ge_min, reference_min_ns)" },
    min_events = { default = 1, min = 1, doc = "recorded GC events of at least min_ns needed to report them" },
    conjectured_factor = { default = 0.5, min = 0, max = 1, doc = "share of the conjectured GC gaps counted as saving" },
    max_acl_time_ratio = { default = 0.01, min = 0, max = 1, doc = "a free gap is GC-like when AscendCL time in it is below this share of the gap ..." },
    max_acl_per_us = { default = 1e-4, min = 0, doc = "... and it has fewer than this many AscendCL calls per us" },
  },
  doc = [[
Why: a full Python garbage collection (generation 2) stops the interpreter for milliseconds to
seconds; the Python thread launches no operator meanwhile and the device drains and idles. Big
models with many Python objects (tensors' autograd graph, data structures kept per step) make
it frequent and long.

How it is measured (operator_health.gc, docs/facts-operators.md):
  - detected: GC events (Python GC track, cat "GC"; torch_npu's gc_detect_threshold option)
    lasting at least `min_ns` (the reference's threshold; the facts count with it),
    count_ge_min / total_ge_min_ns. Saving
    per step: replayed (docs/whatif.md, transformation `gc`: the recorded GC removed from the
    host); without a usable replay, their total time / number of steps (an upper bound: the
    pause is lost step time when the device has drained meanwhile). Confidence 0.5.
  - conjectured (no GC events recorded): device idle gaps longer than 200 ms in which the CANN
    layer made almost no call (AscendCL time below `max_acl_time_ratio` of the gap, and fewer
    than `max_acl_per_us` calls per us; the AscendCL calls must have been recorded,
    conjectured.acl_counted): the reference's conjectured-GC test, on the 10 longest gaps the facts
    list. Saving per step = `conjectured_factor` x the
    listed gaps' time / number of steps (the replay has no recorded GC to remove).
    Confidence 0.3 (it is a guess; a long host computation or I/O looks the same).

Fix: collect garbage at a moment of your choosing: gc.freeze() after model setup (moves the
long-lived objects out of the collector's reach), gc.disable() in the training loop and
gc.collect() every N steps (or at checkpoints), or raise the thresholds with gc.set_threshold.
Steps: overall.steps when known, else 1. Optional reads: overall.steps, job.training.
Commands fit the job: the comments name its loop (training or inference, from facts.job; "the
step loop" when unknown); a conjectured GC (none recorded) on torch_npu is first told how to
record it (the profiler's gc_detect_threshold), which a run with GC events already has.
]],
}

local sname = util.step_name  -- "(none)" for a step without id (docs/rules.md)
local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local g = facts.operator_health.gc
  local steps = steplib.count(facts) or 1
  -- The job's own loop and long-lived objects: an inference job builds no optimizer.
  local training = run.training(facts)
  local loop = training == true and "the training loop" or training == false and "the inference loop" or "the step loop"
  local cmds = {
    "import gc; gc.freeze()  # after building the model" .. (training == false and "" or " and optimizer"),
    "gc.disable()  # before " .. loop .. "; then every N steps: gc.collect()",
    "gc.set_threshold(100000, 50, 100)  # if disabling is not an option",
  }
  -- The cut-off the facts counted with (a facts file keeps its own), as the message writes it.
  local min_txt = string.format("%g ms", (g.reference_min_ns or p.min_ns) / 1e6)
  if g.detected then
    if (g.count_ge_min or 0) < p.min_events then return end
    local ev = {}
    local longest = {}
    for i, x in ipairs(g.longest or {}) do
      if i <= 3 then
        longest[#longest + 1] = string.format("%.3f ms in step %s", x.dur_ns / 1e6, sname(x.step))
        evidence.add(ev, x.evidence, 1)
      end
    end
    ev[#ev + 1] = { fact = "operator_health.gc.total_ge_min_ns", value = g.total_ge_min_ns }
    emit {
      observed = string.format("%d garbage collections of %s or more take %.3f ms (%.3f ms per step); longest: %s.",
        g.count_ge_min, min_txt, g.total_ge_min_ns / 1e6, g.total_ge_min_ns / steps / 1e6, table.concat(longest, ", ")),
      why = "During a collection the Python thread launches nothing and the device runs dry.",
      action = "Freeze the long-lived objects and collect at a time of your choosing instead of in the middle of a step.",
      commands = cmds,
      saving_ns = g.total_ge_min_ns / steps,
      saving_formula = string.format("GC time of events >= %s / %d step(s)", min_txt, steps),
      confidence = 0.5,
      evidence = ev,
    }
    return
  end
  local c = g.conjectured
  if not c or not c.acl_counted then return end
  local sum, parts, ev, like = 0, {}, {}, 0
  for _, x in ipairs(c.gaps or {}) do
    if (x.acl_time_ratio or 1) < p.max_acl_time_ratio and (x.acl_per_us or 1) < p.max_acl_per_us then
      like = like + 1
      sum = sum + x.dur_ns
      parts[#parts + 1] = string.format("%.1f ms in step %s with %d CANN calls", x.dur_ns / 1e6, sname(x.step), x.acl_count or 0)
      evidence.add(ev, x.evidence, 1)
    end
  end
  if sum == 0 then return end
  ev[#ev + 1] = { fact = "operator_health.gc.conjectured.gaps", value = like }
  -- No GC was recorded: on torch_npu, record it first (GC events of min_ns or more; the
  -- option is in ms).
  if facts.run and facts.run.framework == "torch_npu" then
    table.insert(cmds, 1, "torch_npu.profiler.profile(..., experimental_config=torch_npu.profiler._ExperimentalConfig("
      .. string.format("gc_detect_threshold=%g))  # records GC events of %s or more", p.min_ns / 1e6, min_txt))
  end
  emit {
    title = "Long device idle with no host activity: probably Python garbage collection",
    observed = string.format("%d device idle gaps over 200 ms with almost no CANN calls (%s); no GC events were recorded.",
      like, table.concat(parts, "; ")),
    why = "A long pause with neither device work nor host launches is typical of a full Python garbage collection.",
    action = "Confirm with torch_npu's GC detection (experimental_config gc_detect_threshold) or py-spy; then freeze "
      .. "long-lived objects and collect at a time of your choosing.",
    commands = cmds,
    saving_ns = p.conjectured_factor * sum / steps,
    saving_formula = string.format("%.2f x conjectured GC gaps / %d step(s)", p.conjectured_factor, steps),
    confidence = 0.3,
    evidence = ev,
  }
end
