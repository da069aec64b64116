-- Small operator caches make the host rebuild operators it has seen before.
rule {
  id = "environment.operator_caches",
  title = "Operator caches are disabled or small",
  category = "environment",
  severity = "low",
  needs = { "run.env" },
  platforms = { "ascend" },
  params = {
    aclnn_cache_limit = { default = 10000, min = 0, doc = "ACLNN_CACHE_LIMIT below this is too small" },
    recommended_aclnn = { default = 100000, min = 0, doc = "the ACLNN_CACHE_LIMIT the command sets" },
    recommended_host_cache = { default = 20, min = 0, doc = "the HOST_CACHE_CAPACITY the command sets" },
  },
  doc = [[
ACLNN_CACHE_LIMIT bounds the aclnn operator cache (default 10000 entries) and
HOST_CACHE_CAPACITY the host-side cache of operator information (0 disables it). Models with
many shapes (dynamic shapes, variable sequence lengths) miss these caches and pay host time
on every launch. The reference advisor recommends ACLNN_CACHE_LIMIT=100000 and
HOST_CACHE_CAPACITY=20.

Only reported when profiler_metadata.json recorded these variables (so "unset" is known).
Both caches pay off with many shapes only (the CANN reference: raise ACLNN_CACHE_LIMIT for a large
shape range; HOST_CACHE_CAPACITY is the dynamic-shape cache): a run whose operators are all
static (operator_health.dynamic_shape: none dynamic, some static) fills neither, and the rule
stays quiet. Optional reads: operator_health.dynamic_shape.
]],
}

function check(facts, p, emit)
  -- Static shapes only: a handful of shapes never fill the caches, so larger ones do nothing.
  local dyn = facts.operator_health and facts.operator_health.dynamic_shape
  if dyn and (dyn.dynamic or 0) == 0 and (dyn.static or 0) > 0 then return end
  local env = facts.run.env
  local issues, cmds = {}, {}
  local a = env.ACLNN_CACHE_LIMIT
  if a ~= nil and (a == "" or (tonumber(a) or 0) < p.aclnn_cache_limit) then
    issues[#issues + 1] = "ACLNN_CACHE_LIMIT=" .. (a == "" and "(unset)" or a)
    cmds[#cmds + 1] = string.format("export ACLNN_CACHE_LIMIT=%d", p.recommended_aclnn)
  end
  local h = env.HOST_CACHE_CAPACITY
  if h ~= nil and (h == "" or tonumber(h) == 0) then
    issues[#issues + 1] = "HOST_CACHE_CAPACITY=" .. (h == "" and "(unset)" or h)
    cmds[#cmds + 1] = string.format("export HOST_CACHE_CAPACITY=%d", p.recommended_host_cache)
  end
  if #issues == 0 then return end
  emit {
    observed = table.concat(issues, ", ") .. ".",
    why = "Operator cache misses cost host time on every launch, which matters when the host is the bottleneck.",
    action = "Enlarge the caches.",
    commands = cmds,
    confidence = 0.2,
    evidence = { { fact = "run.env", value = table.concat(issues, ", ") } },
  }
end
