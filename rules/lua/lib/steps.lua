-- lib.steps: step counts and per-step summaries.
local steps = {}
local ipairs = ipairs
local util = require "lib.util"

-- The number of steps of a one-rank run (overall.steps), or nil when it is not known (absent
-- or 0): `steps.count(facts) or 1` divides a run's total into a per-step figure.
function steps.count(facts)
  local o = facts.overall
  if o and o.steps and o.steps > 0 then return o.steps end
  return nil
end

-- The number of steps of a cluster (cluster.step_count, else the length of cluster.steps),
-- at least 1.
function steps.cluster_count(facts)
  local c = facts.cluster
  local n = c.step_count or #(c.steps or {})
  if n < 1 then n = 1 end
  return n
end

-- The host-bound steps of a dispatch.steps list: how many, their host-bound idle in all (ns)
-- and the step with the most of it (nil when none is host-bound).
function steps.host_bound(list)
  local count, idle_ns, worst = 0, 0, nil
  for _, s in ipairs(list) do
    if s.classification == "host-bound" then
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
