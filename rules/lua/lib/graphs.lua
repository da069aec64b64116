-- lib.graphs: whether the device work already runs as graphs (CANN model execution for
-- MindSpore graph mode and GE, ACL graph replay for torch_npu NPUGraph and torchair
-- reduce-overhead, CUDA/HIP graph replay), where launch advice (graph mode, the task queue,
-- torch.compile / CUDA graphs) has nothing left to do: one host call already runs the graph.
local graphs = {}

-- The share (0..1) of device time launched by graph executions: graph_execution.graph_share_of_time
-- on Ascend runs, gpu.graph_replay.kernel_ns / gpu.kernels.total_ns on GPU runs; 0 when the facts
-- say nothing about graphs.
function graphs.share(facts)
  local g = facts.graph_execution
  if g and g.executes_graphs then return g.graph_share_of_time or 0 end
  local r, k = facts.gpu and facts.gpu.graph_replay, facts.gpu and facts.gpu.kernels
  if r and k and (k.total_ns or 0) > 0 then return (r.kernel_ns or 0) / k.total_ns end
  return 0
end

-- The graph executions in a few words for a finding: "10 graph executions (GE@Infer x10,
-- Model@ModelExecute x4) launched 100% of device time", or "" without any.
function graphs.describe(facts)
  local g = facts.graph_execution
  if g and g.executes_graphs then
    local apis = {}
    for i, a in ipairs(g.apis or {}) do
      if i > 3 then break end
      apis[#apis + 1] = string.format("%s x%d", a.name, a.calls)
    end
    return string.format("%d graph executions (%s) launched %.0f%% of device time", g.executions or 0,
      table.concat(apis, ", "), 100 * (g.graph_share_of_time or 0))
  end
  local r = facts.gpu and facts.gpu.graph_replay
  if r and (r.launches or 0) > 0 then
    return string.format("%d CUDA/HIP graph launches replayed %d kernels (%.0f%% of GPU kernel time)", r.launches,
      r.kernels or 0, 100 * graphs.share(facts))
  end
  return ""
end

return graphs
