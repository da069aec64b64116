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

-- A communication group as findings name it: "tp (ranks 0,1)" when the facts know the
-- framework's name for it (cluster.parallel_groups, or run.parallel_groups of one rank; matched by
-- the hash of the group id or the id itself, also inside a trace thread name "Group <x>
-- Communication"), else `group` as the records write it (a hash such as "6960437680420871035").
function collectives.group_label(facts, group)
  local id = group:match("^Group (.+) Communication$") or group
  local lists = { facts.cluster and facts.cluster.parallel_groups, facts.run and facts.run.parallel_groups }
  for k = 1, 2 do
    for _, g in ipairs(lists[k] or {}) do
      if (g.group == id or g.id == id) and g.name and g.name ~= "" then
        return #(g.ranks or {}) > 0 and format("%s (ranks %s)", g.name, collectives.rank_ranges(g.ranks)) or g.name
      end
    end
  end
  return group
end

-- Sorted rank ids with runs of consecutive ones shortened: {0,1,2,3,8} -> "0-3,8".
function collectives.rank_ranges(ranks)
  local parts, i = {}, 1
  while i <= #ranks do
    local j = i
    while j < #ranks and ranks[j + 1] == ranks[j] + 1 do j = j + 1 end
    if j == i then parts[#parts + 1] = tostring(ranks[i])
    elseif j == i + 1 then parts[#parts + 1] = ranks[i] .. "," .. ranks[j]
    else parts[#parts + 1] = ranks[i] .. "-" .. ranks[j] end
    i = j + 1
  end
  return table.concat(parts, ",")
end

return collectives
