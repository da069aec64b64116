-- Verbose CANN logging slows the host side of every operator launch.
rule {
  id = "environment.log_level",
  title = "CANN log level is more verbose than the default",
  category = "environment",
  severity = "medium",
  needs = { "run.env" },
  platforms = { "ascend" },
  params = {
    recommended = { default = 3, min = 0, max = 4, doc = "ASCEND_GLOBAL_LOG_LEVEL below this logs more than needed" },
  },
  doc = [[
ASCEND_GLOBAL_LOG_LEVEL below 3 (0 debug, 1 info, 2 warning) makes CANN write log lines on
the launch path of every operator, which costs host time in host-bound steps. The reference
advisor flags any value other than 3 (error); here a level above 3 (4: no log at all) is not
reported: it logs less than the advice would, so raising verbosity to 3 cannot help.

Fix: `export ASCEND_GLOBAL_LOG_LEVEL=3` before starting the job.
Saving: not estimated from the profile (log cost is not traced); confidence is low.
]],
}

function check(facts, p, emit)
  local v = facts.run.env.ASCEND_GLOBAL_LOG_LEVEL
  if v == nil or v == "" then return end
  -- Only a more verbose level costs time: 4 (no log) logs less than the recommended 3.
  local level = tonumber(v)
  if level == nil or level >= p.recommended then return end
  emit {
    observed = string.format("ASCEND_GLOBAL_LOG_LEVEL=%s (recommended %d).", v, p.recommended),
    why = "Debug/info logging adds host work to every operator launch.",
    action = "Set the log level to error for performance runs.",
    commands = { string.format("export ASCEND_GLOBAL_LOG_LEVEL=%d", p.recommended) },
    confidence = 0.3,
    evidence = { { fact = "run.env.ASCEND_GLOBAL_LOG_LEVEL", value = v } },
  }
end
