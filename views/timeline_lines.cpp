// The timeline view's launch lines and finding marks (docs/views.md): what is drawn over the
// rows, each line from a host launch to its device task with its lag, each mark where a finding
// happens.
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "base/text.h"
#include "views/timeline_build.h"

namespace npu::timeline {

// ---- launch lines ----

json TimelineBuilder::flows_json(Ns lo, Ns hi, const std::unordered_map<uint32_t, int>& row_of_track, size_t& items) {
  struct Line {
    int from, to;
    Ns from_t, to_t;
    uint64_t from_loc, to_loc;
    int kind;
  };
  std::vector<Line> lines[2];
  uint64_t not_drawn_rows = 0;
  auto add = [&](int kind, uint32_t from_track, Ns from_t, uint64_t from_loc, uint32_t to_track, Ns to_t,
                 uint64_t to_loc) {
    if (!(from_t >= lo && from_t < hi) && !(to_t >= lo && to_t < hi)) return;
    auto a = row_of_track.find(from_track), b = row_of_track.find(to_track);
    if (a == row_of_track.end() || b == row_of_track.end()) {
      ++not_drawn_rows;
      return;
    }
    lines[kind].push_back({a->second, b->second, from_t, to_t, from_loc, to_loc, kind});
  };
  if (by_correlation_) {
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      if (!row_of_track.count(t) || m_.tracks[t].kind != TrackKind::Device) continue;
      auto r = m_.track_slices[t];
      auto first = std::lower_bound(m_.slices.begin() + r.begin, m_.slices.begin() + r.end, lo,
                                    [](const Slice& s, Ns v) { return s.ts < v; });
      for (auto it = first; it != m_.slices.begin() + r.end && it->ts < hi; ++it) {
        if (it->corr == kNoId || classify_device_task(m_, *it) == TaskClass::Marker) continue;
        auto h = m_.correlation.by_id.find(it->corr);
        if (h == m_.correlation.by_id.end()) continue;
        const Slice& hs = m_.slices[h->second];
        add(0, hs.track, hs.ts, hs.loc, t, it->ts, it->loc);
      }
    }
  }
  auto from_flows = [&](const std::vector<uint32_t>& idx, int kind) {
    // Flows sorted by launch; a device task starts after its launch (up to clock offset),
    // so every flow with an end in the window launched no earlier than lo - the longest lag
    // seen; scanning all is simplest and bounded by the flow count.
    for (uint32_t i : idx) {
      const Flow& f = m_.flows[i];
      Ns to_t = f.end_slice != kNone32 ? m_.slices[f.end_slice].ts : f.end_ts;
      uint64_t to_loc = f.end_slice != kNone32 ? m_.slices[f.end_slice].loc : f.end_loc;
      add(kind, f.start_track, f.start_ts, f.start_loc, f.end_track, to_t, to_loc);
    }
  };
  from_flows(flows_, 0);
  from_flows(secondary_flows_, 1);
  json out = json::object();
  json arr = json::array();
  size_t total[2] = {lines[0].size(), lines[1].size()}, drawn[2] = {0, 0};
  const size_t cap[2] = {kMaxFlows, kMaxSecondaryFlows};
  for (int k = 0; k < 2; ++k) {
    auto& v = lines[k];
    std::sort(v.begin(), v.end(), [](const Line& a, const Line& b) { return a.from_t < b.from_t; });
    size_t n = std::min(v.size(), cap[k]);
    for (size_t j = 0; j < n; ++j) {
      const Line& l = v[n == v.size() ? j : j * (v.size() - 1) / std::max<size_t>(1, n - 1)];
      // The two ends may lie in different tables of a database export (CANN_API, TASK).
      auto [from_src, from_off] = source_of(l.from_loc);
      auto [to_src, to_off] = source_of(l.to_loc);
      arr.push_back(
          {l.from, l.from_t - lo, l.to, l.to_t - lo, l.to_t - l.from_t, from_src, from_off, to_src, to_off, l.kind});
    }
    drawn[k] = n;
  }
  items += arr.size();
  out["total"] = total[0];
  out["drawn"] = drawn[0];
  out["secondary_total"] = total[1];
  out["secondary_drawn"] = drawn[1];
  out["ends_on_rows_not_drawn"] = not_drawn_rows;
  out["items"] = std::move(arr);
  return out;
}

// ---- marks: where findings happen ----

