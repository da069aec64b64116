-- lib.modules: the module view (facts.modules, docs/facts-modules.md): where in the model the
-- device time goes, in a few words for a finding.
local modules = {}
local ipairs, format = ipairs, string.format

-- The heaviest `n` modules by device time per step, at most `max_depth` deep (every depth when nil).
function modules.top(facts, n, max_depth)
  local m = facts.modules
  local list = {}
  for _, node in ipairs(m and m.tree or {}) do
    if not max_depth or node.depth <= max_depth then list[#list + 1] = node end
  end
  table.sort(list, function(a, b)
    if a.device_ns ~= b.device_ns then return a.device_ns > b.device_ns end
    return a.path < b.path
  end)
  local out = {}
  for i = 1, math.min(n or 5, #list) do out[i] = list[i] end
  return out
end

-- "Sequential_3/Linear_3 (0.034 ms per step, 1.3% of the step's device work)".
function modules.describe(facts, node)
  local total = facts.modules and facts.modules.step_device_ns or 0
  local share = total > 0 and format(", %.1f%% of the step's device work", 100 * node.device_ns / total) or ""
  return format("%s (%.3f ms per step%s)", node.path, node.device_ns / 1e6, share)
end

-- How much of the device work the module numbers cover, in a sentence ("" without the view):
-- "Modules cover 56% of the step's device work; 12% runs in graph replays, not mapped to modules."
function modules.coverage(facts)
  local m = facts.modules
  if not m then return "" end
  local text = format("Modules cover %.0f%% of the step's device work", 100 * (m.coverage or 0))
  local g = m.graph
  if g and (g.share or 0) > 0 then
    text = text .. format("; %.0f%% runs in graph replays, not mapped to modules", 100 * g.share)
  end
  return text .. "."
end

-- The members of a repeated layer that stand out from siblings that agree: the layer has at least
-- `min_members`, its spread (MAD) is at most `max_spread` x its median, and a member's device time
-- is at least `min_ratio` x the median. Returns the outliers (each {member, ratio, excess_ns}) and
-- their excess over the median together (ns per step).
function modules.outliers(layer, min_members, max_spread, min_ratio)
  local out, excess = {}, 0
  local med = layer.median_ns or 0
  if (layer.count or 0) < min_members or med <= 0 or (layer.mad_ns or 0) > max_spread * med then return out, 0 end
  for _, mem in ipairs(layer.members or {}) do
    if mem.device_ns >= min_ratio * med then
      out[#out + 1] = { member = mem, ratio = mem.device_ns / med, excess_ns = mem.device_ns - med }
      excess = excess + mem.device_ns - med
    end
  end
  table.sort(out, function(a, b) return a.excess_ns > b.excess_ns end)
  return out, excess
end

return modules
