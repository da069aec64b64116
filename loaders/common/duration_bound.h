// How long a record can last: an event or a row ending more than kMaxOverhangNs after the last
// start in its own file is a corrupt number, not time (a 1000 s kernel in a 14 ms trace, a 1e18 ns
// device time, an 11-day step). The loaders drop such records and say so (the run is partial).
#pragma once
#include "base/types.h"

namespace npu {

constexpr Ns kMaxOverhangNs = 60'000'000'000;  // 60 s

// Whether a record starting at `start` and lasting `dur` ends more than kMaxOverhangNs after
// `last_start` (the latest start in its file); written so that a huge `dur` cannot overflow.
inline bool lasts_impossibly_long(Ns start, Ns dur, Ns last_start) {
  return dur > 0 && start <= last_start && dur - (last_start - start) > kMaxOverhangNs;
}

// A duration with no start beside it (a row of the profiler's step breakdown: step_trace_time.csv,
// StepTraceTime) has no file span to be bounded by: no capture lasts a day, so a longer one is a
// corrupt number (a Computing of 1e15 us made a 31-year step), dropped like the others.
constexpr Ns kMaxUntimedDurationNs = 86'400'000'000'000;  // 24 h

inline bool impossibly_long(Ns dur) { return dur > kMaxUntimedDurationNs; }
// How the loaders say it of a row they skip (or refuse).
inline constexpr const char* kImpossiblyLongRow = "with a time over 24 hours (impossible for one step)";

}  // namespace npu
