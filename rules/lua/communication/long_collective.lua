-- One collective takes a large part of the step: say why (moving data, waiting for a peer, or
-- stalled with nothing moving) and give the fix that matches the cause.
rule {
  id = "communication.long_collective",
  title = "A collective takes a large part of the step",
  category = "communication",
  severity = "high",
  needs = { "collectives.ops", "collectives.steps" },
  params = {
    min_share = { default = 0.1, min = 0, max = 1, doc = "the collective must take at least this share of the median device step" },
    min_ns = { default = 1e6, min = 0, doc = "... and at least this long, ns" },
    factor_stall = { default = 0.5, min = 0, max = 1, doc = "share of the exposed time recovered when the cause is wait or idle" },
    factor_transit = { default = 0.3, min = 0, max = 1, doc = "share recovered when the cause is transit" },
  },
  doc = [[
Why: the tuning guide's second communication problem is a single communication operator that
runs far too long. What helps depends on where its time goes, which the profiler measures per
operator (communication.json "Communication Time Info", facts.collectives): transit (data
moving), wait (the rank is ready, a peer is not; synchronisation is the part before the first
transfer) and idle (the operator has started but nothing moves: a stall). Cutting traffic cannot
help an operator that is mostly waiting or idle.

How it is measured (facts.collectives, docs/facts-collectives.md): the longest operator;
reported when it takes at least `min_share` of the median device step and `min_ns`. The cause
is the largest of transit / wait / idle when it is at least half the elapsed
time. Beside it: the part no computation hides (exposed), the longest Notify Wait on an HCCL
plane inside it, and a host call blocked on the device at the same time (aclrtSynchronizeStream
from aten::item = `.item()`).

Advice: idle -> a stalled collective: remove the per-step host sync that holds the next work
back (the command finds the host reads, in the job's framework), check stream dependencies;
wait -> a peer arrives late: analyze the whole job (its parent folder, named in the text) to
find the late rank; transit -> traffic and bandwidth (measured GB/s per transport). The traffic
advice fits the job (facts.job): bf16 gradients, buckets and gradient accumulation are
training's, with the bf16 gradient hook as the command only for a DDP job (data_parallel ddp);
a job known to be inference is told to keep tensor/expert parallelism inside a node and batch
more per collective. No command sends the user back to this tool.

Saving per step = factor x min(exposed, the cause's time) / steps: `factor_stall` for wait
and idle (time in which nothing moves), `factor_transit` for transit. Confidence 0.5 (idle,
wait), 0.3 (transit, mixed). communication.dominates and communication.not_overlapped stay quiet
when the collectives are mostly waiting or idle, so the exposed time is not counted twice.
Optional reads: overall.device_time_ns, overall.steps, steps (the operator's own step), communication.ops (bandwidth), input.path.
]],
}

local sname = util.step_name
local run = require "lib.run"
local collectives = require "lib.collectives"
local ms = function(ns) return string.format("%.3f ms", ns / 1e6) end

function check(facts, p, emit)
  local c = facts.collectives
  local op = c.ops[1]
  if not op then return end
  local n = c.steps > 0 and c.steps or 1
  local o = facts.overall
  local step = (o and o.device_time_ns and o.steps and o.steps > 0) and o.device_time_ns / o.steps or nil
  -- Against the operator's own step when the steps are known (a warm-up step is longer).
  for _, s in ipairs(facts.steps or {}) do
    if s.id ~= nil and s.id == op.step and s.device_time_ns and s.device_time_ns > 0 then step = s.device_time_ns break end
  end
  if op.elapse_ns < p.min_ns then return end
  if step and op.elapse_ns < p.min_share * step then return end

  local cause = op.cause or "unknown"
  local parts = {}
  if op.transit_ns then
    local function share(x) return string.format("%.0f%%", 100 * x / op.elapse_ns) end
    parts[#parts + 1] = string.format("idle %s (%s)", ms(op.idle_ns), share(op.idle_ns))
    parts[#parts + 1] = string.format("wait %s (%s; synchronisation %s)", ms(op.wait_ns), share(op.wait_ns), ms(op.sync_ns))
    parts[#parts + 1] = string.format("transit %s (%s)", ms(op.transit_ns), share(op.transit_ns))
  end
  local observed = string.format("%s (%s) in step %s takes %s", op.name,
    op.group ~= "" and collectives.group_label(facts, op.group) or "group ?",
    sname(op.step), ms(op.elapse_ns))
  if step then observed = observed .. string.format(" of a %s step", ms(step)) end
  if #parts > 0 then observed = observed .. ": " .. table.concat(parts, ", ") end
  if op.exposed_ns then observed = observed .. string.format("; %s of it is exposed (no computation hides it)", ms(op.exposed_ns)) end
  if op.notify_wait then
    observed = observed .. string.format("; the longest Notify Wait inside it is %s on %s", ms(op.notify_wait.dur_ns), op.notify_wait.plane)
  end
  if op.host_blocked then
    observed = observed .. string.format("; meanwhile the host is blocked %s in %s%s", ms(op.host_blocked.overlap_ns),
      op.host_blocked.name, op.host_blocked.caller and (" (from " .. op.host_blocked.caller .. ")") or "")
  end

  local ev = {}
  for _, e in ipairs(op.evidence) do ev[#ev + 1] = e end
  if op.notify_wait then for _, e in ipairs(op.notify_wait.evidence) do ev[#ev + 1] = e end end
  if op.host_blocked then for _, e in ipairs(op.host_blocked.evidence) do ev[#ev + 1] = e end end

  local job = run.job_dir(facts)  -- in a job, the folder of every rank
  local exposed = op.exposed_ns or op.elapse_ns
  local why, action, cmds, saving, confidence
  if cause == "idle" then
    why = "The collective has started but nothing moves for most of it: it is stalled, not slow. Less traffic would not shorten it."
    action = "Find what it waits on. A host call that blocks on the device each step (" ..
      (op.host_blocked and op.host_blocked.caller or "`.item()`, `.cpu()`, printing a tensor") ..
      ") keeps the next work from being queued while the collective waits for its peer: move such reads out of " ..
      "the step or do them every N steps. Then check stream dependencies (an event the communication stream waits on) " ..
      "and, on a first step, HCCL connection setup (warm up before profiling)."
    cmds = { run.is_mindspore(facts) and "grep -rnE '\\.asnumpy\\(\\)|\\.item\\(\\)' --include='*.py' ."
      or "grep -rnE '\\.item\\(\\)|\\.cpu\\(\\)|\\.tolist\\(\\)|\\.numpy\\(\\)' --include='*.py' ." }
    if job then action = action .. " Does a peer stall too? `npu-advisor analyze " .. job .. "` shows every rank of the job." end
    saving, confidence = p.factor_stall * math.min(exposed, op.idle_ns + op.wait_ns) / n, 0.5
  elseif cause == "wait" then
    why = "The rank reached the collective early and waits for a peer: the cost is on another rank (a slower step, a data-loading stall, a straggler node), not in the link."
    action = "Look at the other ranks of this group: the late one is the rank with the least wait in this operator. " ..
      "Analyze the whole job to name it and see its own causes" ..
      (job and (": `npu-advisor analyze " .. job .. "`.") or ".")
    cmds = {}
    saving, confidence = p.factor_stall * math.min(exposed, op.wait_ns) / n, 0.5
  else
    local bw = {}
    local comm = facts.communication
    if comm and comm.ops then
      for _, r in ipairs(comm.ops) do
        if r.name == op.name and r.bandwidth then
          for tr, b in pairs(r.bandwidth) do bw[#bw + 1] = string.format("%s %.1f GB/s over %.1f MB", tr, b.gbps, b.size_mb) end
          break
        end
      end
    end
    if #bw > 0 then observed = observed .. "; measured " .. table.concat(bw, ", ") end
    why = cause == "transit" and "Most of the collective's time is data moving: its size or the links' bandwidth set its length."
      or "Its time is split between moving data, waiting and idling; no single cause dominates."
    -- The links to compare with: the NPU's, or a GPU's (NCCL operators have no split, so "mixed"/"unknown").
    local links = (facts.run and facts.run.platform == "gpu") and "the link (NVLink, PCIe, InfiniBand)"
      or "the link (HCCS ~18, PCIe ~20, RDMA ~12.5 GB/s)"
    action = "Send less or faster: bf16 gradients, larger DDP buckets (fewer, larger transfers), gradient accumulation, " ..
      "less tensor parallelism across nodes; compare the measured GB/s with " .. links .. "."
    cmds = {}
    if run.inference(facts) then
      -- No gradients: what moves is the parallel layers' activations.
      action = "Send less or faster: keep tensor and expert parallelism inside a node, batch more requests per forward " ..
        "pass (fewer, larger transfers); compare the measured GB/s with " .. links .. "."
    elseif run.is_mindspore(facts) then
      action = "Send less or faster: fp16/bf16 gradients (mixed precision), fewer and larger fused allreduces (comm_fusion / " ..
        "all_reduce_fusion_config), gradient accumulation, less model parallelism across nodes; compare the measured GB/s " ..
        "with the link (HCCS ~18, PCIe ~20, RDMA ~12.5 GB/s)."
    elseif run.job(facts).data_parallel == "ddp" then
      -- A DDP job halves its gradient traffic with the bf16 compression hook.
      cmds = { "model.register_comm_hook(None, torch.distributed.algorithms.ddp_comm_hooks.default_hooks.bf16_compress_hook)" }
    end
    if job then action = action .. " The bandwidth of every link across the ranks: `npu-advisor analyze " .. job .. "`." end
    saving, confidence = p.factor_transit * math.min(exposed, op.transit_ns or exposed) / n, 0.3
  end
  emit {
    title = (cause == "idle" or cause == "wait" or cause == "transit")
      and string.format("%s is mostly %s", op.name, cause == "idle" and "idle (stalled)" or cause == "wait" and "waiting for a peer"
        or "moving data")
      or string.format("%s takes %s of step %s", op.name, ms(op.elapse_ns), sname(op.step)),
    observed = observed .. ".",
    why = why,
    action = action,
    commands = cmds,
    saving_ns = saving,
    saving_formula = string.format("%.1f x min(exposed, %s time) / %d steps", cause == "transit" and p.factor_transit or p.factor_stall,
      cause, n),
    confidence = confidence,
    evidence = ev,
    data = { name = op.name, step = op.step, cause = cause, elapse_ns = op.elapse_ns },
  }
end
