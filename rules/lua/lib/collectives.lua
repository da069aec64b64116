-- lib.collectives: what the communication rules share about the collectives of a run.
local collectives = {}
local ipairs, format, min, max = ipairs, string.format, math.min, math.max
local evidence = require "lib.evidence"

-- Whether the collectives mostly wait for a peer or sit stalled (collectives.total.cause
-- "wait" or "idle"): less traffic or more overlap does not help them, and
-- communication.long_collective names their cause.
function collectives.mostly_waiting(facts)
  local ct = facts.collectives and facts.collectives.total
  return ct ~= nil and (ct.cause == "idle" or ct.cause == "wait")
end

-- The not-overlapped communication (ns) that overlap could still hide: at most the computing
-- time that covers no communication yet, min(not overlapped, computing - overlapped), of the
-- `overall` facts.
function collectives.hideable_ns(o)
  return min(o.comm_not_overlapped_ns, max(0, o.computing_ns - o.overlapped_ns))
end

-- The `k` largest collectives of the kernel table (operators.communication): a list of
-- "NAME X.XXX ms" texts and the evidence list of their first entries (both empty when the
-- table has none).
function collectives.top(facts, k)
  local names, ev = {}, {}
  local list = facts.operators and facts.operators.communication
  for i, c in ipairs(list or {}) do
    if i > k then break end
    names[#names + 1] = format("%s %.3f ms", c.name, c.total_ns / 1e6)
    evidence.add(ev, c.evidence, 1)
  end
  return names, ev
end

return collectives
