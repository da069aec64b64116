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

-- The fused version of the optimizer the job steps (facts.gpu.job: Adam, AdamW, SGD), as a
-- command on `params`, or nil: none for inference, another optimizer or no job facts.
function run.fused_optimizer(facts, params)
  local job = facts.gpu and facts.gpu.job
  local fusable = { Adam = true, AdamW = true, SGD = true }
  if job and job.optimizer and fusable[job.optimizer] then
    return "torch.optim." .. job.optimizer .. "(" .. params .. ", ..., fused=True)"
  end
  return nil
end

-- Whether the model runs under torch.compile (facts.gpu.job.compiled).
function run.compiled(facts)
  local job = facts.gpu and facts.gpu.job
  return job ~= nil and job.compiled == true
end

return run
