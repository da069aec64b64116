-- Operators compiled online (aclopCompileAndExecute) and dynamic shapes cost host time.
rule {
  id = "dispatch.op_compile",
  title = "Operators are compiled online during the step",
  category = "dispatch",
  severity = "high",
  pool = "idle.compile",  -- its saving is idle time of this cause (rules/attribution.h)
  whatif = "compile",  -- its saving is replayed (docs/whatif.md); the formula below is the fallback
  needs = { "operator_health" },
  platforms = { "ascend" },
  frameworks = { "torch_npu", "pytorch" },  -- the reference skips operator-dispatch checks on MindSpore
  params = {
    max_count = { default = 20, min = 1, doc = "a step with at least this many aclopCompileAndExecute compiles online (the reference's MAX_OP_COMPILE_NUM)" },
    min_step_share = { default = 0.03, min = 0, max = 1, doc = "... or whose compile time is at least this share of the step" },
    hidden_factor = { default = 0.5, min = 0, max = 1, doc = "share of the compile time counted when no host-bound idle bounds it" },
  },
  doc = [[
Why: with jit_compile=True (the default of older torch_npu) an aclop operator that meets a new
shape is compiled on the host inside AscendCL@aclopCompileAndExecute before it can run. The
launching thread is blocked for the whole compilation (tens of us to ms), so the device runs
dry. Dynamic shapes make it recur. Binary (precompiled) kernels avoid it:
    torch_npu.npu.set_compile_mode(jit_compile=False)
    torch_npu.npu.config.allow_internal_format = False
at the start of the script (the reference advisor's fix for its rows 6 and 17).

How it is measured (operator_health.compile, operator_health.dynamic_shape; both optional,
either one suffices; with neither the rule is quiet):
  - a step with at least `max_count` (the reference's MAX_OP_COMPILE_NUM) compilations, or
    whose compile time is at least `min_step_share` (the reference's medium priority) of
    the step: the reference counts only, and so misses the real mstt timeline_advice trace
    (11 compilations taking 6.6 ms of a 14.1 ms step);
  - or no static operator at all in kernel_details (all_dynamic, the reference's row 6).

Saving per step: replayed (docs/whatif.md, transformation `compile`: the compile calls' host
time removed). Without a usable replay: the sum over the listed steps (top 10 by compile time) of min(compile time, the
step's host-bound idle), scaled by (steps with calls / listed steps) when more steps compile than
are listed, / number of steps: compile time only costs step time when the device
waited for the host meanwhile (dispatch.steps[].host_bound_free_ns). Without dispatch facts it
is compile time x `hidden_factor`. Dynamic shapes alone: no saving estimate.
Confidence 0.6 when every profiled step compiles (it recurs), 0.4 when only some do (it may be
warm-up that binary kernels still remove), 0.3 for dynamic shapes alone.
Optional reads: dispatch.steps, overall.steps.
]],
}

local sname = util.step_name  -- "(none)" for a step without id (docs/rules.md)
local evidence = require "lib.evidence"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local oh = facts.operator_health
  local comp, dyn = oh.compile, oh.dynamic_shape
  local steps = (facts.dispatch and facts.dispatch.steps) or {}
  local by_id = {}
  for _, s in ipairs(steps) do
    if s.id ~= nil then by_id[s.id] = s end
  end
  local n = #steps
  if n == 0 and facts.overall and facts.overall.steps then n = facts.overall.steps end
  if n == 0 and comp and comp.per_step then n = comp.per_step.steps or 0 end
  if n == 0 then n = 1 end

  local triggered, saving, parts, ev = false, 0, {}, {}
  local listed, hits = 0, 0
  local conf = 0.3
  if comp and (comp.count or 0) > 0 then
    for _, b in ipairs(comp.by_step or {}) do
      listed = listed + 1
      local s = b.step ~= nil and by_id[b.step] or nil
      local step_ns = s and steplib.duration_ns(s) or 0
      local share = step_ns > 0 and b.total_ns / step_ns or 0
      local hit = b.count >= p.max_count or share >= p.min_step_share
      if hit then
        triggered = true
        hits = hits + 1
        local cost
        if s and s.host_bound_free_ns then cost = math.min(b.total_ns, s.host_bound_free_ns)
        else cost = b.total_ns * p.hidden_factor end
        saving = saving + cost
        if #parts < 3 then
          parts[#parts + 1] = string.format("step %s: %d compilations, %.3f ms%s", sname(b.step), b.count, b.total_ns / 1e6,
            step_ns > 0 and string.format(" (%.1f%% of the step)", 100 * share) or "")
        end
        evidence.add(ev, b.evidence, 1)
      end
    end
    local ps = comp.per_step or {}
    -- The facts list the worst steps only (by_step, at most 10): the steps with calls beyond
    -- them are taken to cost what the listed ones do, so a longer capture of the same workload
    -- gives the same saving per step.
    local with_calls = ps.steps_with_calls or listed
    if triggered and with_calls > listed and listed > 0 then
      saving = saving * (with_calls / listed)
    end
    if hits > #parts then parts[#parts + 1] = string.format("and %d more steps", (with_calls > listed and math.floor(with_calls * hits / listed) or hits) - #parts) end
    if triggered then
      if (ps.steps or 0) > 0 and (ps.steps_with_calls or 0) >= ps.steps then conf = 0.6 else conf = 0.4 end
    end
  end
  local all_dynamic = dyn and dyn.all_dynamic
  if not triggered and not all_dynamic then return end

  local texts = {}
  if triggered then
    texts[#texts + 1] = string.format("%d AscendCL@aclopCompileAndExecute calls (%.3f ms) in %d of %d steps; %s",
      comp.count, comp.total_ns / 1e6, (comp.per_step and comp.per_step.steps_with_calls) or 0,
      (comp.per_step and comp.per_step.steps) or n, table.concat(parts, "; "))
    ev[#ev + 1] = { fact = "operator_health.compile.max_step_count", value = comp.max_step_count }
  end
  if dyn then
    local total = (dyn.dynamic or 0) + (dyn.static or 0) + (dyn.other or 0)
    if all_dynamic or (dyn.dynamic_ratio or 0) >= 0.5 then
      texts[#texts + 1] = string.format("%d of %d operators run with dynamic shapes (%.1f%%%s)",
        dyn.dynamic or 0, total, 100 * (dyn.dynamic_ratio or 0), all_dynamic and ", none static" or "")
      evidence.add(ev, dyn.evidence, 2)
    end
  end
  local formula
  if triggered then
    formula = string.format("sum over steps with >= %d compilations or >= %.0f%% compile time of min(compile time, host-bound idle) / %d steps",
      p.max_count, 100 * p.min_step_share, n)
  else
    formula = "not estimated: dynamic shapes alone (no compile time in the profile)"
  end
  emit {
    observed = table.concat(texts, "; ") .. ".",
    why = "Online compilation blocks the launching thread, so the device idles; dynamic shapes make it recur.",
    action = "Use precompiled binary kernels and keep the private (internal) formats off; keep shapes static where "
      .. "you can (pad to a few bucket sizes).",
    commands = {
      "torch_npu.npu.set_compile_mode(jit_compile=False)",
      "torch_npu.npu.config.allow_internal_format = False",
    },
    saving_ns = saving / n,
    saving_formula = formula,
    confidence = conf,
    evidence = ev,
  }
end
