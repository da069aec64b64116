-- Reserved device memory far above what was ever allocated at once: fragmentation or caching.
rule {
  id = "memory.peak",
  title = "Much more device memory is reserved than is ever used at once",
  category = "memory",
  severity = "low",
  platforms = { "ascend" },
  needs = { "memory.peak_reserved_mb", "memory.peak_allocated_mb", "memory.overall" },
  params = {
    min_gap_mb = { default = 1024, min = 0, doc = "reported when peak reserved - peak allocated is at least this many MB ..." },
    min_gap_ratio = { default = 0.2, min = 0, max = 1, doc = "... and at least this share of the reserved peak" },
  },
  doc = [[
Why (informational): the caching allocator reserves device memory in segments and keeps it. When
the peak reserved memory is far above the peak allocated memory, the difference is memory that
no tensor ever needed at the same time: fragmentation (blocks of the wrong size), or cache held
from a different phase. It costs no time by itself, but it is memory the job cannot use for a
larger batch, and on a full device it leads to out-of-memory errors or to allocator frees
(memory.alloc_api).

How it is measured (memory, from memory_record.csv; docs/facts-operators.md): peak reserved minus
peak allocated of the framework total (memory.overall.method says how it is summed). Reported
when the gap is at least `min_gap_mb` and at least `min_gap_ratio` of the
reserved peak. No time saving (saving 0), confidence 0.3.

Fix: `export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True` (fewer, growable segments); avoid
allocating many differently sized temporaries (dynamic shapes); look at the largest allocations
(memory.top_allocations) around the peak.
Optional reads: memory.top_allocations, run.env.PYTORCH_NPU_ALLOC_CONF, run.env.MS_ALLOC_CONF.
Commands fit the job: expandable segments only when run.env does not show them on already, in the
job's framework (MindSpore: `MS_ALLOC_CONF=enable_vmm:True`); the largest allocations are named in
the finding's text, no command sends the user back to this tool.
]],
}

local sname = util.step_name  -- "(none)" for a step without id (docs/rules.md)
local evidence = require "lib.evidence"
local run = require "lib.run"

function check(facts, p, emit)
  local m = facts.memory
  local res, alloc = m.peak_reserved_mb, m.peak_allocated_mb
  if not res or not alloc or res <= 0 then return end
  local gap = res - alloc
  if gap < p.min_gap_mb or gap < p.min_gap_ratio * res then return end
  local ev = {}
  local pr, pa = m.overall.peak_reserved, m.overall.peak_allocated
  for _, x in ipairs({ pr, pa }) do
    if x then evidence.add(ev, x.evidence) end
  end
  local tops = {}
  for i, a in ipairs(m.top_allocations or {}) do
    if i > 3 then break end
    tops[#tops + 1] = string.format("%s %.1f MB", a.name, a.size_mb)
  end
  -- The allocator's switch in the job's framework, unless it is on already.
  local mindspore = run.is_mindspore(facts)
  local var, on = "PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True"
  if mindspore then var, on = "MS_ALLOC_CONF", "enable_vmm:True" end
  local cv = run.env(facts)[var]
  local cmds = {}
  if not (cv and string.find(string.lower(cv), string.lower(on), 1, true)) then
    cmds[#cmds + 1] = "export " .. var .. "=" .. on
  end
  emit {
    observed = string.format("Peak reserved %.1f MB vs peak allocated %.1f MB (%s): %.1f MB (%.0f%%) reserved but never in use at once%s%s.",
      res, alloc, m.overall.method or "?", gap, 100 * gap / res,
      (pa and pa.step ~= nil) and ("; allocated peak in step " .. sname(pa.step)) or "",
      #tops > 0 and ("; largest allocations: " .. table.concat(tops, ", ")) or ""),
    why = "Reserved-but-unused device memory is lost to the job: it limits the batch size and leads to OOM or allocator frees.",
    action = (#cmds > 0 and ("Enable " .. (mindspore and "virtual memory segments" or "expandable segments") .. " and reduce")
        or "Segments already grow on demand: reduce")
      .. " differently sized temporaries (the largest allocations above first); re-profile with profile_memory=True to compare.",
    commands = cmds,
    saving_ns = 0,
    saving_formula = "informational: memory, not time",
    confidence = 0.3,
    evidence = ev,
    data = { gap_mb = gap, peak_reserved_mb = res, peak_allocated_mb = alloc },
  }
end
