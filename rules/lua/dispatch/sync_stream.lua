-- Stream synchronisations drain the launch pipeline.
rule {
  id = "dispatch.sync_stream",
  title = "Synchronisations drain the launch pipeline",
  category = "dispatch",
  severity = "medium",
  pool = "idle.sync",  -- its saving is idle time of this cause (rules/attribution.h)
  needs = { "operator_health.sync", "dispatch.interruptions" },
  platforms = { "ascend" },
  params = {
    co_occur_ratio = { default = 0.5, min = 0, max = 1, doc = "ASCEND_LAUNCH_BLOCKING is suspected when more than this share of launches are followed by a stream sync" },
    min_launches = { default = 10, min = 0, doc = "... with at least this many launches" },
    min_syncs_per_step = { default = 2, min = 0, doc = "a host-bound or mixed step with at least this many syncs is reported" },
    min_share = { default = 0.01, min = 0, max = 1, doc = "those steps' cost must reach this share of the device time" },
  },
  doc = [[
Why: a stream synchronisation (aclrtSynchronizeStream, behind `.item()`, `.cpu()`, `print(tensor)`,
`torch.npu.synchronize()`, data-dependent shapes such as nonzero) makes the host wait until the
device has drained its queue. While it waits the host launches nothing, so after the sync
returns the device idles until the next task arrives: the pipeline restarts empty.

How it is measured (operator_health.sync, dispatch.steps, dispatch.interruptions):
  A. The reference advisor's heuristic: sort the synchronize-stream and Node@launch calls of all
     CANN threads by time; when more than `co_occur_ratio` of the launches are directly
     followed by a synchronisation, every launch is probably synchronous, i.e.
     ASCEND_LAUNCH_BLOCKING=1 (needs at least `min_launches` launches). The same-thread ratio
     (stricter) raises the confidence from 0.4 to 0.6.
     Saving: the host-bound idle per step (what launch blocking turns the step into).
  B. Pipeline interruptions: long tasks after which the next launch was vertical (the host
     had waited for them). Saving: the idle gap after each listed interruption, summed, per step.
  C. Frequent synchronisations in host-bound or mixed steps: at least `min_syncs_per_step`
     synchronize calls in a step. In such a step the host is the critical path, so the time it
     spends waiting in the syncs is lost launch time. Saving: min(sync time, host-bound idle) of
     each such step, summed, per step; reported when it is at least `min_share` of the
     step's device time.
B and C can describe the same idle, so the finding takes the larger of the two (confidence
0.3: some synchronisations are needed, e.g. for a logged loss). One sync at the end of a step
(the loss `.item()`) in a device-bound step costs nothing and is not reported.
Optional reads: dispatch.steps (C, and the idle of A), operators.host (the aten::item count),
run.env.ASCEND_LAUNCH_BLOCKING.
Commands fit the job: A says `unset ASCEND_LAUNCH_BLOCKING` only where the variable can be the
cause (torch_npu, and run.env does not show it unset or 0); with it recorded unset, the launches
are synchronised by the code, and the command finds the synchronising calls. MindSpore does not
read the variable (its synchronous mode is `mindspore.runtime.launch_blocking()` /
`pynative_synchronize`): it gets a search for those, and for B and C MindSpore's host reads
(`.asnumpy()`, `mindspore.runtime.synchronize()`) instead of torch's.
]],
}

local sname = util.step_name  -- "(none)" for a step without id (docs/rules.md)
local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

-- Where the step's host reads of device values are, in the job's framework.
local function find_syncs(mindspore)
  if mindspore then return "grep -rnE '\\.asnumpy\\(\\)|synchronize\\(' --include=*.py ." end
  return "grep -rnE '\\.item\\(\\)|\\.cpu\\(\\)|synchronize\\(' --include=*.py ."
end

