-- The reference advisor's slow-rank check: step time components differ across ranks.
rule {
  id = "cluster.imbalance",
  title = "Ranks are out of balance",
  category = "cluster",
  severity = "medium",
  needs = { "cluster.spread", "cluster.rank_steps" },
  params = {
    ratio = { default = 0.05, min = 0, doc = "reported when a typical step's (max - min) / mean across ranks is above this" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the (max - min) not-overlapped communication the fix recovers" },
  },
  doc = [[
Why: in a synchronous job every rank waits for the slowest at each collective. When one rank
has much more free (idle) or computing time than another, the difference shows up on the other
ranks as communication (waiting) time.

How it is measured (facts.cluster.spread): ranks are compared step by step, never across steps
(facts.cluster.alignment: only steps every rank has, the first one left out as warm-up). For
computing, communication not overlapped and free, (max - min) over the ranks of each step; the
typical step (median difference) divided by the mean device time of a row, as the reference
advisor's slow-rank analysis. Reported when any is above `ratio`. Identical ranks give 0. The rank with the
LEAST exposed communication is the one the others wait for (it never waits itself); the rank
with the most free or computing time is where its extra time goes.

Quiet when cluster.slow_rank names a rank (that finding explains the imbalance). With pipeline
parallelism (facts.cluster.pipeline) ranks are compared only within their stage, communication
is taken without receive (Bubble), and no rank is named for communication: in a pipeline, who
waits least is set by the schedule (cluster.pipeline_bubble), not by a slow rank.

Saving per step = `factor` x (max - min) of communication not overlapped: the waiting a
balanced cluster would not have. Confidence 0.35 (cluster.slow_rank, when it fires, says more).
The advice fits the job: uneven pipeline stages only where the cluster has pipeline stages; the
ranks at both ends of the widest spread are named in the text (compare them side by side with
their real folders), no command sends the user back to this tool.
]],
}

local run = require "lib.run"

function check(facts, p, emit)
  -- A slow-rank verdict already explains the imbalance (cluster.slow_rank): do not say it twice.
  if facts.cluster.slow_rank and (facts.cluster.slow_rank.rank or -1) >= 0 then return end
  local s = facts.cluster.spread
  local parts, flagged = {}, false
  local labels = { computing_ns = "computing", comm_not_overlapped_ns = "communication not overlapped", free_ns = "free" }
  for _, k in ipairs({ "computing_ns", "comm_not_overlapped_ns", "free_ns" }) do
    local m = s[k]
    if m and m.ratio > p.ratio then
      flagged = true
      parts[#parts + 1] = string.format("%s ranges %.3f ms (rank %s) to %.3f ms (rank %s), %.1f%% of a step",
        labels[k], m.min_ns / 1e6, tostring(m.min_rank), m.max_ns / 1e6, tostring(m.max_rank), 100 * m.ratio)
      if (m.steps or 0) > 1 and m.worst_step ~= nil then
        parts[#parts] = parts[#parts] .. string.format(" (worst: step %s, %.3f ms apart)", tostring(m.worst_step), (m.worst_diff_ns or 0) / 1e6)
      end
    end
  end
  if not flagged then return end
  local c = s.comm_not_overlapped_ns
  local who = ""
  if c and c.ratio > p.ratio and facts.cluster.pipeline == nil then
    who = string.format(" Rank %s has the least exposed communication: the others wait for it.", tostring(c.min_rank))
  end
  -- Commands name the real folders: the ranks at both ends of the largest flagged spread.
  local q = run.quote
  local paths = {}
  for _, r in ipairs(facts.cluster.ranks or {}) do
    if r.path then paths[r.rank] = r.path end
  end
  local widest
  for _, k in ipairs({ "computing_ns", "comm_not_overlapped_ns", "free_ns" }) do
    local m = s[k]
    if m and m.ratio > p.ratio and (widest == nil or m.ratio > widest.ratio) then widest = m end
  end
  local compare = "Compare it with a balanced rank."
  if widest and paths[widest.min_rank] and paths[widest.max_rank] and widest.min_rank ~= widest.max_rank then
    compare = "Compare the two ends side by side: `npu-advisor compare " .. q(paths[widest.min_rank]) .. " "
      .. q(paths[widest.max_rank]) .. "`."
  end
  -- Stage sizes are a cause only where there are pipeline stages.
  local pipeline = facts.cluster.pipeline ~= nil
  local a = facts.cluster.alignment or {}
  local scope = string.format("Step by step across ranks (%d step%s compared", a.steps_compared or 1,
    (a.steps_compared or 1) == 1 and "" or "s")
  if a.warmup_step ~= nil then scope = scope .. ", warm-up step " .. tostring(a.warmup_step) .. " left out" end
  if (a.partial_steps or 0) > 0 then scope = scope .. ", " .. a.partial_steps .. " partial left out" end
  scope = scope .. "), in the typical step "
  emit {
    observed = scope .. table.concat(parts, "; ") .. "." .. who,
    why = "Ranks that finish early wait in the next collective for the slowest; the imbalance becomes communication time.",
    action = "Look at the rank with the least exposed communication and the most free/computing time: host-bound "
      .. "steps, data loading, " .. (pipeline and "uneven pipeline stages or sequence lengths. " or "uneven sequence lengths "
      .. "or MoE routing. ") .. compare,
    commands = {},
    saving_ns = c and p.factor * (c.max_ns - c.min_ns) or 0,
    saving_formula = string.format("%.2f x (max - min) communication not overlapped of a rank x step row", p.factor),
    confidence = 0.35,
    evidence = { { fact = "cluster.spread.comm_not_overlapped_ns.ratio", value = c and c.ratio or 0 } },
  }
end
