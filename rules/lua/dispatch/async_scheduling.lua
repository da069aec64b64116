-- Host-bound inference: overlap the host's scheduling with the device's forward pass.
rule {
  id = "dispatch.async_scheduling",
  title = "Host-bound inference: schedule the next step while the device runs",
  category = "dispatch",
  severity = "medium",
  pool = "idle.host_launch",  -- its saving is idle time of this cause (rules/attribution.h)
  needs = { "dispatch.steps", "operators.host.by_name" },
  platforms = { "ascend", "gpu" },
  params = {
    min_host_bound_share = { default = 0.5, min = 0, max = 1, doc = "reported when at least this share of the steps are host-bound (dispatch.step_class)" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the host-bound idle async scheduling recovers" },
    graph_share = { default = 0.5, min = 0, max = 1, doc = "from this share of device time launched by graphs, the finding says the forward runs as graphs" },
    min_turn_share = { default = 0.05, min = 0, max = 1, doc = "a serving run's iterations: reported when the turns between them are at least this share of the iteration period" },
  },
  doc = [[
Why: an inference server prepares each step on the host (scheduling, input preparation,
sampling, output handling), then runs the forward pass on the device. Done one after the
other, the device idles while the host works. Asynchronous scheduling prepares step N+1
while the device runs step N: MindIE `export MINDIE_ASYNC_SCHEDULING_ENABLE=1` (on the decode
nodes only with prefill/decode disaggregation; not with Look Ahead / Memory Decoding, nor with
n / best_of / beam search); vLLM(-Ascend): the scheduler's async scheduling option
(`--async-scheduling` in recent versions); SGLang: its overlap scheduler (the default, off with
`--disable-overlap-schedule`). The command is the engine's own (lib.engines, from
facts.inference.engine): an Ascend run whose engine is not named gets MindIE's variable; a GPU
run gets the finding only when its engine (vLLM, SGLang) is known.

How it is measured:
  - inference: the job's context (facts.job.training, docs/facts.md) when the host operators
    tell it: a training job (an optimizer step or a backward op recorded) is never told about an
    inference server's scheduler, however host-bound; a job known to be inference needs no
    guess. Without job facts (training null), inference-looking: none of the host operator
    names in operators.host.by_name (the top 20 by inclusive time) is training work: `Optimizer.`
    (optimizer step / zero_grad), `backward` / `Backward`, `autograd::`, `AccumulateGrad`. A
    training step always has these near the top (the optimizer step and the backward ops are
    among the longest host ops), so their absence is a good sign of a forward-only run; the top
    list is capped, hence confidence 0.3.
  - not already on: run.env.MINDIE_ASYNC_SCHEDULING_ENABLE=1 (when recorded) means the job
    schedules asynchronously already, and the rule is quiet.
  - host-bound: at least `min_host_bound_share` of the steps are host-bound (dispatch.steps
    as the verdict dispatch.step_class classifies them, docs/facts-dispatch.md).
When the forward pass already runs as graphs (at least `graph_share` of the device time from
graph executions, facts.graph_execution: ACL graph replay in vLLM-Ascend / MindIE, GE), the finding
says so: the idle left is the host work between the graph executions, which async scheduling is
the fix for (graph capture or the task queue would not reduce it).
Saving per step = `factor` x host-bound idle of the host-bound steps / number of steps: the
host work of one step overlaps the device work of the previous one, at most the idle it
causes, and part of the host work (the launches themselves) stays serial.

A serving engine's iterations (facts.inference.kind serving, the steps its iterations): the
host's turn between two iterations (output processing, scheduling, input preparation) lies in
no iteration's window; the device idles through it (idle_attribution.turns_ns: the idle between
two windows, a hole of work the trace does not hold left out). Reported when the turns are at
least `min_turn_share` of the iteration period (the window and the turn after it: the saving's
pool is `turn`). Saving per iteration: replayed (whatif async_scheduling: each turn overlaps
the device work of the iteration before it, at most that iteration's window of it; docs/whatif.md);
the formula without a replay, `factor` x the turn per iteration. An iteration after a hole
(its launches waited on the previous batch's device work, which the trace does not hold) was
scheduled ahead already: the replay keeps it where it started, so its turn saves nothing, and
where the replay saves under 1% of the period the rule is quiet.
]],
}

local training_patterns = { "Optimizer%.", "[Bb]ackward", "autograd::", "AccumulateGrad" }

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"
local graphs = require "lib.graphs"
local engines = require "lib.engines"

-- A serving engine's iterations with the host's turn between them: per iteration, the turn and
-- the period (window and turn); nil where the run has none.
local function serving_turn(facts)
  local inf, a = facts.inference, facts.idle_attribution
  if type(inf) ~= "table" or inf.kind ~= "serving" or type(a) ~= "table" then return nil end
  if type(a.turns_ns) ~= "number" or a.turns_ns <= 0 or type(a.steps) ~= "number" or a.steps < 2 then return nil end
  if type(a.per_step_ns) ~= "number" then return nil end
  local turn = a.turns_ns / a.steps
  return turn, a.per_step_ns + turn, a.steps
end

-- The iteration after the longest turn between two (inference.gaps), for its evidence.
local function longest_turn(facts)
  local best = nil
  for _, g in ipairs(facts.inference.gaps or {}) do
    if type(g.device_idle_ns) == "number" and (best == nil or g.device_idle_ns > best.device_idle_ns) then best = g end
  end
  if best == nil or type(best.after) ~= "number" then return nil, nil end
  return (facts.inference.iterations or {})[best.after + 1], best
end

-- The replay's saving of async scheduling per iteration, where the replay is usable, else nil.
local function replayed_saving(facts)
  local w = facts.whatif
  if type(w) ~= "table" or not w.reproduces or type(w.transforms) ~= "table" then return nil end
  local t = w.transforms.async_scheduling
  if type(t) ~= "table" or not t.applicable or type(t.saving_ns) ~= "number" then return nil end
  return t.saving_ns
end

local function serving_finding(facts, p, emit, own, turn, period, n)
  if turn < p.min_turn_share * period then return end
  -- The replay moves each iteration's host earlier by its turn: where that saves under 1% of the
  -- period, the iterations waited on earlier device work (a hole) and were scheduled ahead already.
  local replayed = replayed_saving(facts)
  if replayed ~= nil and replayed < 0.01 * period then return end
  local ev = {}
  local it, gap = longest_turn(facts)
  if it then
    evidence.add(ev, it.evidence, 1)
    ev[#ev + 1] = { fact = "inference.gaps[" .. tostring(gap.after) .. "].device_idle_ns", value = gap.device_idle_ns }
  end
  ev[#ev + 1] = { fact = "idle_attribution.turns_ns", value = facts.idle_attribution.turns_ns }
  emit {
    observed = string.format("Between its %d iterations the %s engine's device idles %.3f ms per iteration while the "
      .. "host takes its turn (output processing, scheduling, input preparation): %.0f%% of the iteration period "
      .. "(%.3f ms, the window and the turn after it).", n, facts.inference.engine or "serving", turn / 1e6,
      100 * turn / period, period / 1e6),
    why = "The host schedules the next iteration only after the device finished this one; async scheduling prepares "
      .. "it while the device runs.",
    action = own.action,
    commands = own.commands,
    pool = "turn",
    whatif = "async_scheduling",
    saving_ns = p.factor * turn,
    saving_formula = string.format("%.2f x the turn between iterations (%.3f ms per iteration)", p.factor, turn / 1e6),
    confidence = 0.5,
    evidence = ev,
  }
end

function check(facts, p, emit)
  -- Inference-server advice: never for a training job, nor one that schedules asynchronously.
  local training = run.training(facts)
  if training == true then return end
  if run.env(facts).MINDIE_ASYNC_SCHEDULING_ENABLE == "1" then return end
  -- The engine's own switch (lib.engines): MindIE's variable, vLLM's flag, SGLang's overlap
  -- scheduler; an engine the tool does not know (a GPU run without one) gets no finding.
  local own = engines.async_scheduling(facts)
  if own == nil then return end
  local turn, period, iterations = serving_turn(facts)
  if turn then return serving_finding(facts, p, emit, own, turn, period, iterations) end
  local host = facts.operators.host.by_name
  if training == nil then
    -- No job facts: guess from the longest host operators.
    for _, h in ipairs(host) do
      for _, pat in ipairs(training_patterns) do
        if string.find(h.name or "", pat) then return end
      end
    end
  end
  local steps = facts.dispatch.steps
  local n = #steps
  if n == 0 then return end
  local hb, idle, worst = steplib.host_bound(steps)
  if hb == 0 or hb < p.min_host_bound_share * n then return end
  local ev = evidence.add({}, worst.evidence, 2)
  local top = {}
  for i, h in ipairs(host) do
    if i > 3 then break end
    top[#top + 1] = h.name
  end
  ev[#ev + 1] = { fact = "operators.host.by_name[1..3]", value = table.concat(top, ", ") }
  local observed = string.format("No optimizer or backward operator among the %d longest host operators (top: %s), so "
    .. "this looks like inference; %d of %d steps are host-bound with %.3f ms of host-bound idle per step.",
    #host, table.concat(top, ", "), hb, n, idle / n / 1e6)
  if training == false then
    observed = string.format("The job records no optimizer step and no backward operator (inference; top host "
      .. "operators: %s); %d of %d steps are host-bound with %.3f ms of host-bound idle per step.",
      table.concat(top, ", "), hb, n, idle / n / 1e6)
    evidence.add(ev, run.job(facts).evidence, 1)
  end
  if graphs.share(facts) >= p.graph_share then
    observed = observed .. " The forward pass already runs as graphs (" .. graphs.describe(facts)
      .. "): the idle is the host work between them."
  end
  emit {
    observed = observed,
    why = "Host-side scheduling and pre/post-processing run while the device idles; async scheduling overlaps them with the forward pass.",
    action = own.action,
    commands = own.commands,
    saving_ns = p.factor * idle / n,
    saving_formula = string.format("%.2f x host-bound idle of the host-bound steps / %d steps", p.factor, n),
    confidence = 0.3,
    evidence = ev,
  }
end
