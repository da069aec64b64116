// The GPU step's self-check (step_check.cpp): what cannot be true of a step, checked on the
// launched-work windows (the frame's launched work). Called by the breakdown (overlap.cpp).
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/facts.h"
#include "facts/frame/step_windows.h"
#include "model/model.h"

namespace npu {

// A step's parts as the breakdown computed them: computing + not-overlapped communication +
// copies + free, which must equal the window's length.
struct StepParts {
  Ns sum = 0;
};

// overall.self_check: {ok, rule, device_ops, launched_in_steps, unowned_in_steps,
// unowned_in_steps_ns, longer_than_step, steps_not_adding_up, max_unowned_share, problems[],
// evidence (the op that overruns its step most)}.
nlohmann::json launched_work_self_check(const RunModel& m, const std::vector<LaunchedOp>& launched,
                                        const std::vector<StepWindow>& w, const std::vector<StepParts>& parts);

}  // namespace npu
