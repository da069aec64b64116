-- A transport moves data well below its standard bandwidth.
rule {
  id = "cluster.bandwidth",
  title = "Communication bandwidth below the link's standard",
  category = "cluster",
  severity = "medium",
  needs = { "cluster.bandwidth" },
  params = {
    utilization = { default = 0.8, min = 0, max = 1, doc = "reported when a transport reaches less than this share of its standard bandwidth" },
    large_packet_ratio = { default = 0.8, min = 0, max = 1, doc = "below this share of the data in large packets the cause is small packets, else the link" },
    min_size_mb = { default = 10.0, min = 0, doc = "a transport must have moved at least this many MB to be judged" },
    standard_hccs_gbps = { default = 18.0, min = 0, doc = "the standard HCCS bandwidth, GB/s (msProf v2.1.0; 28 on newer hardware)" },
    standard_sdma_gbps = { default = 18.0, min = 0, doc = "the standard SDMA bandwidth, GB/s (held to the HCCS value)" },
    standard_pcie_gbps = { default = 20.0, min = 0, doc = "the standard PCIe bandwidth, GB/s" },
    standard_rdma_gbps = { default = 12.5, min = 0, doc = "the standard RDMA bandwidth, GB/s (25 on newer hardware, msProf v4.1.0)" },
  },
  doc = [[
Why: when a transport's achieved bandwidth is far below what the link can do, communication
takes longer than it must: either the transfers are too small to reach line rate, or the link
is misconfigured or shared.

How it is measured (facts.cluster.bandwidth): per transport, total transit size / total transit
time over all operators and ranks (MB/ms = GB/s), against the standard bandwidth: HCCS 18,
PCIe 20, RDMA 12.5 GB/s (msProf's v2.1.0 constants; set `standard_hccs_gbps=28`,
`standard_rdma_gbps=25` for newer hardware, msProf v4.1.0), SDMA held to the HCCS value.
Reported when utilisation < `utilization` and the transport moved at least `min_size_mb`.
SDMA is the sum of the intra-node links (HCCS, PCIe, SIO): where it is listed, it is judged and
its links are not, so one slow transfer is never reported twice (as msProf judges SDMA and RDMA).
As msProf does, the large-packet ratio decides the cause: below `large_packet_ratio` the
transfers are small (see cluster.small_packets); otherwise blame the link (HCCS configuration,
PCIe contention, the RDMA switch).

Saving per step = (transit time - size / (utilization x standard)) / steps. Confidence 0.3.
Commands fit the cause: small transfers get none (merging them is a code change, the action); a
slow link gets its own check: the NPU link topology for the intra-node transports (HCCS, SDMA,
PCIe), the RDMA port counters (hccn_tool) for RDMA.
]],
}

local steplib = require "lib.steps"
local run = require "lib.run"

function check(facts, p, emit)
  local standard = { HCCS = p.standard_hccs_gbps, SDMA = p.standard_sdma_gbps, PCIE = p.standard_pcie_gbps, RDMA = p.standard_rdma_gbps }
  local steps = steplib.cluster_count(facts)
  local has_sdma = false
  for _, b in ipairs(facts.cluster.bandwidth) do
    if b.transport == "SDMA" then has_sdma = true end
  end
  local in_sdma = { HCCS = true, PCIE = true, SIO = true }
  for _, b in ipairs(facts.cluster.bandwidth) do
    local std = standard[b.transport]
    if has_sdma and in_sdma[b.transport] then std = nil end
    if std and b.size_mb >= p.min_size_mb and b.gbps < p.utilization * std then
      local cause
      if b.large_packet_ratio < p.large_packet_ratio then
        cause = string.format("only %.0f%% of the data went in large packets: the transfers are too small to reach line rate", 100 * b.large_packet_ratio)
      else
        cause = string.format("%.0f%% of the data went in large packets, so the link itself is slow", 100 * b.large_packet_ratio)
      end
      -- Small transfers: the link is fine, merging them is the fix; a slow link: its own check.
      local cmds = {}
      if b.large_packet_ratio >= p.large_packet_ratio then
        cmds = { b.transport == "RDMA" and "hccn_tool -i 0 -stat -g   # RDMA port errors of device 0; repeat for each device"
          or "npu-smi info -t topo   # the links between the NPUs of a node (HCCS, PCIe)" }
      end
      local worst
      for _, r in ipairs(b.per_rank or {}) do
        if r.size_mb > 0 and (worst == nil or r.gbps < worst.gbps) then worst = r end
      end
      emit {
        observed = string.format("%s moved %.1f MB at %.2f GB/s, %.0f%% of its standard %.1f GB/s (%d operators)%s; %s.",
          b.transport, b.size_mb, b.gbps, 100 * b.gbps / std, std, b.ops,
          worst and string.format("; slowest rank %d at %.2f GB/s", worst.rank, worst.gbps) or "", cause),
        why = "Communication takes longer than the link allows.",
        action = b.large_packet_ratio < p.large_packet_ratio
          and (run.is_mindspore(facts)
            and "Merge transfers (fewer, larger fused allreduces: comm_fusion / all_reduce_fusion_config; gradient accumulation) so they reach line rate."
            or "Merge transfers (larger DDP buckets, gradient accumulation, ZeRO-1/2) so they reach line rate.")
          or (b.transport == "RDMA" and "Check the RDMA network: NIC port errors and retransmissions (hccn_tool), switch and PFC/ECN settings."
            or "Check the link: HCCS configuration (npu-smi info -t topo), PCIe contention with other devices."),
        commands = cmds,
        saving_ns = math.max(0, b.time_ns - b.size_mb / (p.utilization * std) * 1e6) / steps,
        saving_formula = string.format("(transit time - size / (%.2f x %.1f GB/s)) / %d steps", p.utilization, std, steps),
        confidence = 0.3,
        evidence = { { fact = "cluster.bandwidth[" .. b.transport .. "].gbps", value = b.gbps } },
      }
    end
  end
end
