// Savings that add up. Rules estimate each saving on their own, so several findings could claim
// the same time (an online compile, the host-bound launches around it and the Free it leaves are
// one stretch). The facts split the step once (facts.idle_attribution: computing, communication,
// bubble, and idle by cause); here each finding's saving is taken from the pool of its cause
// (RuleMeta::pool) in rank order and capped at what is left, so the savings add up to at most the
// step and no two findings claim the same time. The report says how much of the step they explain.
//
// Pools: "compute", "communication" (with the bubble), "copies" (GPU runs: memcpy/memset time no
// kernel overlaps), "idle", and one per idle cause,
// "idle.<cause>" (compile, gc, sync, dataloader, communication_wait, host_launch, unexplained),
// which draws on "idle" too. Without the split (no device timeline) the pools come from the
// step breakdown and the cause pools fall back to "idle". A cluster's pools are its ranks' split
// (facts.cluster.step_split: the mean over the ranks of each rank's mean step).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu {

// `findings`: ranked findings (ranked_findings()); `facts`: the run's facts document. Caps the
// savings in place (the rule's own estimate kept as saving_estimate_ns), drops a finding whose
// estimate prints as 0.000 ms and a residual one left with under 1 % of the step, re-ranks, and
// returns the summary:
//   {available, source, step_ns (the mean step), steps, over (a cluster's: "the mean over N
//    ranks of each rank's mean step"), explained_ns,
//    parts: {computing_ns, communication_ns, bubble_ns, idle_ns, copies_ns (GPU runs)},
//    idle_causes: [{cause, ns}] (largest first, per step),
//    pools: {name: {budget_ns, claimed_ns}}}
nlohmann::json attribute_savings(nlohmann::json& findings, const nlohmann::json& facts);

// Whether `pool` names a pool of the step split: compute, communication, copies, idle, or
// idle.<cause> with a cause of idle_attribution.causes. A rule's declared pool and a finding's
// own (emit{pool}) must be one: an unknown name would escape the cap.
bool is_split_pool(const std::string& pool);
// The error text for a pool that is not one ("" when it is).
std::string pool_problem(const std::string& pool);

// The step every saving is a share of (ns per step): the split's step when the facts have it,
// else the median device step; 0 when unknown.
double saving_denominator_ns(const nlohmann::json& facts);

}  // namespace npu
