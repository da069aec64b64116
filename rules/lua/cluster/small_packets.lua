-- Many communication operators move too little data to reach the link's bandwidth.
rule {
  id = "cluster.small_packets",
  title = "Many small communication transfers",
  category = "cluster",
  severity = "low",
  needs = { "cluster.communication" },
  params = {
    ratio = { default = 0.2, min = 0, max = 1, doc = "reported when more than this share of the operators are small packets" },
  },
  doc = [[
Why: every transfer pays a fixed start-up cost; small ones never reach line rate, so many small
collectives spend more time per byte than a few large ones.

How it is measured (facts.cluster.small_packets), as the reference advisor's packet analysis:
among the operators that used a transport, those whose transfer is below 16 MB (SDMA) or 1 MB
(RDMA). Reported when they are more than `ratio` of the operators.

Saving: not estimated (it depends on how far the transfers can be merged). Confidence 0.3.
The advice fits the transfers: gradient buckets and fused allreduces for collectives (in the
job's framework: DDP buckets and ZeRO for torch, comm_fusion for MindSpore); when every example
is a point-to-point send/receive (pipeline stages exchanging activations), larger micro-batches
instead, since no bucket setting touches those.
]],
}

local run = require "lib.run"

function check(facts, p, emit)
  for _, s in ipairs(facts.cluster.small_packets or {}) do
    if s.small_ratio > p.ratio then
      local ex = {}
      for i, e in ipairs(s.examples or {}) do
        if i > 4 then break end
        ex[#ex + 1] = e.name
      end
      -- Point-to-point only (pipeline activations): buckets and allreduce fusion do not apply.
      local p2p = #ex > 0
      for _, name in ipairs(ex) do
        local n = string.lower(name)
        if not (string.find(n, "send", 1, true) or string.find(n, "recv", 1, true) or string.find(n, "receive", 1, true)) then
          p2p = false
        end
      end
      local action = run.is_mindspore(facts)
        and ("Send fewer, larger messages: fuse gradient allreduces into larger groups (comm_fusion / "
          .. "all_reduce_fusion_config), gradient accumulation or a larger micro-batch (data parallel).")
        or ("Send fewer, larger messages: larger DDP buckets (bucket_cap_mb), gradient accumulation or a larger "
          .. "micro-batch (data parallel), ZeRO-1/2 instead of ZeRO-3, fused optimizers that communicate once per step.")
      if p2p then
        action = "These are point-to-point transfers between pipeline stages (activations and their gradients): send "
          .. "fewer, larger ones with larger micro-batches (fewer, bigger micro-batches per step), or fewer pipeline stages."
      end
      emit {
        observed = string.format("%d of %d %s transfers (%.0f%%) are below %g MB, %.3f ms of transit in all%s.",
          s.small_ops, s.ops, s.transport, 100 * s.small_ratio, s.threshold_mb, s.small_time_ns / 1e6,
          #ex > 0 and ("; e.g. " .. table.concat(ex, ", ")) or ""),
        why = "Small transfers pay the start-up cost without reaching the link's bandwidth.",
        action = action,
        commands = {},
        saving_ns = 0,
        saving_formula = "not estimated",
        confidence = 0.3,
        evidence = { { fact = "cluster.small_packets[" .. s.transport .. "].small_ratio", value = s.small_ratio } },
      }
    end
  end
end
