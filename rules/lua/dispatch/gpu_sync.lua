-- Host synchronisations with the GPU inside the step (Kineto traces).
rule {
  id = "dispatch.gpu_sync",
  title = "The host synchronises with the GPU inside the step",
  category = "dispatch",
  severity = "medium",
  pool = "idle.sync",  -- its saving is idle time of this cause (rules/attribution.h)
  whatif = "syncs",  -- its saving is replayed (docs/whatif.md); the formula below is the fallback
  needs = { "gpu.syncs", "gpu.blocking_d2h", "gpu.steps", "dispatch.overall.host_bound_free_ns" },
  platforms = { "gpu" },
  params = {
    min_per_step = { default = 2, min = 0, doc = "reported when a step holds at least this many sync points on average" },
    min_wait_ns = { default = 100000, min = 0, doc = "... the host waits at least this long in them per step, ns, and the GPU idles on the host at least as long" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of min(host wait, GPU idle) removing the syncs recovers" },
  },
  doc = [[
Why: a synchronisation makes the Python thread wait until the GPU has drained its queue.
While it waits it launches nothing, so after the sync the GPU starts from an empty queue and
idles for as long as the host needs to launch the next kernels. Typical sources:
`loss.item()`, `tensor.cpu()` / `.tolist()` / `print(tensor)` (a device-to-host copy the host
waits for), `torch.cuda.synchronize()`, `if tensor.any():` (data-dependent Python control
flow), `torch.nonzero` / boolean-mask indexing (output size unknown until the GPU is done),
`non_blocking=False` copies.

How it is measured (facts.gpu): host runtime calls cudaDeviceSynchronize / cuCtxSynchronize
(device), cudaStreamSynchronize / cudaEventSynchronize / cuStreamSynchronize (stream) and
their HIP twins (gpu.syncs, per step in gpu.steps[].sync_calls); device-to-host memcpy
whose launching call (joined by correlation id) ended after the copy, or was directly
followed on the same thread by a sync that did (gpu.blocking_d2h: the `.item()` pattern).
Each blocking wait counts once (gpu.steps[].sync_points): an `.item()` is a copy and the
sync call it waits in, one point; a copy call that waits by itself (a synchronous
cudaMemcpy) is one too. Host wait = the host's time in those points, each once: from the
copy's launch to the end of the call it waited in, or a sync call alone
(gpu.steps[].sync_wait_ns).
Reported when a step holds at least `min_per_step` sync points on average (one sync at
the end of a step, for logging or a benchmark harness, is normal), the host waits in them at
least `min_wait_ns` per step, and the GPU sat idle waiting on the host
(dispatch.overall.host_bound_free_ns) at least `min_wait_ns` per step. A
few microseconds of waiting at the end of a step is how every step ends; and in a device-bound
step the host waiting for a busy GPU costs nothing (the real trace
hta/negative_queue_length_values_check/rank0 waits 150 ms per step in `.item()` copies while the
GPU runs 160 ms ahead of the host).

Syncs a harness made are not the model's and are left out of the count and the wait
(gpu.steps[].harness_sync_points, facts/harness.h): the profiler's own (a torch.profiler frame
around the call) and a runner's timing brackets (torch.cuda.synchronize() before the first or
after the last launch of its step, from a function that encloses all of the step's launches,
such as xDiT's _run_timed_pipe); the finding names them.

Commands fit the job (facts.job): loss accumulation only for training; an inference loop
is told to keep its outputs on the GPU; a job the trace does not tell (no host operators) gets
neither. With Python stacks (with_stack), the finding names the user's call sites
(gpu.syncs.call_sites: the function and file that made the `.item()` / `.cpu()`).
Saving per step: replayed (docs/whatif.md, transformation `syncs`): every wait for the
device in a step but the last removed, so the host runs ahead. Without a usable replay, the
formula: `factor` x min(host wait in syncs and blocking copies per step, GPU idle
caused by the host (dispatch.overall.host_bound_free_ns) per step): after a sync the GPU idles
until the host has launched again; removing the sync lets the host run ahead and refill the
queue, but part of the wait is real work the host must still wait for somewhere.
Confidence 0.4. Shares idle time with dispatch.launch_bound: do not add their savings.
]],
}

local evidence = require "lib.evidence"
local steplib = require "lib.steps"
local run = require "lib.run"
local callsites = require "lib.callsites"

