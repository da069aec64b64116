-- Host-bound steps: the device waits on the host's operator launches.
rule {
  id = "dispatch.host_bound",
  title = "The host cannot launch operators fast enough: the device waits on it",
  category = "dispatch",
  severity = "high",
  pool = "idle.host_launch",  -- its saving is idle time of this cause (rules/attribution.h)
  needs = { "dispatch.steps", "dispatch.task_queue", "dispatch.overall.host_bound_free_ns" },
  platforms = { "ascend" },
  params = {
    factor = { default = 0.5, min = 0, max = 1, doc = "share of the host-bound idle above the healthy-step baseline the task queue recovers" },
    factor_level2 = { default = 0.25, min = 0, max = 1, doc = "the share at task queue level 2 already (only code changes left)" },
    graph_share = { default = 0.5, min = 0, max = 1, doc = "from this share of device time launched by graphs, the work counts as run as graphs" },
  },
  doc = [[
Why: in a host-bound step the device finishes each task before the host has launched the next
one, so the device idles between tasks. Every microsecond of that idle is step time.

How it is measured (facts.dispatch, docs/facts-dispatch.md): a step is host-bound, as the verdict
dispatch.step_class decides it (its parameters, docs/rules.md "Verdicts"), when at least
`host_bound_vertical_share` of its launches are vertical (the task starts within `vertical_lag_ns`
of its host launch) and the idle gaps ended by such launches ("host-bound idle",
host_bound_free_ns) are at least `host_bound_free_ratio` of the step's device time. The reference advisor has no such check at all: on the real mstt
timeline_advice trace (device idle 84 % of the step, 99 % vertical launches) it gives no
host-dispatch advice.

Fix: torch_npu's two-stage task queue moves part of each launch off the Python thread.
TASK_QUEUE_ENABLE=1 (the default) splits the launch into two stages; =2 also moves the
workspace work to the second stage and balances the two (binary kernels only, i.e. with
jit_compile=False; the NPU memory peak can rise a little). So:
  - queue off (TASK_QUEUE_ENABLE=0, or no Enqueue/Dequeue in the trace): `export TASK_QUEUE_ENABLE=1`
    (then try 2);
  - level 1 or unset (default 1): `export TASK_QUEUE_ENABLE=2`;
  - already 2: nothing left to switch on; reduce the host work (CPU binding, fused operators,
    fewer small operators, no online compilation) instead: `export CPU_AFFINITY_CONF=2` unless
    run.env shows the binding at mode 2 already (then no command: the code is what is left).
MindSpore runs have no such queue: they get graph mode (`mindspore.set_context(mode=GRAPH_MODE)`,
one compiled graph instead of PyNative per-operator launches) and dataset sink mode instead.
Work that already runs as graphs (at least `graph_share` of the device time launched by
graph executions, facts.graph_execution: MindSpore GRAPH_MODE, ACL graph replay, GE) gets neither
graph mode nor the queue, which only speeds per-operator launches: MindSpore gets dataset sink
mode (the host round trip left between graph executions), torch_npu the host work between the
replays and the operators still launched one by one (confidence 0.3, the level-2 factor).
Dataset sink (`model.train(..., dataset_sink_mode=True)`) is training advice: a MindSpore job
known to be inference (facts.job.training false) gets graph mode only, and, already in graphs,
the host work between the graph executions (no command).
The queue level is read from dispatch.task_queue.task_queue_enable_env (profiler_metadata.json);
when it was not recorded, an active queue is assumed to be at level 1 and confidence drops.

Saving per step = factor x sum over host-bound steps of (host-bound idle - baseline) / number of
steps, where baseline is the median host-bound idle of the steps that are not host-bound (0
when every step is host-bound): that much idle is left even in a healthy step (the trailing
dataloader gap). `factor` is the share of the host's per-operator time that
the queue takes off the Python thread: the op-api/aclnn part of a launch is about half of the
aten op that issues it (sample: aclnnMm 5.96 us mean inside aten::mm 12.97 us), and the
host-caused idle cannot shrink by more than the host work removed. At level 2 already the
factor is `factor_level2` (only code changes are left). The saving never exceeds the
host-bound idle it comes from.

When the advice is `export TASK_QUEUE_ENABLE=2` and the replay reproduces the measured steps as
two host stages (facts.whatif.two_stage, docs/whatif.md "The task queue"), the saving is the
replay's `task_queue` transformation instead (saving_method replay): the workspace calls moved
to the queue thread, replayed; it is zero where the queue thread is the slower stage already.
Otherwise the formula above stays (saving_method formula, saving_note why).

Confidence: 0.7 when the queue level is known (or unset = 1) and a switch is available; 0.5
when the level had to be inferred; 0.3 at level 2. When the longest host-bound gaps end at
tasks launched inside aclopCompileAndExecute the finding says so: fix dispatch.op_compile
first (level 2 does not apply to online-compiled operators).
]],
}

