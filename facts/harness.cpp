#include "facts/harness.h"

#include <algorithm>
#include <limits>

namespace npu {

const char* to_string(Harness h) {
  switch (h) {
    case Harness::Profiler: return "profiler";
    case Harness::TimingBracket: return "timing bracket";
    case Harness::None: break;
  }
  return nullptr;
}

HarnessSyncs::HarnessSyncs(const RunFrame& frame, const PythonStacks& py) : frame_(frame), py_(py) {
  if (!py.available()) return;
  launches_.assign(frame.steps().size(), {std::numeric_limits<Ns>::max(), std::numeric_limits<Ns>::min()});
  const RunModel& m = frame.model();
  for (const LaunchedOp& op : frame.launched()) {
    if (op.step < 0 || op.call == kNone32 || static_cast<size_t>(op.step) >= launches_.size()) continue;
    auto& [first, last] = launches_[static_cast<size_t>(op.step)];
    first = std::min(first, m.slices[op.call].ts);
    last = std::max(last, m.slices[op.call].ts);
  }
}

Harness HarnessSyncs::of(uint32_t slice, const CallSite& c) const {
  if (!py_.available()) return Harness::None;
  if (c.profiler) return Harness::Profiler;
  if (!c.explicit_sync || c.frame == kNone32) return Harness::None;
  const RunModel& m = frame_.model();
  const int k = frame_.step_of_host(m.slices[slice].ts);
  if (k < 0 || static_cast<size_t>(k) >= launches_.size()) return Harness::None;
  const auto [first, last] = launches_[static_cast<size_t>(k)];
  if (first > last) return Harness::None;
  const Slice& at = m.slices[slice];
  const Slice& caller = m.slices[c.frame];
  const bool outside = at.ts < first || at.ts > last;
  const bool encloses = caller.ts <= first && caller.end() >= last;
  return outside && encloses ? Harness::TimingBracket : Harness::None;
}

}  // namespace npu
