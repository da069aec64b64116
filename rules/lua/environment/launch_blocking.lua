-- ASCEND_LAUNCH_BLOCKING=1 makes every operator launch synchronous.
rule {
  id = "environment.launch_blocking",
  title = "ASCEND_LAUNCH_BLOCKING=1 serialises host and device",
  category = "environment",
  severity = "high",
  pool = "idle.sync",  -- its saving is idle time of this cause (rules/attribution.h)
  needs = { "run.env" },
  platforms = { "ascend" },
  -- torch_npu's variable: MindSpore's synchronous mode is mindspore.runtime.launch_blocking()
  -- (pynative_synchronize), which the environment does not show.
  frameworks = { "torch_npu", "pytorch" },
  doc = [[
With ASCEND_LAUNCH_BLOCKING=1 each operator launch waits for the device to finish it: the
host cannot run ahead, the task queue is bypassed and the device idles between operators.
It is a debugging switch and should never be left on for performance runs. It is
torch_npu's variable (the CANN reference: PyTorch training and online inference); MindSpore
does not read it (its synchronous mode is `mindspore.runtime.launch_blocking()`, sync_stream's
business), so a MindSpore run is not applicable.

Fix: `unset ASCEND_LAUNCH_BLOCKING` (or set it to 0).
Saving: the device idle time of the run would mostly disappear; the estimate uses the Free
time per step when the step breakdown is known (confidence 0.6).
]],
}

function check(facts, p, emit)
  local v = facts.run.env.ASCEND_LAUNCH_BLOCKING
  if v ~= "1" then return end
  local saving, formula = 0, "not estimated (no step breakdown)"
  if facts.overall and facts.overall.steps and facts.overall.steps > 0 then
    saving = facts.overall.free_ns / facts.overall.steps
    formula = "Free time per step"
  end
  emit {
    observed = "ASCEND_LAUNCH_BLOCKING=1 in the job's environment.",
    why = "Every launch blocks until the device finishes the operator, so host and device never overlap.",
    action = "Remove the variable for performance runs.",
    commands = { "unset ASCEND_LAUNCH_BLOCKING" },
    saving_ns = saving,
    saving_formula = formula,
    confidence = 0.6,
    evidence = { { fact = "run.env.ASCEND_LAUNCH_BLOCKING", value = v } },
  }
end
