-- Host<->device copies from pageable (unpinned) host memory (Kineto traces).
rule {
  id = "memory.pageable_copy",
  title = "Copies between host and GPU use pageable memory (no pin_memory)",
  category = "memory",
  severity = "medium",
  pool = "copies",  -- copies are device work of their own on a GPU, not idle (rules/attribution.h)
  whatif = "pinned",  -- its saving is replayed (docs/whatif.md); the formula below is the fallback
  needs = { "gpu.pageable_copies", "gpu.steps" },
  platforms = { "gpu" },
  params = {
    min_ns_per_step = { default = 50000, min = 0, doc = "reported when pageable copies take at least this much GPU time per step, ns" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the pageable copy time pinned memory saves" },
  },
  doc = [[
Why: a copy from pageable host memory goes through a driver staging buffer: it runs at a
fraction of the PCIe/NVLink bandwidth and is synchronous with respect to the host even when
issued with non_blocking=True, so it cannot overlap with the next batch's launches. Pinned
(page-locked) memory is copied by DMA directly and asynchronously.

How it is measured (facts.gpu.pageable_copies): gpu_memcpy events whose name says
"Pageable" (Kineto: "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Pageable)").
Reported when they take at least `min_ns_per_step` of GPU time per step (the mean over
the steps' windows, gpu.steps[].pageable_ns: copies outside the steps are not put in one).

Fix, chosen from what the trace shows: with a DataLoader in the trace
(operator_health.dataloader.count > 0), `DataLoader(..., pin_memory=True)` and
`batch.to(device, non_blocking=True)`; without one the job copies a tensor it built itself, so
it is told to pin that tensor once and reuse it (`src = src.pin_memory()`, then
`src.to(device, non_blocking=True)`), never to configure a DataLoader it does not have; for
device-to-host results (the longest copy is DtoH), copy into a pinned tensor
(`out = torch.empty(..., pin_memory=True); out.copy_(x, non_blocking=True)`).

Saving per step: replayed (docs/whatif.md, transformation `pinned`): the pageable copies at
pinned bandwidth (measured from the trace's pinned copies, else a per-link default), their
calls no longer blocking the host. Without a usable replay, the formula: `factor` x pageable copy time per step: pinned copies run about twice
as fast and overlap with compute. Confidence 0.5.
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"
local callsites = require "lib.callsites"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local pc = facts.gpu.pageable_copies
  if (pc.count or 0) == 0 then return end
  local n, per_step = steplib.per_step(facts.gpu.steps, "pageable_ns", pc.device_ns)
  if per_step < p.min_ns_per_step then return end
  local ev, names = {}, {}
  for i, x in ipairs(pc.longest or {}) do
    if i > 2 then break end
    names[#names + 1] = string.format("%s %.1f us (%s)", x.name, x.dur_ns / 1e3, x.host_call or "?")
    evidence.add(ev, x.evidence)
  end
  ev[#ev + 1] = { fact = "gpu.pageable_copies.device_ns", value = pc.device_ns }
  -- The command fits the job: a DataLoader only where the trace has one (facts.job.dataloader,
  -- or dataloader events), the copy's direction, the loop's name; with Python stacks, the
  -- user's call site of the copy (gpu.pageable_copies.call_sites).
  local oh = facts.operator_health
  local loader = run.job(facts).dataloader ~= nil or (oh and oh.dataloader and (oh.dataloader.count or 0) > 0)
  local loop = run.inference(facts) and "loop" or "training loop"
  local sites = callsites.per_step(pc.call_sites, n)
  local at = callsites.comment(sites)
  if #sites > 0 then callsites.evidence(ev, sites, 2) end
  local longest = (pc.longest or {})[1]
  local to_host = longest and string.find(longest.name or "", "DtoH", 1, true) ~= nil
  local commands, action
  if to_host then
    action = "Copy device results into a pinned host tensor, allocated once and reused."
    commands = {
      "out = torch.empty(x.shape, dtype=x.dtype, pin_memory=True)   # once, outside the loop",
      "out.copy_(x, non_blocking=True)   # then synchronize once before reading out" .. at,
    }
  elseif loader then
    action = "Pin the host buffers: pin_memory=True in the DataLoader and non_blocking=True on .to(device)."
    commands = {
      "DataLoader(dataset, batch_size=bs, num_workers=8, pin_memory=True)",
      "x = x.to(device, non_blocking=True)" .. at,
    }
  else
    action = "Pin the host tensor you copy (once, outside the loop) and copy it with non_blocking=True; "
      .. "reuse the pinned buffer if you refill it each step."
    commands = {
      "src = src.pin_memory()   # once, outside the " .. loop,
      "x = src.to(device, non_blocking=True)" .. at,
    }
  end
  emit {
    observed = string.format("%d copies use pageable host memory, %.3f ms of GPU time (%.3f ms per step); longest: %s%s.",
      pc.count, pc.device_ns / 1e6, per_step / 1e6, table.concat(names, ", "),
      #sites > 0 and ("; copied from " .. callsites.describe(sites, 2, n)) or ""),
    why = "Pageable copies are staged by the driver: slower, and synchronous with the host even with non_blocking=True.",
    action = action,
    commands = commands,
    saving_ns = p.factor * per_step,
    saving_formula = string.format("%.2f x pageable copy time per step", p.factor),
    confidence = 0.5,
    evidence = ev,
  }
end
