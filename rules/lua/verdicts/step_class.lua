-- Per step: is the host or the device the bottleneck? Decided once per run, before the rules;
-- the dispatch rules read it (lib.steps: steps.verdict) and the reports show it.
verdict {
  id = "dispatch.step_class",
  title = "Host-bound, device-bound or mixed, per step",
  params = {
    host_bound_vertical_share = { default = 0.5, min = 0, max = 1,
      doc = "host-bound needs at least this share of vertical launches (dispatch.steps[].vertical_share)" },
    host_bound_free_ratio = { default = 0.10, min = 0, max = 1,
      doc = "host-bound needs host-caused idle of at least this share of the step's device time (host_bound_free_ratio); device-bound needs less" },
    device_bound_vertical_share = { default = 0.2, min = 0, max = 1,
      doc = "device-bound needs at most this share of vertical launches" },
    vertical_lag_ns = { default = 50000, min = 0,
      doc = "a launch is vertical (the device waited on the host) when its device task starts at most this long after the host launch, ns; the facts measure with it (dispatch.thresholds.vertical_lag_ns: vertical_share, host_bound_free_ns, interruptions) and the timeline colours launch lines by it" },
  },
  doc = [[
Each dispatch.steps entry (and dispatch.overall) gets a class and a one-line why:
"unknown" without launches; "host-bound" when vertical_share >= host_bound_vertical_share and
host_bound_free_ratio >= host_bound_free_ratio (most tasks start as soon as they are launched and
the device waits on the host); "device-bound" when vertical_share <= device_bound_vertical_share
and host_bound_free_ratio below its threshold; "mixed" otherwise. Without a device timeline
(dispatch.has_device_timeline false) there are no idle gaps, and the vertical share alone decides.
The result is verdicts.dispatch.step_class in the report document: steps[] ({id, start_ns, class,
why}, in the order of dispatch.steps), overall ({class, why}) and steps_by_class.
]],
}

local function us(ns)
  return string.format("%.1f us", ns / 1000)
end

-- One dispatch.steps entry (or dispatch.overall): its class and why.
local function judge(s, p, has_device, lag_ns)
  if (s.count or 0) == 0 then return "unknown", "no launches to judge" end
  local v = s.vertical_share or 0
  local lags = string.format("%.0f%% of launches started within %s of the host launch", v * 100, us(lag_ns))
  if not has_device then
    local cls = v >= p.host_bound_vertical_share and "host-bound"
      or v <= p.device_bound_vertical_share and "device-bound" or "mixed"
    return cls, lags .. "; no device timeline, so judged on launch lags alone"
  end
  local idle = s.host_bound_free_ratio or 0
  local cls = "mixed"
  if v >= p.host_bound_vertical_share and idle >= p.host_bound_free_ratio then cls = "host-bound"
  elseif v <= p.device_bound_vertical_share and idle < p.host_bound_free_ratio then cls = "device-bound" end
  return cls, lags .. string.format("; the device sat idle waiting on the host for %.1f%% of its time", idle * 100)
end

local run = require "lib.run"

function decide(facts, p)
  local d = facts.dispatch
  if not d or not d.steps then return nil end
  -- A start-up graph capture's steps are not iterations: no class (lib.run.startup_capture).
  local startup = run.startup_capture(facts)
  local has_device = d.has_device_timeline
  -- The lag the facts measured with (a facts file written under another --set keeps its own).
  local lag_ns = (d.thresholds and d.thresholds.vertical_lag_ns) or p.vertical_lag_ns
  local out, by_class = {}, {}
  for i, s in ipairs(d.steps) do
    local cls, why
    -- Facts of an older version (no has_device_timeline) carry their own classification.
    if startup then cls, why = "unknown", startup
    elseif has_device == nil and s.classification then cls, why = s.classification, s.why or ""
    else cls, why = judge(s, p, has_device ~= false, lag_ns) end
    out[i] = { id = s.id, start_ns = s.start_ns, class = cls, why = why }
    by_class[cls] = (by_class[cls] or 0) + 1
  end
  local overall = nil
  if d.overall then
    local cls, why = judge(d.overall, p, has_device ~= false, lag_ns)
    if has_device == nil and d.overall.classification then cls, why = d.overall.classification, d.overall.why or "" end
    if startup then cls, why = "unknown", startup end
    overall = { class = cls, why = why }
  end
  return { steps = out, overall = overall, steps_by_class = by_class }
end