local sname, median = util.step_name, util.median  -- sandbox helpers (docs/rules.md)
local evidence = require "lib.evidence"
local run = require "lib.run"
local steplib = require "lib.steps"
local graphs = require "lib.graphs"

function check(facts, p, emit)
  local steps = facts.dispatch.steps
  local n = #steps
  if n == 0 then return end
  local others = {}
  local verdict = {}
  for i, s in ipairs(steps) do verdict[i] = steplib.verdict(s) end
  for i, s in ipairs(steps) do
    if verdict[i] ~= "host-bound" and verdict[i] ~= "unknown" and s.host_bound_free_ns then
      others[#others + 1] = s.host_bound_free_ns
    end
  end
  local baseline = median(others) or 0

  local hb, excess_sum, hb_free_sum, worst = {}, 0, 0, nil
  for i, s in ipairs(steps) do
    if verdict[i] == "host-bound" and s.host_bound_free_ns then
      local ex = math.max(0, s.host_bound_free_ns - baseline)
      excess_sum = excess_sum + ex
      hb_free_sum = hb_free_sum + s.host_bound_free_ns
      hb[#hb + 1] = s
      if not worst or s.host_bound_free_ns > worst.host_bound_free_ns then worst = s end
    end
  end
  if #hb == 0 then return end

  -- Task-queue state.
  local tq = facts.dispatch.task_queue
  local env = run.env(facts)
  local level = tq.task_queue_enable_env
  if level == nil then level = env.TASK_QUEUE_ENABLE end
  local blocking = env.ASCEND_LAUNCH_BLOCKING == "1"
  local state, cmds, conf, factor
  local mindspore = run.is_mindspore(facts)
  local as_graph = graphs.share(facts) >= p.graph_share
  -- Dataset sink is model.train's: an inference job has no training dataset to sink.
  local inference = run.inference(facts)
  if mindspore and as_graph then
    state = "none (MindSpore in graph mode: " .. graphs.describe(facts) .. ")"
    cmds = inference and {} or { "model.train(epoch, train_dataset, dataset_sink_mode=True)" }
    conf, factor = 0.3, p.factor_level2
  elseif as_graph then
    state = "not used by graph replays (" .. graphs.describe(facts) .. ")"
    cmds = {}
    conf, factor = 0.3, p.factor_level2
  elseif mindspore then
    -- MindSpore launches through its own runtime: the torch_npu task queue is not there to raise.
    state = "none (MindSpore launches through its own runtime)"
    cmds = { "mindspore.set_context(mode=mindspore.GRAPH_MODE)" }
    if not inference then cmds[2] = "model.train(epoch, train_dataset, dataset_sink_mode=True)" end
    conf, factor = 0.5, p.factor
  elseif blocking or level == "0" then
    state = blocking and "disabled by ASCEND_LAUNCH_BLOCKING=1" or "off (TASK_QUEUE_ENABLE=0)"
    cmds = { "export TASK_QUEUE_ENABLE=1" }
    if blocking then table.insert(cmds, 1, "unset ASCEND_LAUNCH_BLOCKING") end
    conf, factor = 0.7, p.factor
  elseif level == "2" then
    state = "already at level 2 (TASK_QUEUE_ENABLE=2)"
    -- The binding is the next switch, unless the job runs with it already.
    local bound = string.sub(env.CPU_AFFINITY_CONF or "", 1, 1) == "2"
    cmds = bound and {} or { "export CPU_AFFINITY_CONF=2" }
    if bound then state = state .. ", CPU_AFFINITY_CONF=" .. env.CPU_AFFINITY_CONF end
    conf, factor = 0.3, p.factor_level2
  elseif level == "1" or level == "" then
    state = level == "1" and "level 1 (TASK_QUEUE_ENABLE=1)" or "level 1 (TASK_QUEUE_ENABLE unset, default 1)"
    cmds = { "export TASK_QUEUE_ENABLE=2" }
    conf, factor = 0.7, p.factor
  elseif level == nil and not tq.two_stage_active then
    state = "apparently off (no Enqueue/Dequeue in the trace, TASK_QUEUE_ENABLE not recorded)"
    cmds = { "export TASK_QUEUE_ENABLE=1" }
    conf, factor = 0.5, p.factor
  else
    state = "active (" .. tostring(tq.enqueue_slices or 0) .. " Enqueue slices), level not recorded"
    cmds = { "export TASK_QUEUE_ENABLE=2" }
    conf, factor = 0.5, p.factor
  end

  -- Are the longest gaps online compilation?
  local compile_gaps = 0
  for _, e in ipairs(worst.evidence or {}) do
    if e.what and string.find(e.what, "aclopCompileAndExecute", 1, true) then compile_gaps = compile_gaps + 1 end
  end

  local ids, parts = {}, {}
  for _, s in ipairs(hb) do
    ids[#ids + 1] = sname(s.id)
    parts[#parts + 1] = string.format("step %s: %.3f ms host-bound idle of %.3f ms device time, %.0f%% vertical launches",
      sname(s.id), s.host_bound_free_ns / 1e6, s.device_time_ns / 1e6, 100 * (s.vertical_share or 0))
  end
  local saving = math.min(factor * excess_sum, hb_free_sum) / n
  local observed = string.format("%d of %d steps are host-bound (%s); task queue %s.",
    #hb, n, table.concat(parts, "; "), state)
  if baseline > 0 then
    observed = observed .. string.format(" Other steps keep %.3f ms of host-bound idle (baseline).", baseline / 1e6)
  end
  local action = "Raise the task-queue level so more of each launch runs on the second-stage thread; "
    .. "then cut host work per operator (CPU binding, fused operators, fewer small operators)."
  if as_graph and mindspore and inference then
    action = "The network already runs as a compiled graph, so graph mode has nothing to add: cut the host work between "
      .. "the graph executions (input preparation, sampling, output handling) and keep Python work out of the loop."
  elseif as_graph and mindspore then
    action = "The network already runs as a compiled graph, so graph mode has nothing to add: sink the dataset to the "
      .. "device so that no host round trip separates the graph executions, and keep Python work out of the step."
  elseif as_graph then
    action = "Most device work already replays as graphs, which the task queue does not speed up: cut the host work "
      .. "between the replays (input copies, sampling, scheduling) and capture the operators still launched one by one."
  elseif mindspore and inference then
    action = "Launch fewer operators from the host: run the network in graph mode (one compiled graph instead of "
      .. "operator-by-operator PyNative launches) and keep Python work out of the loop."
  elseif mindspore then
    action = "Launch fewer operators from the host: run the network in graph mode (one compiled graph instead of "
      .. "operator-by-operator PyNative launches) and sink the dataset to the device so each step needs no host round trip."
  elseif level == "2" and #cmds == 0 then
    action = "The task queue is already at level 2 and the launch threads are bound to their cores: reduce host work "
      .. "per operator (use fused operators, remove small operators and host-side Python in the step)."
  elseif level == "2" then
    action = "The task queue is already at level 2: reduce host work per operator (bind CPU cores, "
      .. "use fused operators, remove small operators and host-side Python in the step)."
  end
  if compile_gaps > 0 and not mindspore and not as_graph then
    observed = observed .. " The longest host-bound gaps end at tasks launched inside AscendCL@aclopCompileAndExecute (online compilation)."
    action = action .. " Fix online compilation first (dispatch.op_compile): level 2 only applies to binary kernels (jit_compile=False)."
  end

  local ev = evidence.add({}, worst.evidence, 4)
  ev[#ev + 1] = { fact = "dispatch.steps[id=" .. sname(worst.id) .. "].host_bound_free_ns", value = worst.host_bound_free_ns }
  if as_graph then
    ev[#ev + 1] = { fact = "graph_execution.graph_share_of_time", value = graphs.share(facts) }
  elseif not mindspore then
    ev[#ev + 1] = { fact = "dispatch.task_queue.task_queue_enable_env", value = tq.task_queue_enable_env }
  end

  -- The raise to level 2 is what the replay's two-stage host graph models (facts.whatif,
  -- transformation task_queue): its saving replaces the factor where the replay reproduces.
  local to_level2 = #cmds == 1 and cmds[1] == "export TASK_QUEUE_ENABLE=2"

  emit {
    whatif = to_level2 and "task_queue" or false,
    observed = observed,
    why = "The device finishes each task before the host has launched the next one, so it idles between tasks.",
    action = action,
    commands = cmds,
    saving_ns = saving,
    saving_formula = string.format("%.2f x sum over host-bound steps (%s) of (host-bound idle - baseline %.3f ms) / %d steps",
      factor, table.concat(ids, ", "), baseline / 1e6, n),
    confidence = conf,
    evidence = ev,
    data = { host_bound_steps = ids, baseline_ns = baseline, excess_ns = excess_sum, queue = state },
  }
end