function check(facts, p, emit)
  local sync = facts.operator_health.sync
  local steps = (facts.dispatch and facts.dispatch.steps) or {}
  local n = #steps
  if n == 0 then n = (sync.per_step and sync.per_step.steps) or 0 end
  if n == 0 then n = 1 end

  -- A: launch blocking heuristic.
  local launches = sync.node_launch_count or 0
  if launches >= p.min_launches and (sync.co_occur_ratio or 0) > p.co_occur_ratio then
    local idle = 0
    for _, s in ipairs(steps) do idle = idle + (s.host_bound_free_ns or 0) end
    local same = (sync.co_occur_same_thread_ratio or 0) > p.co_occur_ratio
    local ev = {}
    for _, l in ipairs(sync.longest or {}) do evidence.add(ev, l.evidence, 1); if #ev >= 3 then break end end
    ev[#ev + 1] = { fact = "operator_health.sync.co_occur_ratio", value = sync.co_occur_ratio }
    -- Which switch can make every launch synchronous in this job.
    local mindspore = run.is_mindspore(facts)
    local lb = run.env(facts).ASCEND_LAUNCH_BLOCKING
    local title, why, action, cmds = "Launches look synchronous (ASCEND_LAUNCH_BLOCKING=1?)",
      "With ASCEND_LAUNCH_BLOCKING=1 every launch waits for its operator, the task queue is off and host and device never overlap.",
      "Make sure ASCEND_LAUNCH_BLOCKING is unset (or 0) in the job.", { "unset ASCEND_LAUNCH_BLOCKING" }
    if mindspore then
      title = "Launches look synchronous (mindspore.runtime.launch_blocking()?)"
      why = "In synchronous mode every launch waits for its operator, so host and device never overlap."
      action = "Remove mindspore.runtime.launch_blocking() (or set_context(pynative_synchronize=True)) from the job: it is "
        .. "a debugging switch."
      cmds = { "grep -rnE 'launch_blocking|pynative_synchronize' --include=*.py ." }
    elseif lb == "" or lb == "0" then
      -- The variable is recorded off: the code itself waits after each launch.
      title = "Launches look synchronous"
      why = "A synchronisation after every launch makes each launch wait for its operator, so host and device never overlap."
      action = "ASCEND_LAUNCH_BLOCKING is not set, so the code synchronises after each operator: remove the per-operator "
        .. ".item()/.cpu()/torch.npu.synchronize() calls (debugging or timing code) from the step."
      cmds = { find_syncs(false) }
    end
    if lb ~= nil and not mindspore then ev[#ev + 1] = { fact = "run.env.ASCEND_LAUNCH_BLOCKING", value = lb } end
    emit {
      title = title,
      observed = string.format("%d of %d Node@launch calls are directly followed by a stream synchronisation (%.0f%%; same thread: %.0f%%).",
        sync.co_occur or 0, launches, 100 * (sync.co_occur_ratio or 0), 100 * (sync.co_occur_same_thread_ratio or 0)),
      why = why,
      action = action,
      commands = cmds,
      saving_ns = idle / n,
      saving_formula = "host-bound idle per step",
      confidence = same and 0.6 or 0.4,
      evidence = ev,
    }
  end

  -- B: interruptions.
  local intr = facts.dispatch.interruptions
  local b_sum, b_ev = 0, {}
  for _, it in ipairs(intr.items or {}) do
    b_sum = b_sum + math.max(0, it.gap_after_ns or 0)
    if #b_ev < 6 then evidence.add(b_ev, it.evidence, 3) end
  end

  -- C: frequent syncs in host-bound / mixed steps.
  local c_sum, c_parts, c_dev = 0, {}, 0
  for _, s in ipairs(steps) do
    local verdict = steplib.verdict(s)
    if (verdict == "host-bound" or verdict == "mixed")
        and (s.sync_calls or 0) + (s.device_sync_calls or 0) >= p.min_syncs_per_step then
      local cost = math.min(s.sync_ns or 0, s.host_bound_free_ns or 0)
      c_sum = c_sum + cost
      c_dev = c_dev + (s.device_time_ns or 0)
      c_parts[#c_parts + 1] = string.format("step %s (%s): %d synchronize calls, %.3f ms waiting",
        sname(s.id), verdict, (s.sync_calls or 0) + (s.device_sync_calls or 0), (s.sync_ns or 0) / 1e6)
    end
  end
  if c_dev > 0 and c_sum < p.min_share * c_dev then c_sum, c_parts = 0, {} end

  if b_sum <= 0 and c_sum <= 0 then return end

  local texts, ev = {}, {}
  if b_sum > 0 then
    texts[#texts + 1] = string.format("%d pipeline interruptions (a long task, then an empty queue): %.3f ms of idle after the listed ones",
      intr.count or #(intr.items or {}), b_sum / 1e6)
    evidence.add(ev, b_ev)
  end
  if c_sum > 0 then
    texts[#texts + 1] = table.concat(c_parts, "; ")
    for _, l in ipairs(sync.longest or {}) do evidence.add(ev, l.evidence, 1); if #ev >= 6 then break end end
  end
  local items = nil
  if facts.operators and facts.operators.host then
    for _, h in ipairs(facts.operators.host.by_name or {}) do
      if h.name == "aten::item" then items = h end
    end
  end
  if items then
    texts[#texts + 1] = string.format("%d aten::item calls (%.3f ms)", items.count, items.total_ns / 1e6)
    evidence.add(ev, items.evidence, 1)
  end
  ev[#ev + 1] = { fact = "operator_health.sync.count", value = sync.count }

  local saving = math.max(b_sum, c_sum) / n
  local mindspore = run.is_mindspore(facts)
  local action = "Remove host reads of device values from the step: no .item()/.cpu()/print(tensor) per iteration (accumulate "
    .. "on the device, read every N steps), no torch.npu.synchronize() outside timing code, non_blocking=True copies, "
    .. "avoid data-dependent shapes (nonzero, boolean indexing, torch.unique) in the step."
  if mindspore then
    action = "Remove host reads of device values from the step: no .asnumpy()/print(tensor) per iteration (accumulate "
      .. "on the device, read every N steps), no mindspore.runtime.synchronize() outside timing code, avoid "
      .. "data-dependent shapes (ops.nonzero, boolean indexing, ops.unique) in the step."
  end
  emit {
    observed = table.concat(texts, "; ") .. ".",
    why = "Each synchronisation makes the host wait for the device to drain, and the device then waits for the host "
      .. "to refill the queue.",
    action = action,
    commands = { find_syncs(mindspore) },
    saving_ns = saving,
    saving_formula = string.format("max(idle after interruptions %.3f ms, min(sync wait, host-bound idle) in host-bound/mixed steps %.3f ms) / %d steps",
      b_sum / 1e6, c_sum / 1e6, n),
    confidence = 0.3,
    evidence = ev,
  }
end