function check(facts, p, emit)
  if run.startup_capture(facts) then return end  -- the engine's own capture syncs, not serving's
  local g = facts.gpu
  local steps = g.steps
  local n = #steps
  if n == 0 then return end
  -- A sync point is one blocking wait of the host, counted once: an .item() is a copy and the
  -- sync call it waits in (facts.gpu.steps[].sync_points, sync_wait_ns).
  -- A harness's syncs (the profiler's, a runner's timing brackets: facts.gpu.steps[].harness_*)
  -- are not the model's: left out, and named.
  local points, calls, copies, wait, harness = 0, 0, 0, 0, 0
  local worst, worst_n = nil, -1
  for _, s in ipairs(steps) do
    local h = s.harness_sync_points or 0
    local k = (s.sync_points or ((s.sync_calls or 0) + (s.blocking_d2h or 0))) - h
    points = points + k
    harness = harness + h
    calls = calls + (s.sync_calls or 0) - h
    copies = copies + (s.blocking_d2h or 0)
    wait = wait + (s.sync_wait_ns or ((s.sync_ns or 0) + (s.blocking_d2h_wait_ns or 0))) - (s.harness_wait_ns or 0)
    if k > worst_n then worst, worst_n = s, k end
  end
  local host_bound = facts.dispatch.overall.host_bound_free_ns / n
  if points / n < p.min_per_step or wait / n < p.min_wait_ns or host_bound < p.min_wait_ns then return end
  local ev, names = {}, {}
  for i, x in ipairs(g.syncs.by_name or {}) do
    if i > 3 then break end
    names[#names + 1] = string.format("%s x%d (%.3f ms)", x.name, x.count, x.total_ns / 1e6)
    evidence.add(ev, x.evidence)
  end
  for i, x in ipairs(g.blocking_d2h.longest or {}) do
    if i > 2 then break end
    evidence.add(ev, x.evidence)
  end
  ev[#ev + 1] = { fact = "gpu.syncs.count", value = g.syncs.count }
  local per_wait = wait / n
  local cost = per_wait
  local formula = string.format("%.2f x host wait per step (%.3f ms)", p.factor, per_wait / 1e6)
  if host_bound < cost then
    cost = host_bound
    formula = formula .. ", capped at host-caused GPU idle per step"
  end
  local observed = string.format("%.1f sync points per step (%d sync calls; %d of the host's waits were for a "
    .. "device-to-host copy), %.3f ms of host wait in them per step; worst step %s with %d", points / n, calls, copies,
    per_wait / 1e6, steplib.label(worst.id), worst_n)
  if #names > 0 then observed = observed .. "; " .. table.concat(names, ", ") end
  if harness > 0 then
    local who = callsites.harness(g.syncs.call_sites)
    observed = observed .. string.format("; %d sync calls of a harness left out%s", harness,
      who ~= "" and (" (" .. who .. ")") or "")
  end
  -- Where the user's code syncs (with_stack runs): the call sites, in the finding and the command.
  local sites = callsites.per_step(g.syncs.call_sites, n)
  if #sites > 0 then
    observed = observed .. "; called from " .. callsites.describe(sites, 3, n)
    callsites.evidence(ev, sites, 3)
  end
  local debug = "torch.cuda.set_sync_debug_mode(\"warn\")   # prints a warning at every synchronising call"
  if #sites > 0 then
    debug = "torch.cuda.set_sync_debug_mode(\"warn\")   # each warning names one (" .. callsites.where(sites) .. ")"
  end
  -- Training advice (the loss) only for a training job (facts.job); inference keeps its outputs
  -- (tokens) on the GPU instead; a job the trace does not tell gets the generic advice.
  local action, commands
  local training = run.training(facts)
  if training == false then
    action = "Keep the outputs on the GPU inside the loop: no .item() / .tolist() / .cpu() per iteration (collect the "
      .. "tokens in a GPU tensor and copy once at the end), no torch.cuda.synchronize() or debug prints, no "
      .. "data-dependent Python branches on tensors."
    commands = { debug }
  elseif training == true then
    action = "Keep values on the GPU inside the step: accumulate the loss as a tensor and call .item() every N steps, "
      .. "drop torch.cuda.synchronize() and debug prints from the step, replace data-dependent Python branches on tensors "
      .. "by tensor ops (torch.where), copy with non_blocking=True from pinned memory."
    commands = {
      "total_loss += loss.detach()            # instead of total_loss += loss.item()",
      "if step % 50 == 0: print(total_loss.item())",
      debug,
    }
  else
    action = "Keep values on the GPU inside the step: read them back every N steps instead of every step, drop "
      .. "torch.cuda.synchronize() and debug prints, replace data-dependent Python branches on tensors by tensor ops."
    commands = { debug }
  end
  emit {
    observed = observed .. ".",
    why = "While the host waits for the GPU it launches nothing, so the GPU idles after every sync until the queue refills.",
    action = action,
    commands = commands,
    saving_ns = p.factor * cost,
    saving_formula = formula,
    confidence = 0.4,
    evidence = ev,
  }
end
