// Interval arithmetic on [start, end) nanosecond ranges: the overlap breakdown is unions and
// set differences of these.
#pragma once
#include <vector>

#include "base/types.h"

namespace npu {

struct Interval {
  Ns start = 0, end = 0;
  Ns length() const { return end > start ? end - start : 0; }
  bool operator==(const Interval& o) const { return start == o.start && end == o.end; }
};
using Intervals = std::vector<Interval>;

// Sorted, disjoint, non-empty intervals covering the same points as `in` (any order, nesting,
// overlaps and zero-length items allowed). Touching intervals are merged.
Intervals union_of(Intervals in);
// The same for two normalised sets, in linear time (a merge, no sort).
Intervals union_of(const Intervals& a, const Intervals& b);
// Points of a not in b. Both must be normalised (output of union_of).
Intervals difference(const Intervals& a, const Intervals& b);
// Points in both. Both must be normalised.
Intervals intersection(const Intervals& a, const Intervals& b);
Ns total_length(const Intervals& v);
// The part of normalised `v` inside [lo, hi).
Intervals clip(const Intervals& v, Ns lo, Ns hi);

}  // namespace npu
