// The timeline view's rows (docs/views.md): which tracks are drawn, the slices of each inside the
// window with their nesting depth, aggregated below a pixel, and the Computing / Communication /
// Free band under them.
#include <algorithm>
#include <string>

#include "views/timeline_build.h"

namespace npu::timeline {

const char* row_kind_name(RowKind k) {
  switch (k) {
    case RowKind::Host: return "host";
    case RowKind::GC: return "gc";
    case RowKind::Cann: return "cann";
    case RowKind::Device: return "device";
    case RowKind::Comm: return "communication";
  }
  return "host";
}

std::optional<RowKind> TimelineBuilder::row_kind(uint32_t t) const {
  const Track& tr = m_.tracks[t];
  switch (tr.kind) {
    case TrackKind::HostPython:
    case TrackKind::HostOther:
    case TrackKind::Unknown: return RowKind::Host;
    case TrackKind::HostGC: return RowKind::GC;
    case TrackKind::HostCANN: return RowKind::Cann;
    case TrackKind::Device:
      // GPU traces: only the GPU the breakdown covers (two GPUs are never drawn as one).
      if (m_.meta.platform == "gpu" && tr.device != d_.device) return std::nullopt;
      return RowKind::Device;
    case TrackKind::Communication: return RowKind::Comm;
    default: return std::nullopt;
  }
}

// Slices of `t` overlapping [lo, hi), with nesting depth from a stack of open ends. A slice
// that covers the whole step [step_lo, step_hi] (a Python stack frame such as <module> or
// train()) is not drawn as a level: it says nothing about the step, and a deep stack would push
// the operators out of sight. Its name goes to the row's `enclosing` list instead.
TimelineBuilder::Row TimelineBuilder::collect_row(uint32_t t, RowKind kind, Ns lo, Ns hi, Ns step_lo,
                                                  Ns step_hi) const {
  Row row;
  row.track = t;
  row.kind = kind;
  auto r = m_.track_slices[t];
  auto first = std::lower_bound(m_.slices.begin() + r.begin, m_.slices.begin() + r.end, lo - track_max_dur_[t],
                                [](const Slice& s, Ns v) { return s.ts < v; });
  struct Open {
    Ns end;
    bool enclosing;
  };
  std::vector<Open> open;
  int enclosing_open = 0;
  const bool device = kind == RowKind::Device;
  for (auto it = first; it != m_.slices.begin() + r.end && it->ts < hi; ++it) {
    const Slice& s = *it;
    if (device && classify_device_task(m_, s) == TaskClass::Marker) continue;
    while (!open.empty() && open.back().end <= s.ts) {
      enclosing_open -= open.back().enclosing;
      open.pop_back();
    }
    int depth = static_cast<int>(open.size()) - enclosing_open;
    const bool encloses = s.ts <= step_lo && s.end() >= step_hi && !m_.str(s.name).starts_with("ProfilerStep#");
    open.push_back({s.end() > s.ts ? s.end() : s.ts + 1, encloses});
    enclosing_open += encloses;
    if (s.end() < lo || (s.end() == lo && s.dur > 0)) continue;
    if (encloses) {
      if (row.enclosing.size() < kMaxDepth) row.enclosing.push_back(s.name);
      continue;
    }
    if (depth >= kMaxDepth) {
      ++row.deep;
      continue;
    }
    std::string_view n = m_.str(s.name);
    if (n.starts_with("ProfilerStep#")) row.main = true;
    if (n.starts_with("Dequeue@")) row.queue = true;
    row.items.push_back({static_cast<uint32_t>(it - m_.slices.begin()), depth});
  }
  return row;
}

std::string TimelineBuilder::row_label(const Row& r) const {
  const Track& tr = m_.tracks[r.track];
  std::string thread(m_.str(tr.thread_name));
  if (thread.empty()) thread = "tid " + std::to_string(tr.tid);
  std::string label = process_display_name(m_, tr) + " \xC2\xB7 " + thread;
  if (r.main) label += " (step thread)";
  else if (r.queue) label += " (task queue)";
  return label;
}

// Items of one row, aggregated per depth: a run of items shorter than `w` that start
// within `w` of the run's first becomes one item carrying its count and busy time, named
// after its longest member (whose evidence it keeps).
json TimelineBuilder::row_items(const Row& row, Ns lo, Ns w, size_t& aggregated) {
  json out = json::array();
  std::vector<std::vector<uint32_t>> by_depth;
  for (const Item& it : row.items) {
    if (static_cast<size_t>(it.depth) >= by_depth.size()) by_depth.resize(static_cast<size_t>(it.depth) + 1);
    by_depth[static_cast<size_t>(it.depth)].push_back(it.slice);
  }
  for (size_t depth = 0; depth < by_depth.size(); ++depth) {
    const auto& v = by_depth[depth];
    for (size_t i = 0; i < v.size();) {
      const Slice& s = m_.slices[v[i]];
      size_t j = i + 1;
      uint32_t longest = v[i];
      Ns end = s.end(), busy = s.dur;
      if (s.dur < w)
        while (j < v.size() && m_.slices[v[j]].dur < w && m_.slices[v[j]].ts < s.ts + w) {
          const Slice& o = m_.slices[v[j]];
          end = std::max(end, o.end());
          busy += o.dur;
          if (o.dur > m_.slices[longest].dur) longest = v[j];
          ++j;
        }
      auto [src, off] = source_of(m_.slices[longest].loc);
      json item = {s.ts - lo, end - s.ts, name_index(m_.slices[longest].name), depth, src, off};
      if (j - i > 1) {
        item.push_back(j - i);
        item.push_back(busy);
        aggregated += j - i;
      }
      out.push_back(std::move(item));
      i = j;
    }
  }
  return out;
}

// A Free segment cut where the idle attribution's stretches begin and end, each part with its
// cause (a part no stretch covers is Free outside any step, drawn without one).
void TimelineBuilder::split_by_cause(const Interval& iv, std::vector<Seg>& segs) const {
  if (!stretches_ || stretches_->empty()) {
    segs.push_back({iv, 2});
    return;
  }
  auto it = std::lower_bound(stretches_->begin(), stretches_->end(), iv.start,
                             [](const IdleStretch& x, Ns t) { return x.iv.end <= t; });
  Ns at = iv.start;
  for (; it != stretches_->end() && it->iv.start < iv.end; ++it) {
    const Ns a = std::max(at, it->iv.start), b = std::min(iv.end, it->iv.end);
    if (b <= a) continue;
    if (a > at) segs.push_back({{at, a}, 2});
    segs.push_back({{a, b}, 2, it->cause});
    at = b;
  }
  if (at < iv.end) segs.push_back({{at, iv.end}, 2});
}

// The Computing / Communication(not overlapped) / Free band over [lo, hi), the rule of
// docs/overlap.md restricted to the window; runs of segments shorter than `w` become one
// "mixed" segment (kind 3) with the three totals.
json TimelineBuilder::band(Ns lo, Ns hi, Ns w) const {
  json out = json::array();
  if (!d_.has_device) return out;
  Ns a = std::max(lo, d_.window.start), b = std::min(hi, d_.window.end);
  if (b <= a) return out;
  Intervals comp = clip(d_.compute, a, b);
  Intervals cno = clip(difference(d_.comm, d_.compute), a, b);
  Intervals fr = difference(Intervals{{a, b}}, clip(d_.busy, a, b));
  const bool copies = !d_.copies.empty();  // GPU runs: memcpy/memset no kernel overlaps, kind 4
  std::vector<Seg> segs;
  for (const auto& iv : comp) segs.push_back({iv, 0});
  for (const auto& iv : cno) segs.push_back({iv, 1});
  for (const auto& iv : clip(d_.copies, a, b)) segs.push_back({iv, 4});
  for (const auto& iv : fr) split_by_cause(iv, segs);
  std::sort(segs.begin(), segs.end(), [](const Seg& x, const Seg& y) { return x.iv.start < y.iv.start; });
  for (size_t i = 0; i < segs.size();) {
    const Seg& s = segs[i];
    if (s.iv.length() >= w) {
      json seg = {s.iv.start - lo, s.iv.length(), s.kind};
      if (s.cause >= 0) seg.push_back(idle_cause_name(static_cast<uint8_t>(s.cause)));
      out.push_back(std::move(seg));
      ++i;
      continue;
    }
    Ns tot[5] = {0, 0, 0, 0, 0};  // by kind (3, mixed, never counted)
    Ns end = s.iv.end;
    size_t j = i;
    while (j < segs.size() && segs[j].iv.length() < w && segs[j].iv.start < s.iv.start + w) {
      tot[segs[j].kind] += segs[j].iv.length();
      end = std::max(end, segs[j].iv.end);
      ++j;
    }
    if (j - i == 1) out.push_back({s.iv.start - lo, s.iv.length(), s.kind});
    else if (copies) out.push_back({s.iv.start - lo, end - s.iv.start, 3, tot[0], tot[1], tot[2], tot[4]});
    else out.push_back({s.iv.start - lo, end - s.iv.start, 3, tot[0], tot[1], tot[2]});
    i = j;
  }
  return out;
}

}  // namespace npu::timeline
