-- lib.util: the first helpers, also the global `util` (docs/rules.md, "The rule library").
local util = {}
local sort, tostring = table.sort, tostring

-- The median of the numbers xs[1..#xs] (nil when there are none). xs is not changed, so it
-- may be a facts array; the mean of the two middle values for an even count.
function util.median(xs)
  local n = #xs
  if n == 0 then return nil end
  local c = {}
  for i = 1, n do c[i] = xs[i] end
  sort(c)
  if n % 2 == 1 then return c[(n + 1) // 2] end
  return (c[n // 2] + c[n // 2 + 1]) / 2
end

-- A step id as text for messages: "(none)" when the step has no id (a run without steps).
function util.step_name(id)
  if id == nil then return "(none)" end
  return tostring(id)
end

return util
