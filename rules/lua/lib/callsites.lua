-- lib.callsites: the user's own call sites (with_stack runs: the facts' call_sites lists, built
-- by facts/python_stacks.h), in a few words for a finding and its commands.
local evidence = require "lib.evidence"
local callsites = {}

-- One entry as text: "step() at w_sync.py:11: .item() x21 (7.0 per step)", with the modules
-- around the calls when there are ("forward() at model.py:40 in model_0/layers_3/moe_0: .item() x3").
-- `steps`, when given, adds the count per step.
function callsites.text(c, steps)
  local where = string.format("%s() at %s:%s", c["function"] or "?", c.file or "?", tostring(c.line or "?"))
  local call = (c.call and c.call ~= "") and (c.call .. " ") or ""
  local per = ""
  if steps and steps > 0 then per = string.format(" (%.1f per step)", (c.count or 0) / steps) end
  local inside = ""
  if c.modules and #c.modules > 0 then inside = " in " .. table.concat(c.modules, ", ") end
  return string.format("%s%s: %sx%d%s", where, inside, call, c.count or 0, per)
end

-- The model's entries (a harness's, c.harness: the profiler's or a timing bracket, are not the
-- user's to change) made at least once per step on average (a call outside the loop, such as a
-- final synchronize, is left out); all of the model's when none is.
function callsites.per_step(list, steps)
  local out, model = {}, {}
  for _, c in ipairs(list or {}) do
    if c.harness == nil then
      model[#model + 1] = c
      if (c.count or 0) >= (steps or 1) then out[#out + 1] = c end
    end
  end
  if #out == 0 then return model end
  return out
end

-- The entries a harness made (c.harness), as text: "_run_timed_pipe() at runner.py:677 (timing bracket)".
function callsites.harness(list, max)
  local out = {}
  for _, c in ipairs(list or {}) do
    if c.harness ~= nil and #out < (max or 2) then
      out[#out + 1] = string.format("%s() at %s:%s (%s)", c["function"] or "?", c.file or "?", tostring(c.line or "?"),
        c.harness)
    end
  end
  return table.concat(out, "; ")
end

-- The first `max` entries of `list` as text, joined with "; "; "" when the list is empty or nil.
function callsites.describe(list, max, steps)
  local out = {}
  for i = 1, math.min(#(list or {}), max or 3) do out[#out + 1] = callsites.text(list[i], steps) end
  return table.concat(out, "; ")
end

-- The first entry's place: "step() at w_sync.py:11", "" without one.
function callsites.where(list)
  local c = list and list[1]
  if not c then return "" end
  return string.format("%s() at %s:%s", c["function"] or "?", c.file or "?", tostring(c.line or "?"))
end

-- The first entry's place as a comment for a command: "   # step() at w_sync.py:11", "" without one.
function callsites.comment(list)
  local w = callsites.where(list)
  return w ~= "" and ("   # " .. w) or ""
end

-- `dst` with the evidence of the first `max` entries appended.
function callsites.evidence(dst, list, max)
  for i = 1, math.min(#(list or {}), max or 3) do
    evidence.add(dst, list[i].evidence)
  end
  return dst
end

return callsites
