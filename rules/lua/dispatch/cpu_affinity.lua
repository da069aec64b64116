-- The launching host thread runs at uneven speed: CPU binding keeps it on its own cores.
rule {
  id = "dispatch.cpu_affinity",
  title = "The host launch thread runs unevenly: bind it to CPU cores",
  category = "dispatch",
  severity = "medium",
  pool = "idle.host_launch",  -- its saving is idle time of this cause (rules/attribution.h)
  whatif = "cpu_binding",     -- replayed where the trace allows (docs/whatif.md)
  needs = { "dispatch.steps" },
  platforms = { "ascend" },
  params = {
    slow_rate_ratio = { default = 0.7, min = 0, max = 1, doc = "a step whose host op rate is below this share of the median is slow" },
    min_steps = { default = 3, min = 1, doc = "the median rate needs at least this many steps with host ops" },
    long_gap_ns = { default = 2000000, min = 0, doc = "a host-bound gap at least this long, ns (not from compilation) is a long host gap" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the slow steps' excess idle and the long gaps binding recovers" },
  },
  doc = [[
Why: torch_npu launches every operator from the Python thread (and its task-queue thread).
When the OS moves these threads between cores or NUMA nodes, or other processes (dataloader
workers, logging) share their cores, the same step's host work takes longer at random and the
device waits (host-bound idle). Binding the hot threads to cores near the NPU removes that
jitter: `export CPU_AFFINITY_CONF=1` (coarse: all threads on the NPU's NUMA cores, torch_npu
6.0.RC2+) or `=2` (fine: the launch threads on dedicated cores, the rest elsewhere, 6.0.0+;
the vendor's recommended mode).

How it is measured (facts.dispatch.steps, docs/facts-dispatch.md):
  1. Host op rate spread between steps: host_ops_per_ms of each step against the median of
     the steps (needs at least `min_steps` = 3 steps with host ops). A step whose rate is below
     `slow_rate_ratio` x median ran the same code slower. Its cost is its host-bound idle
     above the baseline (median host-bound idle of the other steps), capped at the host time the
     slowdown itself accounts for: step duration x (1 - rate / median).
  2. Long host gaps: host-bound gaps of at least `long_gap_ns` in a step's top list whose
     launch is not an online compilation (those belong to dispatch.op_compile).
The reference advisor has no such check (CPU_AFFINITY_CONF is not in its environment list).

Saving per step = `factor` x (sum of the step costs + long gaps) / number of steps: binding
removes the scheduling part of the jitter, not slow Python code. Where the replay reproduces the measured steps and finds slow stretches (facts.whatif,
transformation cpu_binding: stretches of 16 operators on the launching thread that took over
twice the run's median time per operator, run at the median), that replayed saving replaces the
formula (saving_method replay). Confidence 0.3 (jitter has
other causes: GC, other processes on the node), 0.15 when CPU_AFFINITY_CONF=2 is already set.
The same idle is also claimed by dispatch.host_bound (a different fix): do not add the two.
Optional: run.env.CPU_AFFINITY_CONF (to word the advice).
CPU_AFFINITY_CONF is torch_npu's: a MindSpore run binds its threads (main, runtime, pynative,
minddata) with `mindspore.runtime.set_cpu_affinity(True)` (MindSpore 2.5+) instead, and is never
told the torch_npu variable.
]],
}

local sname, median = util.step_name, util.median  -- sandbox helpers (docs/rules.md)
local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local steps = facts.dispatch.steps
  local n = #steps
  if n == 0 then return end

  local rates = {}
  for _, s in ipairs(steps) do
    if (s.host_ops or 0) > 0 and s.host_ops_per_ms and s.host_ops_per_ms > 0 then rates[#rates + 1] = s.host_ops_per_ms end
  end
  local med = nil
  if #rates >= p.min_steps then med = median(rates) end

  -- Per step: the slow-host cost and the long-gap cost; the step counts the larger (they
  -- can be the same idle time).
  local slow_cost, long_cost = {}, {}
  local slow, parts, ev = {}, {}, {}
  local worst = nil
  if med then
    local base_list = {}
    for _, s in ipairs(steps) do
      if s.host_ops_per_ms and s.host_ops_per_ms >= p.slow_rate_ratio * med and s.host_bound_free_ns then
        base_list[#base_list + 1] = s.host_bound_free_ns
      end
    end
    local baseline = median(base_list) or 0
    for i, s in ipairs(steps) do
      local r = s.host_ops_per_ms
      if r and (s.host_ops or 0) > 0 and r < p.slow_rate_ratio * med and s.host_bound_free_ns then
        local dur = steplib.duration_ns(s)
        local cost = math.max(0, s.host_bound_free_ns - baseline)
        cost = math.min(cost, math.max(0, dur * (1 - r / med)))
        if cost > 0 then
          slow[#slow + 1] = s
          slow_cost[i] = cost
          parts[#parts + 1] = string.format("step %s at %.1f host ops/ms (%.0f%% of the median %.1f), %.3f ms host-bound idle",
            sname(s.id), r, 100 * r / med, med, s.host_bound_free_ns / 1e6)
          if not worst or cost > worst.cost then worst = { step = s, cost = cost } end
        end
      end
    end
  end

  -- Long host gaps not caused by online compilation.
  local long_n, long_desc = 0, {}
  for i, s in ipairs(steps) do
    local verdict = steplib.verdict(s)
    if verdict == "host-bound" or verdict == "mixed" then
      local evs = s.evidence or {}
      for k, g in ipairs(s.top_host_bound_gaps or {}) do
        if g.dur_ns and g.dur_ns >= p.long_gap_ns then
          local launch = evs[2 * k]
          local compiled = launch and launch.what and string.find(launch.what, "aclopCompileAndExecute", 1, true)
          if not compiled then
            long_cost[i] = (long_cost[i] or 0) + g.dur_ns
            long_n = long_n + 1
            long_desc[#long_desc + 1] = string.format("%.3f ms before %s in step %s", g.dur_ns / 1e6, tostring(g.task), sname(s.id))
            local e = evs[2 * k - 1]
            if e then ev[#ev + 1] = evidence.copy(e) end
          end
        end
      end
    end
  end
  local cost_sum, long_sum, total = 0, 0, 0
  for i, s in ipairs(steps) do
    local a, b = slow_cost[i] or 0, long_cost[i] or 0
    cost_sum = cost_sum + a
    long_sum = long_sum + b
    total = total + math.min(math.max(a, b), s.host_bound_free_ns or 0)
  end

  if #slow == 0 and long_n == 0 then return end

  local env = run.env(facts)
  local cur = env.CPU_AFFINITY_CONF
  local cmds, conf = { "export CPU_AFFINITY_CONF=2", "# torch_npu older than 6.0.0 instead: export CPU_AFFINITY_CONF=1" }, 0.3
  local state = "CPU_AFFINITY_CONF not recorded"
  local mindspore = run.is_mindspore(facts)
  if mindspore then
    -- MindSpore binds its own threads through its runtime API, not torch_npu's variable.
    cmds, state = { "mindspore.runtime.set_cpu_affinity(True)  # MindSpore 2.5+, before building the network" },
      "MindSpore's thread binding not recorded"
  elseif cur == "" then state = "CPU_AFFINITY_CONF unset (no binding)"
  elseif cur ~= nil then
    state = "CPU_AFFINITY_CONF=" .. cur
    local mode = string.sub(cur, 1, 1)
    if mode == "2" then
      cmds, conf = { "lscpu | grep -i numa", "npu-smi info -t topo" }, 0.15
    elseif mode == "1" then
      cmds = { "export CPU_AFFINITY_CONF=2" }
    end
  end

  local texts = {}
  if #slow > 0 then texts[#texts + 1] = "host op rate drops in " .. table.concat(parts, "; ") end
  if long_n > 0 then texts[#texts + 1] = string.format("%d long host gaps (%s)", long_n, table.concat(long_desc, ", ")) end
  if worst then
    local s = worst.step
    evidence.add(ev, steplib.evidence(s), 2)
    ev[#ev + 1] = { fact = "dispatch.steps[id=" .. sname(s.id) .. "].host_ops_per_ms", value = s.host_ops_per_ms }
  end
  if not mindspore then ev[#ev + 1] = { fact = "run.env.CPU_AFFINITY_CONF", value = cur } end

  emit {
    observed = "Host jitter: " .. table.concat(texts, "; ") .. "; " .. state .. ".",
    why = "The same host work takes longer in some steps than in others, and the device waits for it: "
      .. "typical of launch threads that migrate between cores or share them with other work.",
    action = mindspore and ("Bind MindSpore's threads (main, runtime, pynative, minddata) to the NPU's NUMA cores with "
      .. "its thread-level binding, and keep other processes off those cores.")
      or ("Bind torch_npu's launch threads to the NPU's NUMA cores (mode 2 = dedicated cores for the launch "
      .. "threads, torch_npu 6.0.0+; mode 1 = coarse binding for older versions), and keep dataloader workers off them."),
    commands = cmds,
    saving_ns = p.factor * total / n,
    saving_formula = string.format("%.2f x sum over steps of max(excess host-bound idle of a slow-host step, its long host gaps) / %d steps"
      .. " (slow-host %.3f ms, long gaps %.3f ms)", p.factor, n, cost_sum / 1e6, long_sum / 1e6),
    confidence = conf,
    evidence = ev,
    data = { median_host_ops_per_ms = med, slow_steps = #slow, long_gaps = long_n },
  }
end
