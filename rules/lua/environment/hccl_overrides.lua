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
network team's DSCP/PFC configuration.
]],
}

function check(facts, p, emit)
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
