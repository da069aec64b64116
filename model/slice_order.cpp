// The slices in (track, start, longer first) order, and the innermost slice around a time.
#include <algorithm>
#include <thread>

#include "base/worker_thread.h"
#include "model/model.h"

namespace npu {

namespace {
bool slice_before(const Slice& a, const Slice& b) { return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur; }
}  // namespace

bool RunModel::sort_grouped_slices() {
  // The trace loader hands its slices over grouped by track (loaders/track_slice_blocks.h),
  // and within a track they are nearly always in time order already: then only the runs out
  // of order are sorted, in place, with no key table and no second copy of the slices.
  const size_t n = slices.size();
  for (size_t i = 1; i < n; ++i)
    if (slices[i].track < slices[i - 1].track) return false;
  for (size_t b = 0; b < n;) {
    size_t e = b + 1;
    while (e < n && slices[e].track == slices[b].track) ++e;
    // Stable: slices equal in start and duration keep their file order.
    if (!std::is_sorted(slices.begin() + b, slices.begin() + e, slice_before))
      std::stable_sort(slices.begin() + b, slices.begin() + e, slice_before);
    b = e;
  }
  return true;
}

// Orders slices by (track, ts, -dur): parents before children. Sorting the 48-byte records
// directly costs most of a large load, so the order is computed on small (ts, -dur, index)
// records: a stable counting pass groups them by track (tracks are few), each track's run is
// then usually already in time order (profilers write a thread's events in order) and only the
// runs that are not get sorted, on two threads when there are several big ones.
void RunModel::sort_slices() {
  const size_t n = slices.size();
  if (n < 2) return;
  if (n >= kNone32) {
    std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
      if (a.track != b.track) return a.track < b.track;
      if (a.ts != b.ts) return a.ts < b.ts;
      return a.dur > b.dur;
    });
    return;
  }
  if (sort_grouped_slices()) return;
  uint32_t max_track = 0;
  for (const auto& sl : slices) max_track = std::max(max_track, sl.track);
  std::vector<uint32_t> offset(size_t{max_track} + 2, 0);
  for (const auto& sl : slices) ++offset[size_t{sl.track} + 1];
  for (size_t t = 1; t < offset.size(); ++t) offset[t] += offset[t - 1];

  struct Key {
    Ns ts;
    Ns neg_dur;
    uint32_t idx;
    bool operator<(const Key& o) const { return ts != o.ts ? ts < o.ts : neg_dur < o.neg_dur; }
  };
  std::vector<Key> order(n);
  {
    std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
    for (uint32_t i = 0; i < n; ++i) {
      const Slice& sl = slices[i];
      order[fill[sl.track]++] = Key{sl.ts, -sl.dur, i};
    }
  }
  // Sort the tracks whose run is out of order; big runs are split between two threads.
  std::vector<std::pair<uint32_t, uint32_t>> unsorted;
  size_t unsorted_total = 0;
  for (size_t t = 0; t + 1 < offset.size(); ++t) {
    auto b = order.begin() + offset[t], e = order.begin() + offset[t + 1];
    if (!std::is_sorted(b, e)) {
      unsorted.emplace_back(offset[t], offset[t + 1]);
      unsorted_total += offset[t + 1] - offset[t];
    }
  }
  auto sort_runs = [&](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) std::sort(order.begin() + unsorted[r].first, order.begin() + unsorted[r].second);
  };
  if (unsorted_total > 200000 && unsorted.size() > 1 && std::thread::hardware_concurrency() > 1) {
    // Split the runs so both threads get about half of the elements.
    size_t acc = 0, split = 0;
    while (split < unsorted.size() && acc < unsorted_total / 2)
      acc += unsorted[split].second - unsorted[split].first, ++split;
    WorkerThread other([&] { sort_runs(split, unsorted.size()); });
    sort_runs(0, split);
    other.join();
  } else {
    sort_runs(0, unsorted.size());
  }

  // Apply as a gather into a new table: the reads walk each track's slices in file order (a
  // few interleaved sequential streams the prefetcher follows), where following the
  // permutation's cycles in place jumps at random and cost 3x more. The keys are dropped
  // first, so the copy's memory replaces theirs.
  std::vector<uint32_t> from(n);
  for (size_t i = 0; i < n; ++i) from[i] = order[i].idx;
  std::vector<Key>().swap(order);
  std::vector<Slice> sorted;
  sorted.reserve(n);  // not sized: each page is written once, by the copy
  for (size_t i = 0; i < n; ++i) sorted.push_back(slices[from[i]]);
  slices.swap(sorted);
}

uint32_t RunModel::enclosing_slice(uint32_t track, Ns ts) const {
  if (track >= track_slices.size()) return kNone32;
  Range r = track_slices[track];
  if (r.begin == r.end) return kNone32;
  // Last slice that starts at or before ts.
  auto first = slices.begin() + r.begin, last = slices.begin() + r.end;
  auto it = std::upper_bound(first, last, ts, [](Ns v, const Slice& s) { return v < s.ts; });
  if (it == first) return kNone32;
  // Walk back to the innermost slice that still covers ts. Nesting is shallow in practice,
  // so the walk is bounded to keep a pathological track from turning this quadratic.
  int budget = 256;
  for (auto p = it; p != first && budget-- > 0;) {
    --p;
    if (p->end() >= ts) return static_cast<uint32_t>(p - slices.begin());
  }
  return kNone32;
}

}  // namespace npu
