// Host waits a harness made around the model's work, not the model itself (issue 43: a benchmark
// runner's timing syncs and the profiler's own were blamed on the user's code). From the Python
// stack of a with_stack run:
//   - the profiler's: a torch.profiler frame (torch/profiler/, torch/autograd/profiler.py) around
//     the call (its start, step and export synchronise);
//   - a timing bracket: an explicit torch.cuda.synchronize() before the first or after the last
//     device launch of its step, called from a function whose frame encloses all of that step's
//     launches (a runner timing the step: xDiT's _run_timed_pipe, a benchmark loop).
// Reads, `.item()` and copies are never a harness's: the value is the model's.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "facts/frame/run_frame.h"
#include "facts/python_stacks.h"

namespace npu {

enum class Harness : uint8_t { None, Profiler, TimingBracket };
// "profiler", "timing bracket"; nullptr for None.
const char* to_string(Harness h);

class HarnessSyncs {
 public:
  HarnessSyncs(const RunFrame& frame, const PythonStacks& py);
  // The harness that made the host call `slice` (a sync) whose call site is `c`.
  Harness of(uint32_t slice, const CallSite& c) const;

 private:
  const RunFrame& frame_;
  const PythonStacks& py_;
  std::vector<std::pair<Ns, Ns>> launches_;  // per step: the first and last launch call's start
};

}  // namespace npu
