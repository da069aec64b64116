#include "base/intervals.h"

#include <algorithm>
#include <iterator>

namespace npu {

namespace {
// Merges start-sorted intervals into sorted, disjoint, non-empty ones (touching ones joined).
Intervals merge_sorted(const Intervals& in) {
  Intervals out;
  for (const auto& iv : in) {
    if (iv.end <= iv.start) continue;
    if (!out.empty() && iv.start <= out.back().end) {
      out.back().end = std::max(out.back().end, iv.end);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}
}  // namespace

Intervals union_of(Intervals in) {
  std::sort(in.begin(), in.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  return merge_sorted(in);
}

Intervals union_of(const Intervals& a, const Intervals& b) {
  Intervals all;
  all.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all),
             [](const Interval& x, const Interval& y) { return x.start < y.start; });
  return merge_sorted(all);
}

Intervals difference(const Intervals& a, const Intervals& b) {
  Intervals out;
  size_t j = 0;
  for (const auto& iv : a) {
    Ns cur = iv.start;
    while (j < b.size() && b[j].end <= cur) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start < iv.end) {
      if (b[k].start > cur) out.push_back({cur, b[k].start});
      cur = std::max(cur, b[k].end);
      if (cur >= iv.end) break;
      ++k;
    }
    if (cur < iv.end) out.push_back({cur, iv.end});
  }
  return out;
}

Intervals intersection(const Intervals& a, const Intervals& b) {
  Intervals out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    Ns lo = std::max(a[i].start, b[j].start), hi = std::min(a[i].end, b[j].end);
    if (lo < hi) out.push_back({lo, hi});
    if (a[i].end < b[j].end) ++i;
    else ++j;
  }
  return out;
}

Ns total_length(const Intervals& v) {
  Ns t = 0;
  for (const auto& iv : v) t += iv.length();
  return t;
}

Intervals clip(const Intervals& v, Ns lo, Ns hi) {
  Intervals out;
  // Normalised: ends are sorted too, so the first interval reaching past lo is found by search.
  auto it = std::lower_bound(v.begin(), v.end(), lo, [](const Interval& iv, Ns t) { return iv.end <= t; });
  for (; it != v.end() && it->start < hi; ++it) {
    Ns s = std::max(it->start, lo), e = std::min(it->end, hi);
    if (s < e) out.push_back({s, e});
  }
  return out;
}

}  // namespace npu
