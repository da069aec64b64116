-- GPU steps in which the kernels wait on the host's launches (Kineto traces).
rule {
  id = "dispatch.launch_bound",
  title = "The GPU waits on kernel launches: the step is launch-bound",
  category = "dispatch",
  severity = "high",
  pool = "idle.host_launch",  -- its saving is idle time of this cause (rules/attribution.h)
  whatif = "graphs",  -- its saving is replayed (docs/whatif.md); the formula below is the fallback
  needs = { "dispatch.steps", "dispatch.overall.host_bound_free_ns", "gpu.kernels" },
  platforms = { "gpu" },
  params = {
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the host-bound idle CUDA graphs or fusion recover" },
    graph_share = { default = 0.5, min = 0, max = 1, doc = "from this share of kernel time replayed from graphs, the finding is about the host work between them" },
    min_syncs_first = { default = 2, min = 0, doc = "a training step with at least this many reads back per step is told to remove them first" },
  },
  doc = [[
Why: PyTorch launches every kernel from the Python thread (cudaLaunchKernel / hipLaunchKernel,
a few microseconds of host time each, plus the operator's own Python and dispatcher overhead).
When the kernels are shorter than that, the GPU finishes each kernel before the next one is
launched and idles in between: the step time is the host's launch time, not the GPU's work.

How it is measured (facts.dispatch, docs/facts-dispatch.md): each kernel, memcpy and memset is
joined to the runtime call that launched it by its correlation id (the relation Kineto's ac2g
arrows draw); the launch lag is device start - host call start. A step is host-bound (the verdict
dispatch.step_class, docs/rules.md "Verdicts") when at least `host_bound_vertical_share` of its
launches start within `vertical_lag_ns` of the host call ("vertical") and the GPU idle gaps ended
by such launches (host_bound_free_ns) are at least `host_bound_free_ratio` of the step's device
time.
The finding also quotes the kernel sizes (facts.gpu.kernels: median duration, share of kernels
under 10 us).

Fix, in order of effect: capture the step in a CUDA graph (`torch.compile(model,
mode="reduce-overhead")`, or `torch.cuda.graphs` / `torch.cuda.make_graphed_callables` for a
static-shape part), which replaces hundreds of launches by one; `torch.compile` to fuse small
elementwise kernels into fewer, larger ones; a larger batch (or micro-batch) so each kernel
does more work per launch; a fused optimizer (`fused=True`), only for the optimizer the job
steps (facts.job: Adam, AdamW or SGD, not fused already; none for inference).

The commands fit the job (facts.job): an inference job (host operators recorded, none of them
training) is told to give its decode loop a static KV cache and graph each forward
(`model.generation_config.cache_implementation = "static"` for Hugging Face `generate()`, then
`torch.compile(model.forward, mode="reduce-overhead")`), never about optimizers; a compiled model
is told the mode that adds graphs, not to compile again. A training step with at least
`min_syncs_first` reads back to the host per step (gpu.steps[].blocking_d2h: `.item()`,
`.cpu()`) is told to remove them first (a graph cannot be captured across a sync; with Python
stacks, their call sites from gpu.syncs.call_sites), then to capture. The syncs of input copies
(`.to()` of pageable memory) do not count: the copy into a graph's static input stays outside it.

When the kernels already replay from CUDA/HIP graphs (at least `graph_share` of the kernel
time: gpu.graph_replay), graphs and reduce-overhead are not advised again: what is left is the host
work between the graph launches and the kernels still launched one by one (confidence 0.3). The
launch analysis counts each graph launch once (docs/facts-dispatch.md).

Saving per step: replayed (docs/whatif.md, transformation `graphs`): each run of launches
between host waits made one graph launch, its kernels back to back. Without a usable replay
(or when graphs are already used), the formula: `factor` x host-bound idle of the
host-bound steps / number of steps: graphs and fusion remove most launch overhead, but not the
Python time between launches.
Confidence 0.5. Shares idle time with dispatch.gpu_sync and compute.small_kernels: do not add
their savings.
]],
}

local evidence = require "lib.evidence"
local steplib = require "lib.steps"
local graphs = require "lib.graphs"
local run = require "lib.run"
local callsites = require "lib.callsites"
local engines = require "lib.engines"

function check(facts, p, emit)
  local steps = facts.dispatch.steps
  local n = #steps
  if n == 0 then return end
  local hb, idle, worst = steplib.host_bound(steps)
  if hb == 0 then return end
  local k = facts.gpu.kernels
  local ev = evidence.add({}, worst.evidence, 4)
  ev[#ev + 1] = { fact = "dispatch.overall.host_bound_free_ns", value = facts.dispatch.overall.host_bound_free_ns }
  local kernels = ""
  if k.count and k.count > 0 and k.median_ns then
    kernels = string.format("; kernels: median %.1f us, %.0f%% shorter than 10 us", k.median_ns / 1e3,
      100 * (k.small_share_of_count or 0))
  end
  local action = "Launch less: capture the step in a CUDA graph, let torch.compile fuse small kernels, or give each kernel "
    .. "more work (larger batch)."
  local commands = {
    "model = torch.compile(model, mode=\"reduce-overhead\")   # CUDA graphs + fusion",
    "g = torch.cuda.CUDAGraph(); with torch.cuda.graph(g): out = model(static_in)   # static shapes",
  }
  -- A compiled model is told the mode that adds CUDA graphs, not to compile again; a fused
  -- optimizer only for the optimizer the job steps, none for inference (facts.job).
  if run.compiled(facts) then
    commands[1] = "torch.compile(model, mode=\"reduce-overhead\")   # the model is compiled already: add CUDA graphs"
  end
  if run.inference(facts) then
    -- A generation loop: its forward is graphed per token once the KV cache has a static shape.
    action = "Launch less: give the decode loop static shapes (a static KV cache) and replay each forward as a CUDA "
      .. "graph (torch.compile mode reduce-overhead), or serve larger batches so each kernel does more work per launch."
    commands = {
      "model.forward = torch.compile(model.forward, mode=\"reduce-overhead\")   # one CUDA graph per decode step"
        .. (run.compiled(facts) and "; the model is compiled already: this mode adds the graphs" or ""),
    }
    -- A known engine's own graph commands (lib.engines); Hugging Face's for generate() only
    -- (lib.run.hf_generate: never a serving engine's run).
    local own = engines.graphs(facts)
    if own then action, commands = own.action, own.commands end
    if run.hf_generate(facts) then
      table.insert(commands, 1,
        "model.generation_config.cache_implementation = \"static\"   # Hugging Face generate(): a static KV cache")
    end
  end
  commands[#commands + 1] = run.fused_optimizer(facts, "params")
  -- A graph cannot be captured across a host sync: in a training step with several, removing
  -- them comes first (dispatch.gpu_sync names them); the replay's graphs stop at each of them.
  local per_step_syncs = 0
  for _, s in ipairs(facts.gpu.steps or {}) do per_step_syncs = per_step_syncs + (s.blocking_d2h or 0) end
  per_step_syncs = per_step_syncs / math.max(1, #(facts.gpu.steps or {}))
  if run.training(facts) == true and per_step_syncs >= p.min_syncs_first then
    -- The reads back (.item(), .cpu(), ...), not the syncs of input copies (.to(): pinning fixes those).
    local sites = {}
    for _, c in ipairs(callsites.per_step(facts.gpu.syncs and facts.gpu.syncs.call_sites, n)) do
      if c.call ~= ".to()" and c.call ~= ".copy_()" then sites[#sites + 1] = c end
    end
    local where = callsites.describe(sites, 2, n)
    action = string.format("First remove the %.1f reads back to the host per step%s: a CUDA graph cannot be captured "
      .. "across them. Then ", per_step_syncs, where ~= "" and (" (" .. where .. ")") or "") .. string.lower(action:sub(1, 1))
      .. action:sub(2)
    local at = callsites.where(sites)
    table.insert(commands, 1, "torch.cuda.set_sync_debug_mode(\"warn\")   # first: each warning names a read back to remove"
      .. (at ~= "" and (" (" .. at .. ")") or ""))
    callsites.evidence(ev, sites, 2)
  end
  local confidence = 0.5
  local whatif = nil  -- the rule's own: graphs
  if graphs.share(facts) >= p.graph_share then
    whatif = false  -- graphs are the fix already: the formula says what the host work between them costs
    kernels = kernels .. "; " .. graphs.describe(facts)
    action = "The kernels already replay from CUDA graphs, so more graphs will not help: cut the host work between the "
      .. "graph launches (input copies, sampling, scheduling; overlap it with the GPU) and capture the kernels still "
      .. "launched one by one."
    commands = {}
    confidence = 0.3
  end
  -- The lag the facts called vertical (dispatch.step_class's vertical_lag_ns when they were measured).
  local th = facts.dispatch.thresholds or {}
  local within = th.vertical_lag_ns and string.format("within %g us of the host call", th.vertical_lag_ns / 1e3)
    or "vertically"
  emit {
    observed = string.format("%d of %d steps are launch-bound: the GPU idled %.3f ms per step waiting for launches "
      .. "(worst step %s: %.3f ms, %.0f%% of launches started %s, median launch lag %.1f us)%s.",
      hb, n, idle / n / 1e6, steplib.label(worst.id), (worst.host_bound_free_ns or 0) / 1e6, 100 * (worst.vertical_share or 0), within,
      (worst.lag_p50_ns or 0) / 1e3, kernels),
    why = "Each kernel costs microseconds of host time to launch; when kernels are shorter than that the GPU waits on the CPU.",
    action = action,
    commands = commands,
    saving_ns = p.factor * idle / n,
    saving_formula = string.format("%.2f x host-bound idle of %d host-bound steps / %d steps", p.factor, hb, n),
    confidence = confidence,
    whatif = whatif,
    evidence = ev,
  }
end
