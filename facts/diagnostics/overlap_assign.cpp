// The step breakdown's parts and how device segments are given to steps (overlap_parts.h).
#include <algorithm>
#include <limits>

#include "facts/diagnostics/overlap_parts.h"

namespace npu::breakdown {
namespace {

// msprof: the first start and last end of every device task (runtime tasks too) per window.
std::vector<Interval> task_extents(const RunModel& m, const std::vector<StepWindow>& w) {
  std::vector<Interval> ext(w.size(), Interval{std::numeric_limits<Ns>::max(), std::numeric_limits<Ns>::min()});
  const StepWindowIndex index(w);
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::Device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      int k = index.at(s.ts);
      if (k < 0) continue;
      ext[static_cast<size_t>(k)].start = std::min(ext[static_cast<size_t>(k)].start, s.ts);
      ext[static_cast<size_t>(k)].end = std::max(ext[static_cast<size_t>(k)].end, s.end());
    }
  }
  return ext;
}

}  // namespace

void add_breakdown(JsonObject& o, const Breakdown& b) {
  Ns total = b.device_time();
  o.add("computing_ns", b.computing)
      .add("communication_ns", b.communication)
      .add("comm_not_overlapped_ns", b.comm_not_overlapped)
      .add("overlapped_ns", b.overlapped)
      .add("free_ns", b.free);
  if (b.copies != kNoId) o.add("copies_ns", b.copies);
  o.add("device_time_ns", total)
      .add("bubble_ns", b.bubble)
      .add("stage_ns", total - b.bubble)
      .add("comm_not_overlapped_excl_receive_ns", b.comm_not_overlapped - b.bubble)
      .add_or_null("preparing_ns", b.preparing, kNoId)
      .add("free_ratio", total > 0 ? static_cast<double>(b.free) / static_cast<double>(total) : 0.0);
}

nlohmann::json to_json(const Breakdown& b) {
  JsonObject o;
  add_breakdown(o, b);
  return o.take();
}

nlohmann::json agreement(const Breakdown& ours, const Breakdown& theirs) {
  Ns worst = 0;
  const char* worst_name = "";
  auto check = [&](Ns a, Ns b, const char* name) {
    Ns d = a > b ? a - b : b - a;
    if (d > worst) {
      worst = d;
      worst_name = name;
    }
  };
  check(ours.computing, theirs.computing, "computing");
  check(ours.communication, theirs.communication, "communication");
  check(ours.comm_not_overlapped, theirs.comm_not_overlapped, "comm_not_overlapped");
  check(ours.free, theirs.free, "free");
  if (ours.preparing != kNoId && theirs.preparing != kNoId) check(ours.preparing, theirs.preparing, "preparing");
  Ns scale = std::max(ours.device_time(), theirs.device_time());
  Ns tolerance = std::max<Ns>(1000, scale / 1000);
  JsonObject o;
  o.add("max_abs_diff_ns", worst)
      .add("max_rel_diff", scale > 0 ? static_cast<double>(worst) / static_cast<double>(scale) : 0.0)
      .add("worst", worst_name)
      .add("tolerance_ns", tolerance)
      .add("ok", worst <= tolerance);
  return o.take();
}

bool is_receive(std::string_view op) { return op.rfind("hcom_receive", 0) == 0; }

Intervals gaps(const Intervals& busy) {
  Intervals g;
  for (size_t i = 1; i < busy.size(); ++i) g.push_back({busy[i - 1].end, busy[i].start});
  return g;
}

// torch_npu text export: the Overlap Analysis segments of the whole capture, each in the first
// step whose device window holds its start (not clipped at the boundary).
void capture_segments(const RunModel& m, const DeviceTimeline& d, const std::vector<StepWindow>& w, Accumulator& acc) {
  const StepWindowIndex index(w);
  const Intervals& busy = d.busy;
  // GPU runs: memcpy/memset keep the device window open (docs/facts-gpu.md); Ascend: the
  // profiler's Free lies between compute/communication segments only.
  Intervals free = m.meta.platform == "gpu" ? difference(Intervals{d.window}, busy) : gaps(busy);
  auto assign = [&](const Intervals& segs, Ns Breakdown::*field, bool is_busy) {
    for (const auto& s : segs) {
      int i = index.at(s.start);
      if (i >= 0) acc.add(static_cast<size_t>(i), s, field, is_busy);
    }
  };
  assign(d.compute, &Breakdown::computing, true);
  assign(d.comm, &Breakdown::communication, true);
  assign(difference(d.comm, d.compute), &Breakdown::comm_not_overlapped, false);
  assign(free, &Breakdown::free, false);
  for (uint32_t k : d.comm_slices) {
    const Slice& s = m.slices[k];
    int i = is_receive(m.str(s.name)) ? index.at(s.ts) : -1;
    if (i >= 0) acc.per[static_cast<size_t>(i)].bubble += s.dur;
  }
}

