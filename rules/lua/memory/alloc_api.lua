-- Device memory allocated and freed through the runtime inside the step.
rule {
  id = "memory.alloc_api",
  title = "Device memory is allocated or freed through the runtime during the step",
  category = "memory",
  severity = "medium",
  pool = "idle.host_launch",  -- its saving is idle time of this cause (rules/attribution.h)
  needs = { "operator_health.memory_api" },
  platforms = { "ascend" },
  params = {
    min_step_ns = { default = 10000000, min = 0, doc = "a memory API is flagged when its time in a step reaches this, ns (the reference's 10 ms) ..." },
    min_step_share = { default = 0.03, min = 0, max = 1, doc = "... or this share of the median step, whichever is smaller" },
    factor = { default = 0.8, min = 0, max = 1, doc = "share of the flagged APIs' time the allocator settings save" },
  },
  doc = [[
Why: torch_npu's caching allocator normally serves tensors from memory it already holds. Calls
to AscendCL@aclMallocMemInner / aclrtFree / aclrtFreePhysical in the step mean the cache is
missing (fragmentation: blocks of the wrong size) or being emptied (torch.npu.empty_cache(),
memory pressure), and each call is slow and synchronises the device.

How it is measured (operator_health.memory_api): per API the calls and their time, and the step
with the most time. The reference flags an API whose time in a step reaches 10 ms
(`min_step_ns`); here also when it reaches `min_step_share` of the median step time
(overall.step_time.median_ns, optional), since 10 ms is nothing in a 2 s step and a lot in a
20 ms one.

Fix: malloc -> `export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True` (segments grow instead of
new allocations for every odd size); free -> remove torch.npu.empty_cache() from the loop, and
lower the memory pressure (batch size, recomputation) if the allocator frees to make room.
Saving per step = `factor` x time in the flagged APIs / number of steps (overall.steps, else
1): the calls mostly disappear but some allocation stays. Confidence 0.5.
Optional reads: overall.step_time.median_ns, overall.steps, run.env.PYTORCH_NPU_ALLOC_CONF,
run.env.MS_ALLOC_CONF, job.training.
Commands fit the job: expandable segments only when run.env does not show them on already, in
the job's framework (MindSpore: `MS_ALLOC_CONF=enable_vmm:True`, its virtual-memory segments;
its cache is emptied by mindspore.runtime.empty_cache()); lower memory pressure by
recomputation for training, by a smaller batch or KV cache for a job known to be inference.
]],
}

local sname = util.step_name  -- "(none)" for a step without id (docs/rules.md)
local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local apis = facts.operator_health.memory_api.by_api or {}
  local o = facts.overall
  local median = o and o.step_time and o.step_time.median_ns or nil
  local limit = p.min_step_ns
  if median and median > 0 then limit = math.min(limit, p.min_step_share * median) end
  local steps = steplib.count(facts) or 1
  local total, parts, ev, malloc, free = 0, {}, {}, false, false
  for _, a in ipairs(apis) do
    local ms = a.max_step
    if ms and (ms.total_ns or 0) >= limit and (a.count or 0) > 0 then
      total = total + a.total_ns
      parts[#parts + 1] = string.format("%s x%d %.3f ms (step %s: %.3f ms)", a.api, a.count, a.total_ns / 1e6,
        sname(ms.step), ms.total_ns / 1e6)
      if string.find(a.api, "Malloc", 1, true) then malloc = true else free = true end
      evidence.add(ev, a.evidence, 1)
    end
  end
  if total == 0 then return end
  -- The allocator's switch in the job's framework: torch_npu's variable, or MindSpore's.
  local mindspore = run.is_mindspore(facts)
  local var, on = "PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True"
  if mindspore then var, on = "MS_ALLOC_CONF", "enable_vmm:True" end
  local conf_v = run.env(facts)[var]
  local cmds = {}
  if malloc then
    if conf_v and string.find(string.lower(conf_v), string.lower(on), 1, true) then
      parts[#parts + 1] = (mindspore and "enable_vmm" or "expandable_segments") .. " is already on"
    else
      cmds[#cmds + 1] = "export " .. var .. "=" .. on
    end
  end
  if free then cmds[#cmds + 1] = "grep -rn 'empty_cache' --include=*.py ." end
  if #cmds == 0 then cmds[#cmds + 1] = "npu-smi info" end
  ev[#ev + 1] = { fact = "run.env." .. var, value = conf_v }
  local empty = mindspore and "mindspore.runtime.empty_cache()" or "torch.npu.empty_cache()"
  -- Less memory pressure: recomputation is a training switch; inference shrinks its batch.
  local lighter = run.inference(facts) and "reduce the batch size or the KV cache" or "reduce batch size or use recomputation"
  emit {
    observed = "Runtime memory calls in the step: " .. table.concat(parts, "; ") .. string.format(" (threshold %.3f ms per step).", limit / 1e6),
    why = "Each runtime allocation or free is slow and synchronous; the caching allocator should serve the step from its pool.",
    action = (malloc and "Let the allocator grow segments instead of allocating new blocks (" .. (mindspore and "virtual memory segments"
        or "expandable segments") .. "). " or "")
      .. (free and ("Remove " .. empty .. " from the loop; if memory is tight, " .. lighter .. ", and watch HBM with npu-smi info.") or ""),
    commands = cmds,
    saving_ns = p.factor * total / steps,
    saving_formula = string.format("%.2f x time in the flagged memory APIs / %d step(s)", p.factor, steps),
    confidence = 0.5,
    evidence = ev,
  }
end
