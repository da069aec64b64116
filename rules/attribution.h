// Savings that add up. Rules estimate each saving on their own, so several findings can claim the
// same idle time (an online compile, the host-bound launches it causes and the Free it leaves
// are one interval). Here the step's time is split into pools, each finding's saving is taken
// from its pool in rank order and capped at what is left, and the idle-time symptom
// (schedule.free_time, residual) only gets what no cause explained. The findings' savings then
// add up to at most the step; the report says how much of it they explain.
#pragma once
#include <nlohmann/json.hpp>

namespace npu {

// `findings`: ranked findings (ranked_findings()); `facts`: the run's facts document. Caps the
// savings in place (the rule's own estimate kept as saving_estimate_ns), drops a residual finding
// left with under 1 % of the step, re-ranks, and returns the summary:
//   {available, step_ns, explained_ns, pools: {idle|communication|compute: {budget_ns, claimed_ns}}}
nlohmann::json attribute_savings(nlohmann::json& findings, const nlohmann::json& facts);

}  // namespace npu
