-- Serving: decode iterations that replay graphs but still run much of their work eager.
rule {
  id = "dispatch.eager_in_graph",
  title = "Graphed decode iterations run part of their work eager",
  category = "dispatch",
  severity = "low",
  pool = "idle.host_launch",  -- its saving is idle time of this cause (rules/attribution.h)
  needs = { "inference.iterations", "inference.graphs" },
  platforms = { "ascend", "gpu" },
  params = {
    min_share = { default = 0.2, min = 0, max = 1, doc = "reported when the eager ops hold at least this share of the graphed decode iterations' busy time" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the idle inside the graphed decode iterations that replaying the eager part removes" },
  },
  doc = [[
Why: a decode iteration that replays graphs can still launch part of its work one kernel at a
time: piecewise graphs (vLLM's PIECEWISE cudagraph_mode) run attention eager between the pieces,
and the engine's input preparation and sampler run around the replay. A little is normal (the
sampler, a few copies); a large share brings the launch overhead back.

How it is measured (facts.inference, docs/facts-inference.md): over the steady state's decode
iterations that replayed a graph (iterations[].graph_ops > 0), the eager ops' busy time
(eager_in_graph_ns) against the iterations' busy time (busy_ns); reported from `min_share`. The
finding names the classes of the eager work (inference.graphs.eager_in_graphed.classes). Only
decode: a prefill or mixed batch runs attention eager under piecewise graphs by design (its
shapes vary), and no engine switch replays it whole.
The command is the engine's own (lib.engines.full_graphs: vLLM FULL_AND_PIECEWISE); other
engines get the finding without one.
Saving per step = `factor` x (own window - busy) of those iterations / iterations.
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"
local engines = require "lib.engines"

local function classes_text(classes)
  local list = {}
  for name, share in pairs(classes or {}) do list[#list + 1] = { name = name, share = share } end
  table.sort(list, function(a, b) return a.share > b.share end)
  local parts = {}
  for i, c in ipairs(list) do
    if i > 3 then break end
    parts[#parts + 1] = string.format("%s %.0f%%", c.name, 100 * c.share)
  end
  return table.concat(parts, ", ")
end

function check(facts, p, emit)
  if run.startup_capture(facts) then return end
  local its = run.steady_iterations(facts)
  local n, eager, busy, idle, worst = 0, 0, 0, 0, nil
  for _, it in ipairs(its) do
    if it.phase == "decode" and (it.graph_ops or 0) > 0 and type(it.eager_in_graph_ns) == "number" then
      n = n + 1
      eager = eager + it.eager_in_graph_ns
      busy = busy + (it.busy_ns or 0)
      idle = idle + math.max(0, (it.own_window_ns or 0) - (it.busy_ns or 0))
      if worst == nil or it.eager_in_graph_ns > worst.eager_in_graph_ns then worst = it end
    end
  end
  if n == 0 or busy <= 0 or eager < p.min_share * busy then return end
  local own = engines.full_graphs(facts)
  local what = classes_text(facts.inference.graphs.eager_in_graphed and facts.inference.graphs.eager_in_graphed.classes)
  local observed = string.format("%d decode iterations replay graphs, yet %.0f%% of their busy time (%.3f ms per "
    .. "iteration) runs eager, launched op by op%s.", n, 100 * eager / busy, eager / n / 1e6,
    what ~= "" and (": " .. what) or "")
  local ev = evidence.add({}, worst.evidence, 1)
  emit {
    observed = observed,
    why = "Each eager kernel is one host launch: between the graph replays the device waits on them.",
    action = own and own.action or "Move the eager work into the graphs (capture it), or off the decode path.",
    commands = own and own.commands or {},
    saving_ns = p.factor * idle / #its,
    saving_formula = string.format("%.2f x (own window - busy) of the %d graphed decode iterations / %d iterations",
      p.factor, n, #its),
    confidence = 0.4,
    evidence = ev,
  }
end
