-- HCCL tuning variables override the library's own choices, often for the worse.
rule {
  id = "environment.hccl_overrides",
  title = "HCCL algorithm or traffic-class overrides are set",
  category = "environment",
  severity = "medium",
  needs = { "run.env" },
  platforms = { "ascend" },
  doc = [[
HCCL_ALGO forces a collective algorithm instead of HCCL's per-topology choice; HCCL_RDMA_TC
and HCCL_RDMA_SL override the RoCE traffic class / service level, which must match the
switch configuration (DSCP/priority). Left over from experiments they can slow communication.
The reference advisor flags all three.

Fix: unset them unless measured to help on this cluster; for RDMA TC/SL, align them with the
network team's DSCP/PFC configuration. A run on one device (world size 1 in run.distributed, or,
without it, no communication in the step breakdown) runs no collective: the variables do nothing
there and the rule stays quiet.
Optional reads: run.distributed.world_size, overall.communication_ns.
]],
}

-- Whether the run is one process on one device, so no collective runs: world size 1, or
-- (world size not recorded) a step breakdown without any communication.
local function single_device(facts)
  local w = tonumber(facts.run.distributed and facts.run.distributed.world_size)
  if w then return w == 1 end
  return facts.overall ~= nil and facts.overall.communication_ns == 0
end

function check(facts, p, emit)
  -- One device runs no collective: HCCL's choices do not matter to it.
  if single_device(facts) then return end
  local env = facts.run.env
  local set = {}
  for _, name in ipairs({ "HCCL_ALGO", "HCCL_RDMA_TC", "HCCL_RDMA_SL" }) do
    local v = env[name]
    if v ~= nil and v ~= "" then set[#set + 1] = name .. "=" .. v end
  end
  if #set == 0 then return end
  local cmds = {}
  for _, kv in ipairs(set) do cmds[#cmds + 1] = "unset " .. kv:match("^[^=]+") end
  emit {
    observed = "Set in the environment: " .. table.concat(set, ", ") .. ".",
    why = "These override HCCL's own algorithm and QoS choices; a mismatch with the topology or switch "
      .. "configuration slows every collective.",
    action = "Unset them unless a measurement on this cluster shows they help.",
    commands = cmds,
    confidence = 0.2,
    evidence = { { fact = "run.env", value = table.concat(set, ", ") } },
  }
end
