-- Operators running on the AI CPU instead of the AI Core.
rule {
  id = "compute.aicpu_ops",
  title = "Operators run on the AI CPU",
  category = "compute",
  severity = "medium",
  needs = { "operator_health.ai_cpu" },
  platforms = { "ascend" },
  params = {
    min_share = { default = 0.01, min = 0, max = 1, doc = "reported when AI CPU time is at least this share of compute" },
    min_task_ns = { default = 20000, min = 0, doc = "... and the run's longest task is at least this long, ns (the reference's gate)" },
    factor = { default = 0.8, min = 0, max = 1, doc = "share of the AI CPU time moving the operators to the AI Core saves" },
  },
  doc = [[
Why: an operator falls back to the AI CPU when no AI Core kernel supports it for the given
data type or shape: typically INT64 indices or DOUBLE data, or index/nonzero style operators.
AI CPU kernels run on a few slow cores, usually an order of magnitude slower than the AI Core
version, and data-dependent ones (NonZero) also make the host wait for the output size.

How it is measured (operator_health.ai_cpu, docs/facts-operators.md): the kernel rows whose
Accelerator Core is AI_CPU (or, without kernel_details.csv, the trace's AI_CPU tasks, with
names but no types or dtypes). Reported when the longest task of the table is at least
`min_task_ns` (the reference's gate) and the AI CPU time is at least `min_share`
of the compute time. The reference reports any AI CPU op past its gate; below 1 % of compute a
code change is not worth it. Per type the input dtypes say why: INT64 -> cast the indices or
values to int32; DOUBLE/FLOAT64 -> float32. The reference's dtype whitelist only exists for
CANN 7.0/8.0.RC1 and its default (8.0.0) applies none; here the dtypes are always reported.

Saving per step = `factor` x AI CPU time / number of steps (overall.steps when known,
otherwise the profile counts as one step): the AI Core version or a rewrite removes most of it.
Confidence 0.5 (0.6 when an INT64/DOUBLE input explains the fallback).
Commands fit the job: the cast in the job's framework (torch `.to(torch.int32)`, MindSpore
`ops.cast`), and the rewrites in its terms; with no dtype to cast, the profiler call that
records the Python stacks (torch_npu / MindSpore Level1 with with_stack) so the operators can be
traced to the code, unless the run recorded them already (facts.job.python_stacks and Level1).
Optional reads: overall.steps, job.python_stacks, run.profiler_level, run.config.with_stack.
]],
}

local guides = {
  IndexPut = "replace `x[idx] = v` / `x[mask] = v` by `x.masked_fill_(mask, v)`, `torch.where(mask, v, x)` or "
    .. "`x.index_put_((idx.int(),), v)` with int32 indices",
  IndexPutV2 = "replace `x[idx] = v` by `masked_fill_` / `torch.where`, or int32 indices",
  Index = "replace advanced indexing `x[idx]` by `torch.index_select(x, 0, idx.int())` or `torch.gather`",
  NonZero = "avoid `torch.nonzero` / boolean-mask indexing `x[mask]` in the step (data-dependent size, forces a sync): "
    .. "use `torch.where(mask, x, 0)` or masked reductions",
  ArgMin = "upgrade CANN to 7.0.RC1 or later (AI Core ArgMin), or use argmax on the negated tensor",
  Cast = "cast once, early, to a dtype the AI Core supports (int32/float16/bfloat16/float32) instead of int64/double",
}

-- The same rewrites in MindSpore's terms.
local ms_guides = {
  IndexPut = "replace `x[idx] = v` / `x[mask] = v` by `ops.masked_fill(x, mask, v)` or `ops.where(mask, v, x)`, "
    .. "with int32 indices",
  IndexPutV2 = "replace `x[idx] = v` by `ops.masked_fill` / `ops.where`, or int32 indices",
  Index = "replace advanced indexing `x[idx]` by `ops.gather(x, ops.cast(idx, mindspore.int32), 0)`",
  NonZero = "avoid `ops.nonzero` / boolean-mask indexing `x[mask]` in the step (data-dependent size, forces a sync): "
    .. "use `ops.where(mask, x, 0)` or masked reductions",
  ArgMin = "upgrade CANN to 7.0.RC1 or later (AI Core ArgMin), or use argmax on the negated tensor",
  Cast = guides.Cast,
}

