-- Ranks spend their communication time waiting for each other, not moving data.
rule {
  id = "cluster.wait_dominated",
  title = "Communication is mostly waiting for other ranks",
  category = "cluster",
  severity = "medium",
  needs = { "cluster.communication.groups" },
  params = {
    wait_ratio = { default = 0.2, min = 0, max = 1, doc = "reported for groups whose wait / (wait + transit) is above this" },
    sync_ratio = { default = 0.2, min = 0, max = 1, doc = "above this synchronisation ratio of the most-waiting rank, the least-waiting rank is blamed" },
    gap = { default = 0.1, min = 0, max = 1, doc = "when the most and least waiting ranks are within this of each other no rank is blamed" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the group's average wait per rank and step the fix recovers" },
  },
  doc = [[
Why: the Wait time of a collective is time a rank spends before the data moves, waiting for
the other ranks to arrive. When it dominates the transit time, faster links will not help: the
ranks are out of step (a slow rank, uneven work, or host jitter).

How it is measured (facts.cluster.communication.groups, from communication.json of each rank or
cluster_communication.json): per communication group, wait ratio = wait / (wait + transit)
summed over its operators and ranks. Reported for groups with wait ratio > `wait_ratio`
(msProf's cluster tuning threshold). As msProf does, the rank that waits most is checked: when
its synchronisation ratio is > `sync_ratio` the rank that waits LEAST is the one the others
wait for (a slow rank); otherwise suspect the links. When every rank of the group waits alike
(most and least waiting ranks within `gap` of each other) no rank of the group is blamed:
the one they wait for is elsewhere.

Saving per step = `factor` x the group's wait / (ranks x steps): half of the average rank's
wait. Confidence 0.3: the cure is upstream (the slow rank's own problem).
Commands fit the verdict: the link checks (npu-smi topology, hccn_tool's RDMA port counters) only
when the links are suspected; a slow rank is named with its folder in the text (analyse it
alone), never as a command that sends the user back to this tool.
]],
}

local run = require "lib.run"
local steplib = require "lib.steps"
local collectives = require "lib.collectives"

function check(facts, p, emit)
  local c = facts.cluster
  local steps = steplib.cluster_count(facts)
  for _, g in ipairs(c.communication.groups) do
    if g.wait_ratio > p.wait_ratio and #g.ranks > 1 then
      local max_sync = 0
      for _, r in ipairs(g.per_rank or {}) do
        if r.rank == g.max_wait_rank then max_sync = r.sync_ratio end
      end
      local blame
      if g.max_wait_ratio - g.min_wait_ratio < p.gap then
        blame = string.format("every rank of the group waits alike (wait ratio %.0f%% to %.0f%%): the rank they wait for is not in this group or not in the data (another pipeline stage, or delays before the collective on every rank)",
          100 * g.min_wait_ratio, 100 * g.max_wait_ratio)
      elseif max_sync > p.sync_ratio then
        blame = string.format("rank %d waits most (wait ratio %.0f%%, synchronisation ratio %.0f%%) and rank %d least (%.0f%%): rank %d is the one the others wait for",
          g.max_wait_rank, 100 * g.max_wait_ratio, 100 * max_sync, g.min_wait_rank, 100 * g.min_wait_ratio, g.min_wait_rank)
      else
        blame = string.format("rank %d waits most (wait ratio %.0f%%) without synchronisation waits (%.0f%%): suspect the links rather than a slow rank",
          g.max_wait_rank, 100 * g.max_wait_ratio, 100 * max_sync)
      end
      -- The text names the folder of the rank to look at (the one waited for, else the most
      -- waiting); the links are checked only when they are the suspects.
      local alike = g.max_wait_ratio - g.min_wait_ratio < p.gap
      local look = (max_sync > p.sync_ratio and not alike) and g.min_wait_rank or g.max_wait_rank
      local path
      for _, r in ipairs(c.ranks or {}) do
        if r.rank == look and r.path then path = r.path end
      end
      local links = not alike and max_sync <= p.sync_ratio
      local cmds = links and { "npu-smi info -t topo   # the links between the NPUs of a node (HCCS, PCIe)",
        "hccn_tool -i 0 -stat -g   # RDMA port errors of device 0; repeat for each device of the group's nodes" } or {}
      local action = "Find what delays the rank the others wait for (see cluster.slow_rank, or analyze that rank alone"
        .. (path and (": `npu-advisor analyze " .. run.quote(path) .. "`") or "") .. "); "
        .. "balance the work across ranks (pipeline stages, sequence lengths, MoE routing)."
      if links then
        action = "Check the links of this group (HCCS lanes, PCIe, RDMA ports and switch counters) and rerun to see "
          .. "whether the same ranks wait" .. (path and (" (the most waiting rank: `npu-advisor analyze " .. run.quote(path) .. "`)") or "") .. "."
      end
      -- A named group says its ranks in its label ("tp (ranks 0,1)"); an unnamed one is a hash.
      local label = collectives.group_label(facts, g.group)
      local who = label ~= g.group and string.format("%s, %d operators", label, g.ops)
        or string.format("%s (ranks %s, %d operators)", g.group, table.concat(g.ranks, ","), g.ops)
      emit {
        observed = string.format("Group %s: wait %.3f ms vs transit %.3f ms (wait ratio %.0f%%); %s.",
          who, g.wait_ns / 1e6, g.transit_ns / 1e6, 100 * g.wait_ratio, blame),
        why = "Waiting is time the ranks are out of step; faster links do not shorten it.",
        action = action,
        commands = cmds,
        saving_ns = p.factor * g.wait_ns / (#g.ranks * steps),
        saving_formula = string.format("%.2f x group wait / (%d ranks x %d steps)", p.factor, #g.ranks, steps),
        confidence = 0.3,
        evidence = { { fact = "cluster.communication.groups[" .. g.group .. "].wait_ratio", value = g.wait_ratio } },
        data = { group = g.group, min_wait_rank = g.min_wait_rank, max_wait_rank = g.max_wait_rank },
      }
    end
  end
end
