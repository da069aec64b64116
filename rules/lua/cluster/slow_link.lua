-- One link is much slower than the other links of its transport.
rule {
  id = "cluster.slow_link",
  title = "Slow link between two ranks",
  category = "cluster",
  severity = "medium",
  needs = { "cluster.links.list" },
  params = {
    ratio = { default = 0.5, min = 0, max = 1, doc = "reported when a link reaches less than this share of its transport's median bandwidth" },
    min_size_mb = { default = 1.0, min = 0, doc = "a link must have carried at least this many MB to be judged" },
    min_links = { default = 3, min = 1, doc = "the transport must have at least this many links" },
  },
  doc = [[
Why: in a ring or tree collective every rank waits for the slowest hop. A link that moves data
at a fraction of the speed of the other links of the same transport (a degraded HCCS lane, a
PCIe link at lower width, an RDMA port with errors, a congested switch port) slows every
collective that crosses it.

How it is measured (facts.cluster.links, from communication_matrix.json of each rank or
cluster_communication_matrix.json): per (src, dst, transport), total transit size / total
transit time over all operators (LOCAL and src = dst excluded). Reported when a link's bandwidth
is below `ratio` x the median of its transport, it carried at least `min_size_mb` (tiny
transfers never reach line rate) and the transport has at least `min_links` links.

Saving per step = (the link's time - its size at the median bandwidth) / number of steps, at
most the largest communication-not-overlapped per step of a rank (links work in parallel).
Confidence 0.4: a hop's delay only partly shows in the step.
Commands fit the slow links' transports: the NPU link topology (npu-smi) for intra-node links
(HCCS, PCIe, SIO, SDMA), the RDMA port counters (hccn_tool, on the source rank's node) for RDMA.
]],
}

local evidence = require "lib.evidence"
local steplib = require "lib.steps"

function check(facts, p, emit)
  local l = facts.cluster.links
  local counts = {}
  for _, x in ipairs(l.list) do counts[x.transport] = (counts[x.transport] or 0) + 1 end
  local steps = steplib.cluster_count(facts)
  local slow, ev, saving = {}, {}, 0
  local rdma, local_link = nil, false  -- which checks the slow links need
  for _, x in ipairs(l.list) do
    local med = l.median_gbps[x.transport] or 0
    if (counts[x.transport] or 0) >= p.min_links and x.size_mb >= p.min_size_mb and med > 0 and x.gbps < p.ratio * med then
      slow[#slow + 1] = string.format("%d->%d %s %.2f GB/s (%.2fx the median %.2f GB/s, %.1f MB in %.3f ms)",
        x.src, x.dst, x.transport, x.gbps, x.gbps / med, med, x.size_mb, x.time_ns / 1e6)
      saving = saving + math.max(0, x.time_ns - x.size_mb / med * 1e6)
      evidence.add(ev, x.evidence, 1)
      if x.transport == "RDMA" then rdma = rdma or x.src else local_link = true end
    end
  end
  if #slow == 0 then return end
  -- A link cannot cost more than the exposed communication of the rank that has the most.
  local cap = 0
  for _, r in ipairs(facts.cluster.ranks or {}) do
    cap = math.max(cap, r.comm_not_overlapped_per_step_ns or 0)
  end
  local cmds = {}
  if local_link then cmds[#cmds + 1] = "npu-smi info -t topo   # the links between the NPUs of a node" end
  if rdma then
    cmds[#cmds + 1] = string.format("hccn_tool -i 0 -stat -g   # on rank %d's node: RDMA port errors (device 0; repeat "
      .. "for its device)", rdma)
  end
  local per_step = saving / steps
  if cap > 0 and per_step > cap then per_step = cap end
  emit {
    observed = string.format("%d slow link%s: %s.", #slow, #slow == 1 and "" or "s", table.concat(slow, "; ", 1, math.min(#slow, 5))),
    why = "Collectives move at the pace of their slowest hop; one degraded link slows every operator that crosses it.",
    action = "Check the link between those ranks: " .. (local_link and "HCCS lanes (npu-smi info -t topo), PCIe width and speed"
      or "") .. ((local_link and rdma) and ", " or "") .. (rdma and "RDMA port errors and switch counters (hccn_tool -i DEVICE "
      .. "-stat -g)" or "") .. "; rerun to see whether the same pair is slow.",
    commands = cmds,
    saving_ns = per_step,
    saving_formula = "(link time - link size / transport median bandwidth) / steps, at most the largest exposed communication per step of a rank",
    confidence = 0.4,
    evidence = ev,
  }
end
