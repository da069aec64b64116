-- The dataloader makes the step wait for its next batch.
rule {
  id = "schedule.dataloader",
  title = "Fetching the next batch holds up the step",
  category = "schedule",
  frameworks = { "torch_npu", "pytorch" },  -- torch DataLoader
  severity = "high",
  pool = "idle.dataloader",  -- its saving is idle time of this cause (rules/attribution.h)
  whatif = "dataloader",  -- its saving is replayed (docs/whatif.md); the formula below is the fallback
  needs = { "operator_health.dataloader" },
  params = {
    slow_ns = { default = 10000000, min = 0, doc = "a fetch this long or longer is slow, ns (the reference's threshold); the facts count the slow fetches with it (operator_health.dataloader.slow_count, reference_slow_ns)" },
    min_step_share = { default = 0.05, min = 0, max = 1, doc = "reported when the fetch time per step is at least this share of the median step" },
    factor = { default = 0.8, min = 0, max = 1, doc = "share of the fetch time more workers and prefetching save for a multi-process loader (when the replay cannot tell)" },
    workers = { default = 8, min = 1, doc = "the workers the fix gives a single-process loader (fewer where the machine has fewer cores: the command says min(workers, os.cpu_count()))" },
  },
  doc = [[
Why: at the start of each step the Python thread waits in DataLoader.__next__ for the next
batch. With num_workers=0 (`_SingleProcessDataLoaderIter`) the loading and preprocessing run in
that thread; with too few workers, slow storage or no pinned memory the queue runs empty. The
device idles meanwhile (the trailing Free gap of the previous step).

How it is measured (operator_health.dataloader): host slices whose name contains "dataloader".
Reported when a call takes at least `slow_ns` (the reference's threshold) or when the
dataloader time per step is at least `min_step_share` of the median step time
(overall.step_time.median_ns, optional): the reference's fixed 10 ms misses a 1.3 ms fetch in a
14 ms step (the real mstt timeline_advice trace, 9 % of the step, single-process loader).

Fix: DataLoader(num_workers=N (4-8 per device, up to the cores of its NUMA node), pin_memory=True
(only with an accelerator to copy to: a CPU-only run gets no pin_memory), persistent_workers=True,
prefetch_factor=2-4); keep data on local disk (not a network mount; on
ModelArts copy it to /cache) and avoid per-sample decompression of tar/zip archives; keep the
workers off the launch cores (CPU_AFFINITY_CONF=2 does this).
Saving per step: replayed (docs/whatif.md, transformation `dataloader`): the trace's steps
simulated with the fetches moved to 8 workers (a single-process loader still waits fetch / 8
less the rest of its step). Without a usable replay (a CPU-only run has no device timeline to replay), the formula, per step
(the fetch time per step = total / the steps, overall.steps or a CPU-only run's host_steps): a
single-process loader given `workers` workers saves fetch - max(0, fetch / workers - the rest of the
step), the replay's model; a multi-process loader `factor` x fetch. Never more than the median
step; capped at the device idle (Free) per step when known. With no step count, `factor` x the
slow calls. Confidence 0.5 (0.6 for a
single-process loader, whose fix is certain to help).
Optional reads: overall.steps, overall.step_time.median_ns, overall.free_ns, host_steps, run.platform.
]],
}

local evidence = require "lib.evidence"
local steplib = require "lib.steps"
local run = require "lib.run"
local callsites = require "lib.callsites"

function check(facts, p, emit)
  local d = facts.operator_health.dataloader
  if (d.count or 0) == 0 then return end
  local o = facts.overall
  local steps = steplib.count(facts)
  local median = steplib.median_ns(facts)
  local per_step = steps and (d.total_ns / steps) or nil
  local slow = (d.slow_count or 0) > 0
  local heavy = per_step and median and median > 0 and per_step >= p.min_step_share * median
  if not slow and not heavy then return end

  local single = run.job(facts).dataloader == "single_process"
  local name = (d.first_slow and d.first_slow.name) or ""
  for _, x in ipairs(d.slow or {}) do
    if string.find(string.lower(x.name or ""), "singleprocess", 1, true) then single = true end
  end
  if string.find(string.lower(name), "singleprocess", 1, true) then single = true end
  local ev = evidence.add({}, d.evidence)
  -- The longest event's name is not in the facts unless slow; look at the host top list too.
  if facts.operators and facts.operators.host then
    for _, h in ipairs(facts.operators.host.by_name or {}) do
      local ln = string.lower(h.name or "")
      if string.find(ln, "dataloader", 1, true) then
        name = h.name
        if string.find(ln, "singleprocess", 1, true) then single = true end
      end
    end
  end

  local cost, formula
  if per_step and single then
    local rest = median and math.max(0, median - per_step) or 0
    local wait = math.max(0, per_step / p.workers - rest)
    cost = per_step - wait
    formula = string.format("fetch - max(0, fetch / %d workers - the rest of the step): %.3f - max(0, %.3f / %d - %.3f) ms per step",
      p.workers, per_step / 1e6, per_step / 1e6, p.workers, rest / 1e6)
  elseif per_step then
    cost = p.factor * per_step
    formula = string.format("%.2f x dataloader time per step (%.3f ms)", p.factor, per_step / 1e6)
  else
    cost = p.factor * (d.slow_total_ns or 0)
    formula = string.format("%.2f x slow dataloader calls (step count unknown)", p.factor)
  end
  if median and cost > median then
    cost = median
    formula = formula .. ", capped at the median step"
  end
  if o and o.free_ns and steps then
    local free = o.free_ns / steps
    if cost > free then
      cost = free
      formula = formula .. ", capped at Free per step"
    end
  end

  local texts = {}
  texts[#texts + 1] = string.format("%d dataloader calls take %.3f ms%s, longest %.3f ms", d.count, d.total_ns / 1e6,
    per_step and string.format(" (%.3f ms per step%s)", per_step / 1e6,
      median and string.format(", %.1f%% of the median step", 100 * per_step / median) or "") or "",
    (d.max_ns or 0) / 1e6)
  if slow then
    texts[#texts + 1] = string.format("%d calls of 10 ms or more (%.3f ms)", d.slow_count, (d.slow_total_ns or 0) / 1e6)
  end
  if name ~= "" then texts[#texts + 1] = "loader: " .. name end
  -- With Python stacks: where the loop fetches, and the user's own code the fetches spend their
  -- time in (operator_health.dataloader.call_sites, time_in).
  local sites, inside = d.call_sites or {}, d.time_in or {}
  if #sites > 0 then texts[#texts + 1] = "fetched in " .. callsites.describe(sites, 1, steps) end
  local hot = ""
  if #inside > 0 then
    local c = inside[1]
    hot = string.format("%s() at %s:%s", c["function"] or "?", c.file or "?", tostring(c.line or "?"))
    texts[#texts + 1] = string.format("the fetches spend %.3f ms%s in %s (x%d)", (c.ns or 0) / 1e6,
      steps and string.format(" (%.3f ms per step)", (c.ns or 0) / steps / 1e6) or "", hot, c.count or 0)
    callsites.evidence(ev, inside, 1)
  end
  callsites.evidence(ev, sites, 1)
  ev[#ev + 1] = { fact = "operator_health.dataloader.total_ns", value = d.total_ns }

  -- Workers up to the machine's cores; pinned memory only where there is a device to copy to.
  local pin = (facts.run and facts.run.platform == "cpu") and "" or " pin_memory=True,"
  local loader = string.format("DataLoader(dataset, batch_size=bs, num_workers=min(%d, os.cpu_count()),%s persistent_workers=True, prefetch_factor=4)",
    p.workers, pin)
  local cmds = single and { loader } or { loader, "iostat -x 5" }
  local action = single and ("The loader runs in the training process (num_workers=0): give it worker processes"
      .. (pin ~= "" and ", pinned memory" or "") .. " and persistent workers.")
      or ("Add workers and prefetching, " .. (pin ~= "" and "pin memory, " or "") .. "and check the storage speed (local disk, "
      .. "no per-sample archive decompression); keep the workers off the launch cores.")
  if hot ~= "" then action = action .. " The time is in your " .. hot .. ": make it cheaper too (precompute, or move the work to the device)." end
  cmds[1] = cmds[1] .. callsites.comment(sites)
  emit {
    observed = table.concat(texts, "; ") .. ".",
    why = "The step cannot start before its batch is ready; while the host loads data the device idles.",
    action = action,
    commands = cmds,
    saving_ns = cost,
    saving_formula = formula,
    confidence = single and 0.6 or 0.5,
    evidence = ev,
  }
end
