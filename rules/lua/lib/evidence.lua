-- lib.evidence: the evidence list of a finding, built from the facts' own evidence entries.
local evidence = {}
local ipairs = ipairs

-- A plain copy of one evidence entry of the facts: where a number comes from (file with a
-- byte offset or a line, or a database table and rowid) and what it is there. A finding keeps
-- the copy; fields the entry lacks stay absent.
function evidence.copy(e)
  return { file = e.file, line = e.line, byte = e.byte, table = e.table, rowid = e.rowid, what = e.what }
end

-- Appends copies of the first `max` entries of `list` (every entry when max is nil; nothing
-- when list is nil) to `dst`. Returns dst.
function evidence.add(dst, list, max)
  for i, e in ipairs(list or {}) do
    if max and i > max then break end
    dst[#dst + 1] = evidence.copy(e)
  end
  return dst
end

return evidence
