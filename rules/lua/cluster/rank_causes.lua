-- Each rank's own causes, merged across ranks, ranked with the cluster findings.
rule {
  id = "cluster.rank_causes",
  title = "A cause found on the ranks themselves",
  category = "cluster",
  severity = "medium",
  needs = { "cluster.rank_findings" },
  params = {
    max_findings = { default = 8, min = 1, doc = "at most this many merged causes are reported" },
    min_saving_ratio = { default = 0.01, min = 0, max = 1, doc = "causes whose median saving is below this share of the median step are left out" },
  },
  doc = [[
Why: a cluster is as fast as its ranks. Exposed communication, host-bound phases, online
compilation or a slow dataloader on the ranks themselves are what a cluster report must show,
not only how the ranks compare with each other.

How it is measured (facts.cluster.rank_findings): every single-run rule runs on every rank's
own facts while the cluster is loaded (and on each facts file with `analyze --facts`); the
findings are merged by rule: on how many ranks it fired, the spread of its saving per step over
those ranks (min and max, with their ranks), and the text of the rank where it saves most.
One finding per merged cause (at most `max_findings`), skipping causes whose median saving is
below `min_saving_ratio` of the cluster's median step.

Saving per step = the median over the ranks that show the cause of each rank's own estimated
saving (what a typical affected rank gains). Confidence = the median of the ranks' confidences.
Each finding draws its saving from the pool of the rank rule it reports (idle.compile for an
online compile, compute for an operator, ...), out of the cluster's step split (the mean over
the ranks of each rank's mean step: facts.cluster.step_split), so no two findings count the
same time. A rank's communication finding (pool communication) is a residual: the waiting and
transfer time it describes is where the cluster's own causes (slow rank, slow link, pipeline
bubble, imbalance) show on that rank, so it is served after them, and dropped when they leave
less than 1 % of the step for it.
Commands are the rank rule's own, with the profiling folder filled in from the cluster's job
folder; a command that still holds the PROFILING_DIR placeholder (no job folder known) or that
would send the user back to this tool (`npu-advisor ...`, from a user rule or older facts) is
left out.
]],
}

local run = require "lib.run"

function check(facts, p, emit)
  local c = facts.cluster
  local step = (c.step_time and c.step_time.median_ns) or 0
  local shown = 0
  for _, m in ipairs(c.rank_findings) do
    if shown >= p.max_findings then break end
    if step <= 0 or m.saving_median_ns >= p.min_saving_ratio * step then
      shown = shown + 1
      local n = #m.ranks
      local where = string.format("on %d of %d ranks", n, m.rank_count)
      local spread
      if n > 1 then
        spread = string.format("saving %.3f ms/step (rank %d) to %.3f ms/step (rank %d), median %.3f ms",
          m.saving_min_ns / 1e6, m.saving_min_rank, m.saving_max_ns / 1e6, m.saving_max_rank, m.saving_median_ns / 1e6)
      else
        spread = string.format("rank %d only, saving %.3f ms/step", m.saving_max_rank, m.saving_max_ns / 1e6)
      end
      local cmds = {}
      -- A rank's command that names the profiling folder gets the cluster's real one.
      local dir = run.quote(c.job_dir or "")
      for _, x in ipairs(m.commands or {}) do
        if dir ~= "" then x = x:gsub("PROFILING_DIR", function() return dir end) end
        -- Only commands the user can run on the job as they are.
        local own = x:match("^%s*(%S+)") == "npu-advisor"
        if not own and not x:find("PROFILING_DIR", 1, true) then cmds[#cmds + 1] = x end
      end
      emit {
        title = where:sub(1, 1):upper() .. where:sub(2) .. ": " .. m.title,
        severity = m.severity,
        observed = string.format("%s%s; on rank %d: %s", spread:sub(1, 1):upper(), spread:sub(2), m.saving_max_rank, m.observed),
        why = "Every rank that shows this cause is slower by it; in a synchronous job the others wait for the slowest.",
        action = m.action,
        commands = cmds,
        saving_ns = m.saving_median_ns,
        -- The rank rule's pool: its saving is drawn from the same part of the step as on the rank.
        pool = (m.pool ~= nil and m.pool ~= "") and m.pool or nil,
        -- A rank's exposed communication is where the cluster's own causes (a slow rank, a slow
        -- link, pipeline bubbles) show on it: served after them, dropped when they explain it.
        residual = m.pool == "communication",
        saving_formula = "median over the affected ranks of each rank's own saving (rule " .. m.rule .. ")",
        confidence = m.confidence,
        evidence = { { fact = "cluster.rank_findings", value = m.rule } },
        data = { rule = m.rule, ranks = n, rank_count = m.rank_count },
      }
    end
  end
end
