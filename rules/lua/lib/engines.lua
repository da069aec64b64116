-- lib.engines: each serving engine's own commands (docs/facts-inference.md, "Advice that fits the
-- engine"), the one place that knows them: a command of one engine never goes to another, and
-- a run whose engine is not known gets none of them (the caller keeps its generic advice).
-- The engine comes from lib.run.engine (facts.inference.engine).
local run = require "lib.run"
local engines = {}

-- The largest batch (requests) of the run's iterations, or nil.
local function largest_batch(facts)
  local most = nil
  for _, it in ipairs((facts.inference and facts.inference.iterations) or {}) do
    if type(it.requests) == "number" and (most == nil or it.requests > most) then most = it.requests end
  end
  return most
end

-- Graph capture for the engine's iterations: { action = ..., commands = {...} }, or nil where the
-- engine is not known. vLLM: full graphs for decode batches, piecewise for the rest
-- (`cudagraph_mode` in --compilation-config; never --enforce-eager, which turns graphs off);
-- vLLM-Ascend: ACL graphs by the same switch (PIECEWISE or FULL_DECODE_ONLY, vllm-ascend's
-- docs); SGLang: graphs up to the batch the run serves (--cuda-graph-max-bs); a diffusion pipeline
-- (xDiT, diffusers): the denoiser, the module each denoising step runs.
function engines.graphs(facts)
  local e = run.engine(facts)
  if e == "vllm" then
    return {
      action = "Replay the iterations from CUDA graphs: full graphs for decode batches, piecewise ones for the rest "
        .. "(vLLM's cudagraph_mode; do not run with --enforce-eager, which turns graphs off).",
      commands = { "--compilation-config '{\"cudagraph_mode\": \"FULL_AND_PIECEWISE\"}'   # add to the vllm serve "
        .. "command" },
    }
  elseif e == "vllm_ascend" then
    return {
      action = "Replay the iterations from ACL graphs: vLLM-Ascend's graph mode captures them (cudagraph_mode "
        .. "PIECEWISE or FULL_DECODE_ONLY, the latter recommended for decode; do not run with --enforce-eager, "
        .. "which turns graphs off).",
      commands = { "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'   # add to the vllm serve "
        .. "command" },
    }
  elseif e == "sglang" then
    local bs = largest_batch(facts)
    return {
      action = "Replay the iterations from CUDA graphs up to the largest batch the server runs (SGLang captures "
        .. "decode batches up to --cuda-graph-max-bs; do not pass --disable-cuda-graph).",
      commands = { "--cuda-graph-max-bs " .. tostring(bs or 256) .. "   # add to the sglang.launch_server command" },
    }
  elseif e == "xdit" or e == "diffusers" then
    return {
      action = "Graph the denoiser: each denoising step runs the same transformer (or UNet) on the same shapes, so "
        .. "compiling it with CUDA graphs replays each step from one launch.",
      commands = { "pipe.transformer = torch.compile(pipe.transformer, mode=\"reduce-overhead\", fullgraph=True)   "
        .. "# the denoiser (pipe.unet in UNet pipelines)" },
    }
  end
  return nil
end

-- Asynchronous scheduling (the host schedules iteration N+1 while the device runs N):
-- { action = ..., commands = {...} }, or nil where the engine has no such switch the tool knows.
-- vLLM (and vLLM-Ascend): --async-scheduling; SGLang: its overlap scheduler, on unless
-- --disable-overlap-schedule; MindIE: MINDIE_ASYNC_SCHEDULING_ENABLE=1.
function engines.async_scheduling(facts)
  local e = run.engine(facts)
  if e == "vllm" or e == "vllm_ascend" then
    return { action = "Enable vLLM's asynchronous scheduling, then re-profile.",
      commands = { "--async-scheduling   # add to the vllm serve command" } }
  elseif e == "sglang" then
    return { action = "Keep SGLang's overlap scheduler on (it is the default): drop --disable-overlap-schedule from "
      .. "the launch command, then re-profile.", commands = {} }
  elseif e == "mindie" or (e == nil and (facts.run or {}).platform ~= "gpu") then
    return { action = "Enable asynchronous scheduling in MindIE (an environment variable), then re-profile.",
      commands = { "export MINDIE_ASYNC_SCHEDULING_ENABLE=1" } }
  end
  return nil
end

-- Graph capture sizes for batches that ran eager above the largest size captured: { action = ...,
-- commands = {...} }, or nil where the engine is not known. `largest`: the largest batch size
-- captured (or, without a capture, the largest that replayed a graph); `needed`: the largest
-- batch that ran eager. vLLM replays a batch from the smallest captured size at least as large
-- and runs a larger one eager: capture up to the batches served, or keep --max-num-seqs at a
-- captured size. vLLM-Ascend: the same sizes make its ACL graphs (a max_num_seqs off the capture
-- stride runs the largest batches eager). SGLang: --cuda-graph-max-bs.
function engines.capture_sizes(facts, largest, needed)
  local e = run.engine(facts)
  local l, n = tostring(largest), tostring(needed)
  if e == "vllm" or e == "vllm_ascend" then
    local actions = {
      vllm = "Capture CUDA graphs up to the largest batch the server runs (vLLM runs a batch above its largest "
        .. "capture size eager), or keep the batch at a captured size.",
      vllm_ascend = "Capture ACL graphs up to the largest batch the server runs: vLLM-Ascend runs a batch above its "
        .. "largest capture size eager, and a max_num_seqs off the capture sizes does so silently.",
    }
    return {
      action = actions[e],
      commands = {
        "--compilation-config '{\"max_cudagraph_capture_size\": " .. n .. "}'   # add to the vllm serve command "
          .. "(older " .. (e == "vllm" and "vLLM" or "vLLM-Ascend") .. ": list the sizes in cudagraph_capture_sizes)",
        "--max-num-seqs " .. l .. "   # or: no batch above the largest captured size",
      },
    }
  elseif e == "sglang" then
    return {
      action = "Capture decode graphs up to the largest batch the server runs (SGLang runs a batch above "
        .. "--cuda-graph-max-bs eager).",
      commands = { "--cuda-graph-max-bs " .. n .. "   # add to the sglang.launch_server command" },
    }
  end
  return nil
end

-- Full graphs for decode iterations whose graphs leave work eager between the pieces: { action =
-- ..., commands = {...} }, or nil where the engine has no such switch the tool knows. vLLM:
-- cudagraph_mode FULL_AND_PIECEWISE (a decode batch replays one full graph, attention inside);
-- vLLM-Ascend: FULL_DECODE_ONLY.
-- Each engine's full decode graph mode: its cudagraph_mode value, its name and its graphs' name.
local full_graph_modes = {
  vllm = { mode = "FULL_AND_PIECEWISE", name = "vLLM", graphs = "full graphs" },
  vllm_ascend = { mode = "FULL_DECODE_ONLY", name = "vLLM-Ascend", graphs = "full ACL graphs" },
}

function engines.full_graphs(facts)
  local f = full_graph_modes[run.engine(facts) or ""]
  if f == nil then return nil end
  return {
    action = "Replay decode batches from " .. f.graphs .. ", attention included (" .. f.name .. "'s " .. f.mode
      .. " cudagraph_mode; piecewise graphs run attention eager between the pieces).",
    commands = { "--compilation-config '{\"cudagraph_mode\": \"" .. f.mode .. "\"}'   # add to the vllm serve "
      .. "command" },
  }
end

return engines