-- The profiler call that records what ties the operators to the code (the Python stacks, and
-- the CANN layer at Level1), in the job's framework; nil when the run recorded them already.
local function stack_profiler(facts)
  local r = facts.run or {}
  local cfg = r.config or {}
  local job = facts.job or {}
  local stacks = job.python_stacks == true or cfg.with_stack == "true" or cfg.with_stack == "True"
  if stacks and (r.profiler_level == "Level1" or r.profiler_level == "Level2") then return nil end
  if r.framework == "mindspore" then
    return "mindspore.profiler.profile(..., with_stack=True, experimental_config=mindspore.profiler._ExperimentalConfig("
      .. "profiler_level=mindspore.profiler.ProfilerLevel.Level1))"
  elseif r.framework == "torch_npu" then
    return "torch_npu.profiler.profile(..., with_stack=True, experimental_config=torch_npu.profiler._ExperimentalConfig("
      .. "profiler_level=torch_npu.profiler.ProfilerLevel.Level1))"
  end
  return nil
end

local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local a = facts.operator_health.ai_cpu
  if (a.count or 0) == 0 then return end
  if (a.max_task_ns_all_ops or 0) < p.min_task_ns then return end
  if (a.share_of_compute or 0) < p.min_share then return end
  local steps = steplib.count(facts) or 1

  local parts, cmds, ev, actions = {}, {}, {}, {}
  local dtype_cause = false
  local ms = run.is_mindspore(facts)
  local rewrites = ms and ms_guides or guides
  local list = a.by_type
  if not list or #list == 0 then list = a.by_name or {} end
  for i, t in ipairs(list) do
    local key = t.type or t.name
    local desc = string.format("%s x%d %.3f ms (%.1f%% of compute)", key, t.count or 0, (t.total_ns or 0) / 1e6,
      100 * (t.share_of_compute or 0))
    if t.input_dtypes and #t.input_dtypes > 0 then
      local d = {}
      for _, x in ipairs(t.input_dtypes) do d[#d + 1] = x end
      desc = desc .. ", inputs " .. table.concat(d, " | ")
    end
    parts[#parts + 1] = desc
    if t.has_int64 then
      dtype_cause = true
      actions[#actions + 1] = key .. ": INT64 inputs; cast them to int32"
    end
    if t.has_double then
      dtype_cause = true
      actions[#actions + 1] = key .. ": DOUBLE inputs; use float32"
    end
    if t.type and rewrites[t.type] then actions[#actions + 1] = t.type .. ": " .. rewrites[t.type] end
    if not t.type and t.name and string.find(t.name, "AiCpu", 1, true) then
      actions[#actions + 1] = t.name .. ": part of this aclnn operator falls back to the AI CPU; check its input dtypes (int64/double/bool)"
    end
    if i <= 2 then evidence.add(ev, t.evidence, 2) end
    if i >= 5 then break end
  end
  for _, t in ipairs(list) do
    if t.has_int64 then
      cmds[#cmds + 1] = (ms and "idx = ops.cast(idx, mindspore.int32)" or "idx = idx.to(torch.int32)") .. "  # INT64 inputs of " .. (t.type or t.name)
      break
    end
  end
  for _, t in ipairs(list) do
    if t.has_double then
      cmds[#cmds + 1] = (ms and "x = ops.cast(x, mindspore.float32)" or "x = x.to(torch.float32)") .. "  # DOUBLE inputs of " .. (t.type or t.name)
      break
    end
  end
  -- No dtype to cast: record what ties the operators to the code, unless the run has it.
  if #cmds == 0 then cmds[#cmds + 1] = stack_profiler(facts) end
  ev[#ev + 1] = { fact = "operator_health.ai_cpu.total_ns", value = a.total_ns }

  emit {
    observed = string.format("%d AI CPU tasks take %.3f ms (%.1f%% of compute, %.3f ms per step): %s.",
      a.count, a.total_ns / 1e6, 100 * a.share_of_compute, a.total_ns / steps / 1e6, table.concat(parts, "; ")),
    why = "AI CPU kernels are much slower than AI Core ones, and data-dependent ones make the host wait.",
    action = #actions > 0 and (table.concat(actions, ". ") .. ".") or (ms and "Find the network code behind these operators (their scope names say where) and avoid them."
      or "Find the Python code behind these operators (with_stack=True) and avoid them."),
    commands = cmds,
    saving_ns = p.factor * a.total_ns / steps,
    saving_formula = string.format("%.2f x AI CPU time / %d step(s)", p.factor, steps),
    confidence = dtype_cause and 0.6 or 0.5,
    evidence = ev,
  }
end
