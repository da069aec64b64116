-- Serving: decode iterations that ran eager (no graph replay), above the largest captured size or not.
rule {
  id = "dispatch.graph_coverage",
  title = "Decode iterations ran eager: capture graphs for the batches served",
  category = "dispatch",
  severity = "medium",
  pool = "idle.host_launch",  -- its saving is idle time of this cause (rules/attribution.h)
  whatif = "capture_sizes",  -- its saving is replayed (docs/whatif.md); the formula below is the fallback
  needs = { "inference.iterations", "inference.graphs" },
  platforms = { "ascend", "gpu" },
  params = {
    min_eager_share = { default = 0.1, min = 0, max = 1, doc = "reported when the eager decode iterations hold at least this share of the decode iterations' own time" },
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the idle inside the eager decode iterations a graph replay removes" },
  },
  doc = [[
Why: a serving engine replays each decode iteration from a graph captured at start-up for its
batch size (vLLM: the smallest captured size at least the batch; SGLang: batches up to
--cuda-graph-max-bs; vLLM-Ascend: its ACL graphs). A decode batch above the largest captured
size, or a server run with graphs off, launches every kernel from the host: a decode step is
many small kernels, so the device waits on the launches.

How it is measured (facts.inference, docs/facts-inference.md):
  - eager decode iterations: decode iterations with device work and no graph replay among it
    (iterations[].graph_ops = 0), after the warm-up (steady_state);
  - reported when they hold at least `min_eager_share` of the decode iterations' own time
    (own_window_ns);
  - the largest captured size: the largest of inference.graphs.captured_sizes (a capture in the
    trace or beside it); without one, the largest batch of a decode iteration that did replay a
    graph (the captured sizes reach at least that far). Eager batches above it: the capture
    sizes (lib.engines.capture_sizes: vLLM max_cudagraph_capture_size or --max-num-seqs on a
    captured size, SGLang --cuda-graph-max-bs, vLLM-Ascend's ACL graph sizes); eager batches
    at or below it, or no graph at all: turn graphs on (lib.engines.graphs).
The command is the engine's own (lib.engines); a run whose engine is not known gets none.
Saving per iteration: replayed (whatif capture_sizes: each eager decode iteration's runs of
launches made graph launches at the trace's own graph costs, docs/whatif.md); the formula
without a replay, `factor` x (own window - busy) of the eager decode iterations / iterations:
the device idle between their kernels, of which a replay removes part.
]],
}

local evidence = require "lib.evidence"
local run = require "lib.run"
local engines = require "lib.engines"

-- The largest captured batch size, and where it was read from.
local function largest_captured(facts, decode)
  local sizes = facts.inference.graphs.captured_sizes or {}
  if #sizes > 0 then return sizes[#sizes], "captured" end
  local most = nil
  for _, it in ipairs(decode) do
    if (it.graph_ops or 0) > 0 and type(it.requests) == "number" and (most == nil or it.requests > most) then
      most = it.requests
    end
  end
  if most then return most, "graphed" end
  return nil, nil
end

function check(facts, p, emit)
  if run.startup_capture(facts) then return end
  local its = run.steady_iterations(facts)
  local decode, eager = {}, {}
  local decode_ns, eager_ns, eager_idle = 0, 0, 0
  for _, it in ipairs(its) do
    if it.phase == "decode" and type(it.own_window_ns) == "number" then
      decode[#decode + 1] = it
      decode_ns = decode_ns + it.own_window_ns
      if (it.graph_ops or 0) == 0 then
        eager[#eager + 1] = it
        eager_ns = eager_ns + it.own_window_ns
        eager_idle = eager_idle + math.max(0, it.own_window_ns - (it.busy_ns or 0))
      end
    end
  end
  if #eager == 0 or decode_ns <= 0 or eager_ns < p.min_eager_share * decode_ns then return end
  local lo, hi = nil, nil
  for _, it in ipairs(eager) do
    if type(it.requests) == "number" then
      lo = (lo == nil or it.requests < lo) and it.requests or lo
      hi = (hi == nil or it.requests > hi) and it.requests or hi
    end
  end
  local largest, from = largest_captured(facts, decode)
  local above = largest ~= nil and hi ~= nil and hi > largest
  local own = above and engines.capture_sizes(facts, largest, hi) or engines.graphs(facts)
  local batches = lo and (lo == hi and string.format("batch %d", lo) or string.format("batches %d-%d", lo, hi)) or "batch unknown"
  local observed = string.format("%d of %d decode iterations (%s) ran eager, no graph replay: %.3f ms, %.0f%% of "
    .. "the decode iterations' own time.", #eager, #decode, batches, eager_ns / 1e6, 100 * eager_ns / decode_ns)
  if above then
    observed = observed .. string.format(" Their batch is above the largest %s size, %d%s.", from == "captured"
      and "captured" or "graphed", largest, from == "captured" and "" or " (no capture in the trace: the largest "
      .. "batch that replayed a graph)")
  elseif largest then
    observed = observed .. string.format(" Batches up to %d were captured: these ran eager all the same (graphs "
      .. "off for them?).", largest)
  else
    observed = observed .. " No iteration replayed a graph."
  end
  local ev = evidence.add({}, eager[1].evidence, 1)
  ev[#ev + 1] = { fact = "inference.graphs.captured_sizes", value = table.concat(facts.inference.graphs.captured_sizes or {}, ", ") }
  emit {
    observed = observed,
    why = "An eager decode iteration launches each of its many small kernels from the host; a graph replay "
      .. "launches them with one call.",
    action = own and own.action or "Capture graphs for the decode batch sizes the server runs.",
    commands = own and own.commands or {},
    saving_ns = p.factor * eager_idle / #its,
    saving_formula = string.format("%.2f x (own window - busy) of the %d eager decode iterations / %d iterations",
      p.factor, #eager, #its),
    confidence = 0.5,
    evidence = ev,
  }
end
