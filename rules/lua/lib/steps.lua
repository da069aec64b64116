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

-- The verdict on one dispatch.steps entry (or dispatch.overall): "host-bound", "device-bound",
-- "mixed" or "unknown", by the rule of docs/facts-dispatch.md with the thresholds as the calling
-- rule's parameters p.host_bound_vertical_share, p.host_bound_free_ratio and
-- p.device_bound_vertical_share (so `--set RULE.PARAM=V` moves it). Facts without
-- dispatch.has_device_timeline (written by an older version) keep their own classification.
function steps.verdict(s, p, facts)
  local has_device = facts.dispatch and facts.dispatch.has_device_timeline
  if has_device == nil then return s.classification end
  if (s.count or 0) == 0 then return "unknown" end
  local v = s.vertical_share or 0
  if not has_device then
    if v >= p.host_bound_vertical_share then return "host-bound" end
    if v <= p.device_bound_vertical_share then return "device-bound" end
    return "mixed"
  end
  local idle = s.host_bound_free_ratio or 0
  if v >= p.host_bound_vertical_share and idle >= p.host_bound_free_ratio then return "host-bound" end
  if v <= p.device_bound_vertical_share and idle < p.host_bound_free_ratio then return "device-bound" end
  return "mixed"
end

-- The host-bound steps of a dispatch.steps list (steps.verdict with the rule's parameters p):
-- how many, their host-bound idle in all (ns) and the step with the most of it (nil when none).
function steps.host_bound(list, p, facts)
  local count, idle_ns, worst = 0, 0, nil
  for _, s in ipairs(list) do
    if steps.verdict(s, p, facts) == "host-bound" then
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