// GPU (Kineto, LaunchedWork): windows follow each other without overlap, and each step's
// parts are the device unions clipped to its window, so every instant is in one step at most.
// Free is the window less every kind of device work (copies included); no Preparing (the
// window starts where the previous step's device work ended, or at its host start).
void launched_work(const DeviceTimeline& d, const std::vector<StepWindow>& w, Accumulator& acc, bool copies) {
  const Intervals cno = difference(d.comm, d.compute);
  for (size_t i = 0; i < w.size(); ++i) {
    const Ns lo = w[i].start, hi = w[i].end;
    for (const Interval& s : clip(d.compute, lo, hi)) acc.add(i, s, &Breakdown::computing, true);
    for (const Interval& s : clip(d.comm, lo, hi)) acc.add(i, s, &Breakdown::communication, true);
    for (const Interval& s : clip(cno, lo, hi)) acc.add(i, s, &Breakdown::comm_not_overlapped, false);
    if (copies) acc.per[i].copies = total_length(clip(d.copies, lo, hi));
    for (const Interval& s : difference(Intervals{{lo, hi}}, clip(d.busy, lo, hi)))
      acc.add(i, s, &Breakdown::free, false);
  }
}

// torch_npu SQLite export and msprof: each step's own tasks (those starting in its window)
// merged on their own, so Free lies between the step's tasks only (msprof: between the first
// and last of every task of the window).
void step_tasks(const RunModel& m, const DeviceTimeline& d, const std::vector<StepWindow>& w, bool msprof,
                Accumulator& acc) {
  const std::vector<Interval> extents = msprof ? task_extents(m, w) : std::vector<Interval>{};
  auto raw = [&](const std::vector<uint32_t>& idx) {
    std::vector<std::pair<Interval, uint32_t>> v;
    v.reserve(idx.size());
    for (uint32_t k : idx) v.push_back({{m.slices[k].ts, m.slices[k].end()}, k});
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first.start < b.first.start; });
    return v;
  };
  const auto compute = raw(d.compute_slices), comm = raw(d.comm_slices);
  auto in_window = [](const std::vector<std::pair<Interval, uint32_t>>& v, const StepWindow& sw) {
    auto lo = std::lower_bound(v.begin(), v.end(), sw.start, [](auto& a, Ns t) { return a.first.start < t; });
    auto hi = std::lower_bound(lo, v.end(), sw.end, [](auto& a, Ns t) { return a.first.start < t; });
    return std::make_pair(lo, hi);
  };
  for (size_t i = 0; i < w.size(); ++i) {
    Intervals c, x;
    auto [c0, c1] = in_window(compute, w[i]);
    for (auto it = c0; it != c1; ++it) c.push_back(it->first);
    auto [x0, x1] = in_window(comm, w[i]);
    for (auto it = x0; it != x1; ++it) {
      x.push_back(it->first);
      if (is_receive(m.str(m.slices[it->second].name))) acc.per[i].bubble += it->first.length();
    }
    c = union_of(std::move(c));
    x = union_of(std::move(x));
    Intervals all = c;
    all.insert(all.end(), x.begin(), x.end());
    Intervals busy = union_of(std::move(all));
    for (const auto& s : c) acc.add(i, s, &Breakdown::computing, true);
    for (const auto& s : x) acc.add(i, s, &Breakdown::communication, true);
    acc.per[i].comm_not_overlapped = total_length(difference(x, c));
    for (const Interval& g :
         msprof&& extents[i].start < extents[i].end ? difference(Intervals{extents[i]}, busy) : gaps(busy))
      acc.add(i, g, &Breakdown::free, false);
  }
}

}  // namespace npu::breakdown
