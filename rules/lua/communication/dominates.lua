-- More communication than computation: overlap alone cannot hide it.
rule {
  id = "communication.dominates",
  title = "Communication takes longer than computation",
  category = "communication",
  severity = "high",
  needs = { "overall.comm_not_overlapped_ns", "overall.communication_ns", "overall.computing_ns",
            "overall.overlapped_ns", "overall.steps" },
  params = {
    ratio = { default = 1.5, min = 0, doc = "reported when communication is at least this many times computing" },
    factor = { default = 0.3, min = 0, max = 1, doc = "share of the exposed communication overlap cannot hide the fix recovers" },
  },
  doc = [[
Why: when the collectives take longer than all the computation of the step, even perfect
overlap leaves (communication - computation) exposed: the job is communication-bound and only
less traffic, faster links, or waiting less for other ranks helps. Communication time also
includes the time a rank waits in a collective for slower ranks, so compare ranks first.

How it is measured (overall, docs/overlap.md): communication (union of the collectives) against
computing (union of the compute tasks). Reported when communication >= `ratio` x
computing.

Saving per step = `factor` x (not-overlapped communication - what overlap could still hide,
min(not-overlapped, computing - overlapped)) / number of steps: the exposed communication left
after the best possible overlap (communication.not_overlapped claims the rest), of which a
tuning round typically recovers a part. Confidence 0.3.
Optional reads: collectives.total.cause (quiet when "idle" or "wait"), operators.communication (the largest collectives),
input.path (the job folder, named in the text: analyze it to compare the ranks), job.training.
Commands fit the job: GPU runs get NCCL's topology log (NCCL_DEBUG), Ascend runs the NPU link
topology (npu-smi info -t topo); the traffic advice is training's (gradient accumulation, bf16
gradients, ZeRO; MindSpore: fused allreduces) unless the job is known to be inference, which is
told to keep tensor/expert parallelism inside a node and batch more per collective.
]],
}

local collectives = require "lib.collectives"
local run = require "lib.run"

function check(facts, p, emit)
  local o = facts.overall
  -- Collectives that mostly wait for a peer or sit stalled are not helped by less traffic:
  -- communication.long_collective names their cause (and claims that time).
  if collectives.mostly_waiting(facts) then return end
  if o.computing_ns <= 0 or o.communication_ns < p.ratio * o.computing_ns then return end
  local n = o.steps > 0 and o.steps or 1
  local exposed = math.max(0, o.comm_not_overlapped_ns - collectives.hideable_ns(o))
  local ops, ev = collectives.top(facts, 4)
  ev[#ev + 1] = { fact = "overall.communication_ns", value = o.communication_ns }
  ev[#ev + 1] = { fact = "overall.computing_ns", value = o.computing_ns }
  local observed = string.format("Communication %.3f ms vs computing %.3f ms per step (%.2fx); %.3f ms per step stays exposed even with perfect overlap",
    o.communication_ns / n / 1e6, o.computing_ns / n / 1e6, o.communication_ns / o.computing_ns, exposed / n / 1e6)
  if #ops > 0 then observed = observed .. "; largest collectives in the kernel table: " .. table.concat(ops, ", ") end
  -- Compare the ranks: the whole job is the folder around this run (named in the text; the
  -- commands are the links' own).
  local job = run.job_dir(facts)
  local gpu = facts.run and facts.run.platform == "gpu"
  local cmds = gpu and { "export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH   # then rerun: the log shows the rings/trees "
      .. "and transports NCCL chose" }
    or { "npu-smi info -t topo   # the links between the NPUs (HCCS, PCIe) on each node" }
  local compare = "First compare ranks (a slow rank makes the others wait inside collectives: "
    .. (job and ("`npu-advisor analyze " .. job .. "` shows every rank of the job side by side). ")
      or "analyze the job folder, every rank side by side). ")
  local action = compare .. "Then cut traffic: larger micro-batches or gradient accumulation (fewer allreduces "
    .. "per sample), bf16 gradients, ZeRO-1/2 instead of ZeRO-3, less tensor parallelism across nodes; check link "
    .. "bandwidth (slow links, RDMA/HCCS/NVLink)."
  if run.inference(facts) then
    -- No gradients: what moves is the parallel layers' activations.
    action = compare .. "Then cut traffic: keep tensor and expert parallelism inside a node (" .. (gpu and "NVLink" or "HCCS")
      .. "), batch more requests per forward pass so each collective moves more per call, and check link bandwidth."
  elseif run.is_mindspore(facts) then
    action = compare .. "Then cut traffic: gradient accumulation or larger micro-batches (fewer allreduces "
      .. "per sample), fp16/bf16 gradients (mixed precision), fewer and larger fused allreduces (comm_fusion), less "
      .. "model parallelism across nodes; check link bandwidth (slow links, RDMA/HCCS)."
  end
  emit {
    observed = observed .. ".",
    why = "More time goes to collectives (or to waiting in them for other ranks) than to computing; overlap cannot hide the difference.",
    action = action,
    commands = cmds,
    saving_ns = p.factor * exposed / n,
    saving_formula = string.format("%.2f x (not-overlapped comm - min(not-overlapped, computing - overlapped)) / %d steps", p.factor, n),
    confidence = 0.3,
    evidence = ev,
  }
end
