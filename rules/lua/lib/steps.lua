-- lib.steps: step counts and per-step summaries.
local steps = {}
local ipairs = ipairs
local util = require "lib.util"

-- The number of steps of a one-rank run (overall.steps), or nil when it is not known (absent
-- or 0): `steps.count(facts) or 1` divides a run's total into a per-step figure.
function steps.count(facts)
  local o = facts.overall
  if o and o.steps and o.steps > 0 then return o.steps end
  local h = facts.host_steps  -- a CPU-only run: its ProfilerStep spans on the host
  if h and #h > 0 then return #h end
  return nil
end

-- The median step time (overall.step_time.median_ns; a CPU-only run: the median of its host
-- step spans, the upper middle one of an even count, as the facts' quantiles), or nil.
function steps.median_ns(facts)
  local o = facts.overall
  if o and o.step_time and o.step_time.median_ns then return o.step_time.median_ns end
  local h = facts.host_steps
  if not h or #h == 0 then return nil end
  local v = {}
  for _, s in ipairs(h) do v[#v + 1] = s.host_dur_ns end
  table.sort(v)
  return v[math.floor(0.5 * (#v - 1) + 0.5) + 1]
end

-- The number of steps of a cluster (cluster.step_count, else the length of cluster.steps),
-- at least 1.
function steps.cluster_count(facts)
  local c = facts.cluster
  local n = c.step_count or #(c.steps or {})
  if n < 1 then n = 1 end
  return n
end

-- A per-step figure from a per-step list (gpu.steps: each entry counts what fell in its step's
-- window): the count of steps (at least 1) and the mean of the entries' `key`. A trace's totals
-- also count what lies outside the steps (the tail of the step before the first one recorded),
-- which a total / steps would put in a step. With no list, the run's `total` over one step; with
-- entries that lack `key` (a facts file from before it was written), `total` over the steps.
function steps.per_step(list, key, total)
  local n = #(list or {})
  if n == 0 then return 1, total or 0 end
  local sum, seen = 0, false
  for _, s in ipairs(list) do
    if s[key] ~= nil then
      sum, seen = sum + s[key], true
    end
  end
  if not seen then return n, (total or 0) / n end
  return n, sum / n
end

-- The decided classes (verdicts/step_class.lua, decided once per run before the rules), by
-- "id@start_ns" of the dispatch.steps entry; built on first use.
local decided = nil

-- The class of one dispatch.steps entry: "host-bound", "device-bound", "mixed" or "unknown", as
-- the verdict dispatch.step_class decided it for this run (its parameters move every rule and
-- the reports together: --set dispatch.step_class.host_bound_free_ratio=0.2). Extra arguments
-- (the older steps.verdict(s, p, facts)) are ignored.
function steps.verdict(s)
  if not decided then
    local v = verdicts and verdicts.dispatch and verdicts.dispatch.step_class
    if not v then error("the verdict dispatch.step_class was not decided for this run (see the report's rule list)", 2) end
    decided = {}
    for _, x in ipairs(v.steps) do decided[tostring(x.id) .. "@" .. tostring(x.start_ns)] = x.class end
  end
  return decided[tostring(s.id) .. "@" .. tostring(s.start_ns)] or "unknown"
end

-- The evidence that explains a step's class: its listed host-bound gaps (evidence) for a
-- host-bound step, the launch that waited longest (largest_lag_evidence) for a device-bound one,
-- both for a mixed one.
function steps.evidence(s)
  local cls = steps.verdict(s)
  local out = {}
  if cls == "host-bound" or cls == "mixed" then
    for _, e in ipairs(s.evidence or {}) do out[#out + 1] = e end
  end
  if cls == "device-bound" or cls == "mixed" then
    for _, e in ipairs(s.largest_lag_evidence or {}) do out[#out + 1] = e end
  end
  return out
end

-- The host-bound steps of a dispatch.steps list (steps.verdict): how many, their host-bound
-- idle in all (ns) and the step with the most of it (nil when none). Extra arguments are ignored.
function steps.host_bound(list)
  local count, idle_ns, worst = 0, 0, nil
  for _, s in ipairs(list) do
    if steps.verdict(s) == "host-bound" then
      count = count + 1
      idle_ns = idle_ns + (s.host_bound_free_ns or 0)
      if not worst or (s.host_bound_free_ns or 0) > (worst.host_bound_free_ns or 0) then worst = s end
    end
  end
  return count, idle_ns, worst
end

-- A step's wall time, end_ns - start_ns (0 for a missing end).
function steps.duration_ns(s)
  return (s.end_ns or 0) - (s.start_ns or 0)
end

-- A step id as text for a "worst step" message: a capture without ProfilerStep marks is one
-- step covering the whole trace.
function steps.label(id)
  return id == nil and "(whole trace, no ProfilerStep)" or util.step_name(id)
end

return steps
