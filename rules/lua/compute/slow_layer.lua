-- One layer of a repeated stack takes longer on the device than its identical siblings.
rule {
  id = "compute.slow_layer",
  title = "A layer of a repeated stack takes longer on the device than its identical siblings",
  category = "compute",
  severity = "medium",
  needs = { "modules.repeated", "modules.step_device_ns" },
  params = {
    min_members = { default = 4, min = 2, doc = "a repeated layer needs at least this many members" },
    max_spread = { default = 0.10, min = 0, max = 1, doc = "the members agree when their MAD is at most this share of their median" },
    min_ratio = { default = 1.3, min = 1, doc = "a member at least this many times the median is slow" },
    min_excess_share = { default = 0.01, min = 0, max = 1, doc = "reported when the slow members' excess is at least this share of the step's device work" },
  },
  doc = [[
Why: the layers of a stack (decoder layer 0..N, the blocks of a ResNet stage) are the same code on
the same shapes, so they launch the same kernels and take the same device time. One that takes
longer does different work: another kernel was chosen (a shape or dtype changed, a fallback),
an extra copy or cast runs in it, or a device-side wait sits inside it.

How it is measured (facts.modules.repeated, docs/facts-modules.md): siblings of one class and one
shape (the same classes of children in the same order), at least `min_members` of them, whose
median absolute deviation is at most `max_spread` of their median: the members agree. A
member at least `min_ratio` x the median is reported when the excess of all such members
over the median is at least `min_excess_share` of the step's device work.

Fix: compare the slow layer's kernels with a sibling's (the evidence gives both ranges in the
trace): the first kernel that differs in name, count or duration is the cause.

Saving per step (formula): the slow members' device time above the median, as if each took the
median; device time, so bounded by the computing time (the compute pool). Confidence 0.4.
]],
}

local evidence = require "lib.evidence"
local modules = require "lib.modules"

function check(facts, p, emit)
  local m = facts.modules
  local total = m.step_device_ns or 0
  if total <= 0 then return end
  for _, layer in ipairs(m.repeated) do
    local out, excess = modules.outliers(layer, p.min_members, p.max_spread, p.min_ratio)
    if #out > 0 and excess >= p.min_excess_share * total then
      local names, ev = {}, {}
      for i, o in ipairs(out) do
        if i <= 3 then
          names[#names + 1] = string.format("%s %.3f ms (%.1fx)", o.member.path, o.member.device_ns / 1e6, o.ratio)
          evidence.add(ev, o.member.evidence, 1)
        end
      end
      -- A sibling at the median, to compare with.
      local typical
      for _, mem in ipairs(layer.members) do
        if not typical or math.abs(mem.device_ns - layer.median_ns) < math.abs(typical.device_ns - layer.median_ns) then
          typical = mem
        end
      end
      evidence.add(ev, typical.evidence, 1)
      ev[#ev + 1] = { fact = "modules.repeated.median_ns", value = layer.median_ns }
      local where = layer.parent and (" in " .. layer.parent) or ""
      emit {
        observed = string.format("Of %d identical %s layers%s (median %.3f ms per step, spread %.3f ms), %s.",
          layer.count, layer.class, where, layer.median_ns / 1e6, layer.mad_ns / 1e6, table.concat(names, ", ")),
        why = "Identical layers launch the same kernels on the same shapes; one that takes longer does other work.",
        action = string.format("Compare the kernels launched in %s with those of %s (both ranges are in the evidence): "
          .. "the first kernel that differs in name, count or duration is the cause.", out[1].member.path, typical.path),
        commands = {},
        saving_ns = excess,
        saving_formula = string.format("the slow members' device time above the median: %.3f ms per step", excess / 1e6),
        confidence = 0.4,
        evidence = ev,
      }
    end
  end
end
