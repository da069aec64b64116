-- Communication that computation does not hide adds to the step time.
rule {
  id = "communication.not_overlapped",
  title = "Communication is not overlapped with computation",
  category = "communication",
  severity = "medium",
  needs = { "overall.comm_not_overlapped_ns", "overall.communication_ns", "overall.computing_ns",
            "overall.overlapped_ns", "overall.device_time_ns", "overall.steps", "steps" },
  params = {
    min_share = { default = 0.02, min = 0, max = 1, doc = "reported when not-overlapped communication is at least this share of the device time" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the communication overlap could still hide that the fix recovers" },
  },
  doc = [[
Why: a collective (allreduce of gradients, allgather of parameters, ...) that runs while no
computation runs is pure step time. Data-parallel training overlaps the gradient allreduce
with the rest of the backward; what is left exposed is typically the last gradient bucket,
which has no backward left to hide behind, or collectives issued synchronously.

How it is measured (overall / steps[], docs/overlap.md): Communication(Not Overlapped) =
communication time minus computing time, per step, exactly as the profiler's
step_trace_time.csv. Reported when it is at least `min_share` of the device time.

Saving per step = `factor` x min(not-overlapped communication, computing time not yet
covering any communication (computing - overlapped)) / number of steps: communication can only
hide behind computation that exists, and reordering rarely hides all of it. The rest (more
communication than computation can cover) is communication.dominates' share, so the two
findings do not count the same time. Confidence 0.4.
Optional reads: collectives.total.cause (quiet when "idle" or "wait"), operators.communication (the largest collectives, for the evidence),
job.training, job.data_parallel.
Commands fit the job (facts.job): a DDP job gets DDP's buckets, an FSDP job FSDP's prefetch, a
job whose wrapper is not recorded both DDP's buckets and Megatron/MindSpeed's overlap flags;
MindSpore its allreduce fusion groups. Gradient overlap is training's: a job known to be
inference is told to overlap the parallel layers' collectives with computation, with no command.
]],
}

local sname = util.step_name  -- "(none)" for a step without id (docs/rules.md)
local collectives = require "lib.collectives"
local evidence = require "lib.evidence"
local run = require "lib.run"

function check(facts, p, emit)
  local o = facts.overall
  -- Collectives that mostly wait for a peer or sit stalled are not helped by more overlap:
  -- communication.long_collective names their cause (and claims that time).
  if collectives.mostly_waiting(facts) then return end
  if o.communication_ns <= 0 or o.device_time_ns <= 0 then return end
  local share = o.comm_not_overlapped_ns / o.device_time_ns
  if share < p.min_share then return end
  local n = o.steps > 0 and o.steps or 1
  local hideable = collectives.hideable_ns(o)
  local worst, worst_share = nil, -1
  for _, s in ipairs(facts.steps) do
    if s.device_time_ns and s.device_time_ns > 0 and s.comm_not_overlapped_ns then
      local r = s.comm_not_overlapped_ns / s.device_time_ns
      if r > worst_share then worst, worst_share = s, r end
    end
  end
  local ops, ev = collectives.top(facts, 3)
  if worst then evidence.add(ev, worst.evidence) end
  ev[#ev + 1] = { fact = "overall.comm_not_overlapped_ns", value = o.comm_not_overlapped_ns }
  local observed = string.format("%.3f ms of %.3f ms communication per step is not overlapped (%.0f%% of it; %.1f%% of device time)",
    o.comm_not_overlapped_ns / n / 1e6, o.communication_ns / n / 1e6, 100 * o.comm_not_overlapped_ns / o.communication_ns, 100 * share)
  if worst then
    observed = observed .. string.format("; worst step %s at %.3f ms (%.1f%%)", sname(worst.id), worst.comm_not_overlapped_ns / 1e6, 100 * worst_share)
  end
  if #ops > 0 then observed = observed .. "; largest collectives: " .. table.concat(ops, ", ") end
  local action = "Start gradient communication earlier and in smaller pieces: smaller DDP buckets (the last bucket is "
      .. "exposed), Megatron/MindSpeed --overlap-grad-reduce and --overlap-param-gather, FSDP backward/forward "
      .. "prefetch; avoid synchronous collectives (async_op=False) inside the step."
  local cmds = {
      "model = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=10, gradient_as_bucket_view=True)",
      "--overlap-grad-reduce --overlap-param-gather",
  }
  local dp = run.job(facts).data_parallel
  if run.inference(facts) then
    -- No gradients to overlap: what is exposed is the parallel layers' collectives.
    action = "No backward pass hides communication in inference: overlap the tensor/expert-parallel collectives with "
      .. "computation (fused matmul + collective kernels, splitting the batch so one part computes while another "
      .. "communicates), keep tensor parallelism inside a node, and avoid synchronous collectives in the forward pass."
    cmds = {}
  elseif run.is_mindspore(facts) then
    -- MindSpore fuses gradient allreduces itself: the fusion groups set how early they start.
    action = "Split the gradient allreduce into fused groups that start during the backward pass (MindSpore's "
      .. "all_reduce_fusion_config / comm_fusion), so only the last group is exposed; in graph mode keep the "
      .. "communication on its own stream (the default) and avoid synchronous ops between them."
    cmds = { "mindspore.set_auto_parallel_context(comm_fusion={\"allreduce\": {\"mode\": \"size\", \"config\": 32}})" }
  elseif dp == "fsdp" then
    -- FSDP overlaps by prefetching the next unit's parameters, not by buckets.
    action = "Start communication earlier: FSDP's backward and forward prefetch gather the next unit's parameters while "
      .. "this one computes; avoid synchronous collectives (async_op=False) inside the step."
    cmds = { "model = FSDP(model, backward_prefetch=BackwardPrefetch.BACKWARD_PRE, forward_prefetch=True)" }
  elseif dp == "ddp" then
    action = "Start gradient communication earlier and in smaller pieces: smaller DDP buckets (the last bucket is "
      .. "exposed); avoid synchronous collectives (async_op=False) inside the step."
    cmds = { cmds[1] }
  end
  emit {
    observed = observed .. ".",
    why = "While a collective runs alone the compute units idle; overlapped, it would cost nothing.",
    action = action,
    commands = cmds,
    saving_ns = p.factor * hideable / n,
    saving_formula = string.format("%.2f x min(not-overlapped comm, computing - overlapped) / %d steps", p.factor, n),
    confidence = 0.4,
    evidence = ev,
  }
end
