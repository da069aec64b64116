-- RDMA transfers that took seconds: packets were lost and retransmitted.
rule {
  id = "cluster.retransmission",
  title = "RDMA retransmission",
  category = "cluster",
  severity = "high",
  needs = { "cluster.communication" },
  params = {},
  doc = [[
Why: an RDMA transfer that takes seconds means lost packets and retransmission timeouts on the
network, not slow ranks.

How it is measured (facts.cluster.retransmission), as the reference advisor: for one operator,
every rank spent at least 4 s in it (so it is not a rank arriving late) and some rank's RDMA
transit time is above 4 s. Saving: the time above 4 s is not estimated. Confidence 0.6.
The command reads the RDMA counters where the retransmission was seen: on the nodes of the
ranks the operator names, for each of their devices.
]],
}

local collectives = require "lib.collectives"

function check(facts, p, emit)
  for _, r in ipairs(facts.cluster.retransmission or {}) do
    emit {
      observed = string.format("%s (group %s, step %s): RDMA transit up to %.3f s on ranks %s while every rank spent at least %.3f s in it.",
        r.name, collectives.group_label(facts, r.group), tostring(r.step), r.max_rdma_transit_ns / 1e9, table.concat(r.ranks, ","), r.min_elapse_ns / 1e9),
      why = "Seconds-long RDMA transfers come from packet loss and retransmission timeouts on the network.",
      action = "Check the RDMA NICs and switch: error and retransmission counters, PFC/ECN configuration, cabling.",
      commands = { "hccn_tool -i 0 -stat -g   # on the nodes of ranks " .. table.concat(r.ranks, ",")
        .. ": RDMA error and retransmission counters of device 0; repeat for each device" },
      saving_ns = 0,
      saving_formula = "not estimated",
      confidence = 0.6,
      evidence = { { fact = "cluster.retransmission", value = r.name } },
    }
  end
end
