-- One rank computes (or idles) longer than the others, so they wait for it in every collective.
rule {
  id = "cluster.slow_rank",
  title = "A slow rank makes the other ranks wait",
  category = "cluster",
  severity = "high",
  needs = { "cluster.slow_rank", "cluster.ranks" },
  params = {
    confidence_agree = { default = 0.7, min = 0, max = 1, doc = "confidence when both signals name the rank" },
    confidence_single = { default = 0.45, min = 0, max = 1, doc = "confidence when one signal does" },
  },
  doc = [[
Why: a collective finishes only when its last rank arrives. A rank that computes longer, or
idles longer (host-bound, data loading, GC, a throttled or different card), makes every other
rank of its groups wait inside the collective: their communication time grows by its delay,
and the whole job runs at the slow rank's pace.

How it is measured (facts.cluster.slow_rank, docs/facts-cluster.md): two independent signals.
(1) Time breakdown: each rank's computing + free per step against the median rank; an outlier
when the robust z-score (median/MAD) is above 3.5 and the excess is over 5 % of the median step.
(2) Communication: for every collective, the per-rank elapse times go through Dixon's Q test at
99.5 % (msprof-analyze's slow_rank recipe); the FASTEST rank is the low outlier (it waited
least because the others waited for it) and gets a vote. A rank needs more than a quarter of the
judged collectives and a plurality. The verdict says which signals agree.

Saving per step = the slow rank's excess computing + free over the median rank (what the others
wait). Confidence `confidence_agree` when both signals name the rank, else
`confidence_single`.
Commands fit the job: the card check on the slow rank's node in the job's hardware (npu-smi on
Ascend; nvidia-smi's clock throttle reasons for a PyTorch/Kineto GPU cluster, which is not told
about AI Core or AI CPU); analysing the rank alone and comparing it with a normal rank is named in
the text (the real folders), never a command that sends the user back to this tool.
]],
}

local run = require "lib.run"
local collectives = require "lib.collectives"

function check(facts, p, emit)
  local s = facts.cluster.slow_rank
  if s.rank == nil or s.rank < 0 then return end
  local row
  for _, r in ipairs(facts.cluster.ranks) do
    if r.rank == s.rank then row = r end
  end
  local parts = {}
  local excess = string.format("computing %+.3f ms/step", (s.computing_excess_ns or 0) / 1e6)
  if (s.free_excess_ns or 0) > 0 then excess = excess .. string.format(", free %+.3f ms/step", s.free_excess_ns / 1e6) end
  parts[#parts + 1] = string.format("rank %d: %s against the median rank", s.rank, excess)
  if row then
    parts[#parts + 1] = string.format("its step is %.3f ms of computing, %.3f ms of free and %.3f ms of exposed communication",
      row.computing_per_step_ns / 1e6, row.free_per_step_ns / 1e6, row.comm_not_overlapped_per_step_ns / 1e6)
  end
  if (s.judged_ops or 0) > 0 then
    parts[#parts + 1] = string.format("it was the fastest rank (the one waited for) in %d of %d collectives judged by Dixon's test at 99.5%%",
      s.votes_for_rank or 0, s.judged_ops)
  end
  local groups = {}
  for i, g in ipairs(s.groups or {}) do
    if i > 3 then break end
    local label = collectives.group_label(facts, g.group)
    -- A named group's label ends in its ranks, "tp (ranks 0,1)": the ratio follows it unbracketed.
    local fmt = label ~= g.group and "%s with wait ratio %.0f%%" or "%s (wait ratio %.0f%%)"
    groups[#groups + 1] = string.format(fmt, label, 100 * g.wait_ratio)
  end
  if #groups > 0 then parts[#parts + 1] = "groups that wait for it: " .. table.concat(groups, ", ") end
  -- Its own causes (the single-run rules on its facts): what to fix on it.
  local own = {}
  for _, f in ipairs(s.own_findings or {}) do
    own[#own + 1] = string.format("%s (%.3f ms/step, %s)", f.title, (f.saving_ns or 0) / 1e6, f.rule)
  end
  if #own > 0 then parts[#parts + 1] = "its own top causes: " .. table.concat(own, "; ") end
  local ev = {
    { fact = "cluster.slow_rank.rank", value = s.rank },
    { fact = "cluster.slow_rank.basis", value = s.basis },
  }
  if row and row.path then ev[#ev + 1] = { file = row.path, what = "the slow rank's profile" } end
  local agree = string.find(s.basis, "agree", 1, true) ~= nil
  -- The text names the real folders: the slow rank's, and a normal rank's of the same stage.
  local q = run.quote
  local normal_path
  for _, r in ipairs(facts.cluster.ranks) do
    if r.rank == s.normal_rank and r.path then normal_path = r.path end
  end
  local where = ""
  if row and row.path then
    where = " (`npu-advisor analyze " .. q(row.path) .. "`"
      .. (normal_path and ("; side by side: `npu-advisor compare " .. q(normal_path) .. " " .. q(row.path) .. "`") or "") .. ")"
  end
  -- A Kineto (PyTorch) cluster runs on GPUs: its card check and causes are not Ascend's.
  local gpu = facts.run and (facts.run.platform == "gpu" or (facts.run.platform == nil and facts.run.framework == "pytorch"))
  local causes = gpu and "host-bound steps (launches), data loading, GC, a throttled GPU (clocks, power, temperature)"
    or "host-bound steps (dispatch), data loading, GC, AI CPU operators, a throttled card (AI Core frequency)"
  local cmds = { gpu and string.format("nvidia-smi -q -d PERFORMANCE   # on rank %d's node: clock throttle reasons", s.rank)
    or string.format("npu-smi info   # on rank %d's node: health, temperature, power and AI Core use of its NPU", s.rank) }
  emit {
    observed = "Slow rank " .. s.rank .. " (" .. s.basis .. "): " .. table.concat(parts, "; ") .. ".",
    why = "Every collective waits for its last rank: the other ranks spend this rank's delay waiting in communication.",
    action = string.format("Analyse rank %d on its own and compare it with a normal rank%s: %s, uneven work (pipeline "
      .. "stage sizes, uneven sequence lengths or MoE experts). Fix the cause on that rank; the others speed up with it.",
      s.rank, where, causes),
    commands = cmds,
    saving_ns = s.excess_per_step_ns or 0,
    saving_formula = "slow rank's computing + free per step - the median rank's",
    confidence = agree and p.confidence_agree or p.confidence_single,
    evidence = ev,
    data = { rank = s.rank, votes = s.votes_for_rank, judged = s.judged_ops },
  }
end
