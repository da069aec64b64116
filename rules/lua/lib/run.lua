-- lib.run: the run as a whole: its environment, framework and folders, for advice and commands.
local run = {}

-- The run's environment variables (run.env), an empty table when not recorded.
function run.env(facts)
  return (facts.run and facts.run.env) or {}
end

-- Whether the run is a MindSpore one (advice in MindSpore's terms, never torch_npu's).
function run.is_mindspore(facts)
  return facts.run ~= nil and facts.run.framework == "mindspore"
end

-- The folder that holds this run's input and, in a multi-rank job, the other ranks' folders
-- (the parent of input.path), or nil when the input path is not known.
function run.job_dir(facts)
  local path = facts.input and facts.input.path
  if not path then return nil end
  return path:match("^(.*)/[^/]+/?$")
end

-- `text` as one shell word for a printed command: unchanged when it is made of safe
-- characters only, else in single quotes.
function run.quote(text)
  if text:find("^[%w_./%-+=:,@]+$") then return text end
  return "'" .. text:gsub("'", "'\\''") .. "'"
end

-- The job as the host operators tell it (facts.job, docs/facts.md), an empty table when the
-- run has no job facts.
function run.job(facts)
  return facts.job or {}
end

-- Whether the job trains: true (an optimizer step or a backward op was recorded), false (host
-- operators were recorded and none of them trains: inference), nil (no host operators to tell).
function run.training(facts)
  return run.job(facts).training  -- JSON null arrives as nil
end

-- Whether the job is known to be inference (host operators recorded, none of them training).
function run.inference(facts)
  return run.training(facts) == false
end

-- The serving engine that ran (facts.inference.engine: vllm, sglang, hf_generate, diffusers,
-- docs/facts-inference.md), or nil when no engine was recognised. The one owner of the engine
-- for the rules: an engine's commands go to that engine only.
function run.engine(facts)
  local e = facts.inference and facts.inference.engine
  if e == nil or e == "unknown" then return nil end
  return e
end

-- Whether Hugging Face generate() commands fit the run: its engine is hf_generate, or no engine
-- was recognised (never a vLLM, SGLang or diffusers run).
function run.hf_generate(facts)
  local e = run.engine(facts)
  return e == nil or e == "hf_generate"
end

-- Why the step rules do not apply, or nil: a start-up graph capture (facts.inference.kind
-- graph_capture: capture_N_MODE annotations) is not serving, and its steps are not iterations.
-- The one owner of the decision (the verdict dispatch.step_class and the step rules ask it).
function run.startup_capture(facts)
  if facts.inference and facts.inference.kind == "graph_capture" then
    return "graph capture: start-up, not serving"
  end
  return nil
end

-- The serving iterations the steady state keeps (facts.inference.iterations from
-- steady_state.first to .last; all of them when it says nothing), or {} without inference facts.
function run.steady_iterations(facts)
  local its = (facts.inference and facts.inference.iterations) or {}
  local ss = facts.inference and facts.inference.steady_state
  local first, last = 1, #its
  if type(ss) == "table" and ss.first then first, last = ss.first, ss.last end
  local out = {}
  for i = first, last do out[#out + 1] = its[i] end
  return out
end

-- The fused version of the optimizer the job steps (facts.job: Adam, AdamW, SGD), as a command
-- on `params`, or nil: none for inference, another optimizer, one that is fused already, or no
-- job facts.
function run.fused_optimizer(facts, params)
  local job = run.job(facts)
  local fusable = { Adam = true, AdamW = true, SGD = true }
  if type(job.optimizer) == "string" and fusable[job.optimizer] and job.optimizer_impl ~= "fused" then
    return "torch.optim." .. job.optimizer .. "(" .. params .. ", ..., fused=True)"
  end
  return nil
end

-- Whether the model runs under torch.compile (facts.job.compiled).
function run.compiled(facts)
  return run.job(facts).compiled == true
end

-- AOE (operator auto-tuning) commands in the job's framework, as a list; none when every
-- operator has a dynamic shape (AOE tunes static shapes only: dispatch.op_compile has the advice
-- for those).
function run.aoe_commands(facts)
  local dyn = facts.operator_health and facts.operator_health.dynamic_shape
  if dyn and dyn.all_dynamic then return {} end
  if run.is_mindspore(facts) then
    return { "mindspore.set_context(aoe_tune_mode=\"online\", aoe_config={\"job_type\": \"2\"})" }
  end
  return { "torch_npu.npu.set_aoe(\"./aoe_dump\")", "aoe --job_type=2 --model_path=./aoe_dump" }
end

return run