namespace {

struct Mark {
  const char* kind;
  Ns ts, dur;
  int row;  // -1: the step as a whole
  std::string label;
  json evidence;
};
using MarksByKind = std::map<std::string, std::vector<Mark>>;

void add_mark(MarksByKind& by_kind, const char* kind, Ns ts, Ns dur, int row, std::string label, json ev) {
  by_kind[kind].push_back({kind, ts, dur, row, std::move(label), std::move(ev)});
}

// From the dispatch facts: interruptions in [lo, hi) and the step's longest host-bound gaps.
void add_dispatch_marks(const json& disp, const ChosenStep& c, Ns lo, Ns hi, MarksByKind& by_kind) {
  if (!disp.is_object()) return;
  if (disp.contains("interruptions"))
    for (const json& in : disp["interruptions"].value("items", json::array())) {
      Ns ts = in.value("start_ns", Ns{0}), dur = in.value("dur_ns", Ns{0});
      if (ts + dur < lo || ts >= hi) continue;
      add_mark(by_kind, "interruption", ts, dur, -1,
               "pipeline interruption: " + in.value("name", std::string()) + " (" + text::us(dur) +
                   "), next launch " + text::us(in.value("next_lag_ns", Ns{0})) + " after",
               in.value("evidence", json::array()).empty() ? json(nullptr) : in["evidence"][0]);
    }
  if (!disp.contains("steps")) return;
  for (const json& ds : disp["steps"])
    if (ds.is_object() && ds.value("id", json(nullptr)) == c.id) {
      for (const json& g : ds.value("top_host_bound_gaps", json::array())) {
        Ns ts = g.value("start_ns", Ns{0}), dur = g.value("dur_ns", Ns{0});
        Ns lag = g.value("lag_ns", Ns{0});
        add_mark(by_kind, "host_bound_gap", ts, dur, -1,
                 "device idle " + text::us(dur) + ", waiting on the host: the next task (" +
                     g.value("task", std::string()) + ") started " +
                     (lag >= 0 ? text::us(lag) + " after its launch"
                               : text::us(-lag) + " before its launch (clock offset)"),
                 nullptr);
      }
      break;
    }
}

// The marks of each kind, the longest kMaxMarksPerKind kept, in time order (t_ns from lo), with
// each kind's full count.
json marks_document(MarksByKind& by_kind, Ns lo) {
  json out = json::array();
  json counts = json::object();
  for (auto& [kind, v] : by_kind) {
    counts[kind] = v.size();
    std::stable_sort(v.begin(), v.end(), [](const Mark& a, const Mark& b) { return a.dur > b.dur; });
    if (v.size() > kMaxMarksPerKind) v.resize(kMaxMarksPerKind);
    for (Mark& mk : v) {
      json j = {{"kind", mk.kind}, {"t_ns", mk.ts - lo}, {"dur_ns", mk.dur}, {"label", mk.label}};
      j["row"] = mk.row >= 0 ? json(mk.row) : json(nullptr);
      if (!mk.evidence.is_null()) j["evidence"] = std::move(mk.evidence);
      out.push_back(std::move(j));
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const json& a, const json& b) { return a["t_ns"].get<Ns>() < b["t_ns"].get<Ns>(); });
  return {{"counts", counts}, {"items", out}};
}

}  // namespace

json TimelineBuilder::marks_json(const ChosenStep& c, Ns lo, Ns hi, const std::vector<Row>& rows) {
  MarksByKind by_kind;
  auto add = [&](const char* kind, Ns ts, Ns dur, int row, std::string label, json ev) {
    add_mark(by_kind, kind, ts, dur, row, std::move(label), std::move(ev));
  };
  // From the rows: compiles, syncs, GC, dataloader (outermost only), long collectives.
  Ns comm_min = std::max<Ns>(500'000, (c.end - c.start) / 20);
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    const Row& r = rows[ri];
    Ns loader_end = std::numeric_limits<Ns>::min();
    for (const Item& it : r.items) {
      const Slice& s = m_.slices[it.slice];
      std::string_view n = m_.str(s.name);
      int row = static_cast<int>(ri);
      if (r.kind == RowKind::Comm || r.kind == RowKind::Device) {
        bool comm = r.kind == RowKind::Comm
                        ? it.depth == 0
                        : classify_device_task(m_, s) == TaskClass::Communication && !d_.comm_from_ops;
        if (comm && s.dur >= comm_min)
          add("long_collective", s.ts, s.dur, row, std::string(n) + " (" + text::us(s.dur) + ")",
              evidence_event(m_, s.loc, "communication op"));
        continue;
      }
      if (n == "AscendCL@aclopCompileAndExecute") {
        add("compile", s.ts, s.dur, row, "online compile (" + text::us(s.dur) + ")",
            evidence_event(m_, s.loc, "aclopCompileAndExecute"));
      } else if (n.starts_with("AscendCL@aclrtSynchronize") || gpu_sync_kind(n) != GpuSync::None) {
        add("sync", s.ts, s.dur, row, std::string(n) + " (" + text::us(s.dur) + ")",
            evidence_event(m_, s.loc, "synchronize"));
      } else if (r.kind == RowKind::GC && it.depth == 0) {
        add("gc", s.ts, s.dur, row, "Python GC (" + text::us(s.dur) + ")", evidence_event(m_, s.loc, "GC"));
      } else if (s.ts >= loader_end && text::contains_nocase(n, "dataloader")) {
        loader_end = s.end();
        add("dataloader", s.ts, s.dur, row, "data loading (" + text::us(s.dur) + ")",
            evidence_event(m_, s.loc, "dataloader"));
      }
    }
  }
  add_dispatch_marks(section("dispatch"), c, lo, hi, by_kind);
  return marks_document(by_kind, lo);
}

}  // namespace npu::timeline
