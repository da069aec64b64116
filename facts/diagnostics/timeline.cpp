// "timeline": what the HTML report draws for a few chosen steps (docs/facts-timeline.md): the
// slices of each host and device row inside the step, the launch lines (host launch -> device
// task) with their lag, the Computing / Communication / Free band, and marks where findings
// happen (a compile, a sync, a long collective, an interruption, a host-bound gap).
//
// It reads the step windows and the flow kind from the facts written before it ("steps",
// "dispatch"), never recomputes them, so the picture always shows what the numbers describe.
// Bounded: at most kMaxTimelineSteps steps, each row aggregated so that it holds at most about
// 2 x kBuckets items per nesting level (runs of items shorter than window / kBuckets become one
// aggregate item carrying its count), at most kMaxDepth levels, kMaxRows rows and kMaxFlows
// lines per step (evenly sampled beyond), and a total item budget across steps.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "base/text.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/diagnostics/timeline_steps.h"

namespace npu {
namespace {

using nlohmann::json;

constexpr Ns kBuckets = 1500;                 // aggregation: an item shorter than window / kBuckets is "below a pixel"
constexpr int kMaxDepth = 16;                 // deeper host slices are counted, not drawn
constexpr size_t kMaxRows = 32;               // rows per step, the busiest kept
constexpr size_t kMaxFlows = 2500;            // launch lines per step (evenly sampled beyond)
constexpr size_t kMaxSecondaryFlows = 1000;   // async_npu lines beside HostToDevice
constexpr size_t kMaxMarksPerKind = 24;       // the longest of each kind
constexpr size_t kItemBudget = 60000;         // drawn items over all embedded steps; the worst step always goes in
constexpr Ns kDefaultVerticalLagNs = 50'000;  // dispatch.thresholds.vertical_lag_ns when the facts lack it
constexpr double kMarginShare = 0.01;         // drawn window = step window +- 1%

enum class RowKind { Host, GC, Cann, Device, Comm };
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

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

class Timeline {
 public:
  Timeline(const DiagnosticContext& ctx, Facts& facts, const std::vector<IdleStretch>* stretches)
      : m_(ctx.model), d_(ctx.device), facts_(facts), stretches_(stretches) {}

  void run() {
    std::vector<ChosenStep> chosen = choose_timeline_steps(facts_.doc, step_time_key_);
    if (chosen.empty()) {
      facts_.unavailable("timeline", "no step window to draw: no steps facts and no dispatch steps");
      return;
    }
    pick_flows();
    compute_track_max_dur();
    json steps = json::array();
    size_t total_items = 0;
    json left_out = json::array();
    for (const ChosenStep& c : chosen) {
      size_t items = 0;
      json s = step_json(c, items);
      if (!steps.empty() && total_items + items > kItemBudget) {
        left_out.push_back({{"id", c.id}, {"why", c.why}, {"items", items}});
        continue;
      }
      total_items += items;
      steps.push_back(std::move(s));
    }
    json out = json::object();
    out["limits"] = {{"steps", kMaxTimelineSteps},
                     {"buckets_per_step", kBuckets},
                     {"max_depth", kMaxDepth},
                     {"max_rows", kMaxRows},
                     {"max_flows", kMaxFlows},
                     {"max_secondary_flows", kMaxSecondaryFlows},
                     {"marks_per_kind", kMaxMarksPerKind},
                     {"item_budget", kItemBudget}};
    out["item_columns"] = {"t_ns", "dur_ns", "name", "depth", "src", "offset", "count", "busy_ns"};
    out["flow_columns"] = {"from_row", "from_t_ns",   "to_row", "to_t_ns",   "lag_ns",
                           "from_src", "from_offset", "to_src", "to_offset", "kind"};
    out["band_columns"] = {"t_ns", "dur_ns", "kind", "computing_ns", "comm_not_overlapped_ns", "free_ns"};
    out["flow_kind"] = flow_kind_name_;
    out["secondary_flow_kind"] = secondary_ ? json("async_npu") : json(nullptr);
    const json& th = section("dispatch").is_object() ? section("dispatch").value("thresholds", json()) : json();
    out["vertical_lag_ns"] =
        th.is_object() && th.contains("vertical_lag_ns") && th["vertical_lag_ns"].is_number_integer()
            ? th["vertical_lag_ns"].get<Ns>()
            : kDefaultVerticalLagNs;
    out["step_time"] = step_time_key_;
    out["names"] = std::move(names_);
    out["sources"] = std::move(sources_);
    out["steps"] = std::move(steps);
    out["items"] = total_items;
    out["steps_left_out"] = std::move(left_out);
    facts_.doc["timeline"] = std::move(out);
  }

 private:
  // A section of the facts written before (by reference), or null.
  const json& section(const char* key) const { return facts_section(facts_.doc, key); }

  // ---- launch lines: the kind dispatch used (facts.dispatch.flow_kind) ----

  void pick_flows() {
    json kind = nullptr;
    if (facts_.doc.contains("dispatch")) kind = facts_.doc["dispatch"].value("flow_kind", json(nullptr));
    if (!kind.is_string()) return;
    flow_kind_name_ = kind.get<std::string>();
    if (flow_kind_name_ == "correlation") {
      by_correlation_ = true;
      host_by_corr_ = runtime_calls_by_correlation(m_);
      return;
    }
    for (FlowKind k : {FlowKind::HostToDevice, FlowKind::AsyncNpu, FlowKind::Ac2g})
      if (flow_kind_name_ == to_string(k)) primary_ = k;
    secondary_ = primary_ == FlowKind::HostToDevice;  // async_npu: Python op -> device task, drawn fainter
    for (uint32_t i = 0; i < m_.flows.size(); ++i) {
      const Flow& f = m_.flows[i];
      if (primary_ && f.kind == *primary_) flows_.push_back(i);
      else if (secondary_ && f.kind == FlowKind::AsyncNpu) secondary_flows_.push_back(i);
    }
    auto by_start = [&](uint32_t a, uint32_t b) { return m_.flows[a].start_ts < m_.flows[b].start_ts; };
    std::sort(flows_.begin(), flows_.end(), by_start);
    std::sort(secondary_flows_.begin(), secondary_flows_.end(), by_start);
  }

  void compute_track_max_dur() {
    track_max_dur_.assign(m_.tracks.size(), 0);
    for (uint32_t t = 0; t < m_.tracks.size(); ++t)
      for (uint32_t i = m_.track_slices[t].begin; i < m_.track_slices[t].end; ++i)
        track_max_dur_[t] = std::max(track_max_dur_[t], m_.slices[i].dur);
  }

  // ---- rows ----

  std::optional<RowKind> row_kind(uint32_t t) const {
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

  struct Item {
    uint32_t slice;
    int depth;
  };
  struct Row {
    uint32_t track = 0;
    RowKind kind = RowKind::Host;
    std::vector<Item> items;       // slices overlapping the window, depth-assigned, time order
    uint64_t deep = 0;             // slices below kMaxDepth, not drawn
    bool main = false;             // holds the ProfilerStep
    bool queue = false;            // holds Dequeue@ slices: torch_npu's task-queue thread
    std::vector<StrId> enclosing;  // slices covering the whole window, outermost first
  };

  // Slices of `t` overlapping [lo, hi), with nesting depth from a stack of open ends. A slice
  // that covers the whole step [step_lo, step_hi] (a Python stack frame such as <module> or
  // train()) is not
  // drawn as a level: it says nothing about the step, and a deep stack would push the
  // operators out of sight. Its name goes to the row's `enclosing` list instead.
  Row collect_row(uint32_t t, RowKind kind, Ns lo, Ns hi, Ns step_lo, Ns step_hi) const {
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
      const bool encloses = s.ts <= step_lo && s.end() >= step_hi && !starts_with(m_.str(s.name), "ProfilerStep#");
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
      if (starts_with(n, "ProfilerStep#")) row.main = true;
      if (starts_with(n, "Dequeue@")) row.queue = true;
      row.items.push_back({static_cast<uint32_t>(it - m_.slices.begin()), depth});
    }
    return row;
  }

  std::string row_label(const Row& r) const {
    const Track& tr = m_.tracks[r.track];
    std::string thread(m_.str(tr.thread_name));
    if (thread.empty()) thread = "tid " + std::to_string(tr.tid);
    std::string label = process_display_name(m_, tr) + " \xC2\xB7 " + thread;
    if (r.main) label += " (step thread)";
    else if (r.queue) label += " (task queue)";
    return label;
  }

  // ---- names and evidence sources, shared by all steps ----

  uint32_t name_index(StrId id) {
    auto [it, fresh] = name_of_.try_emplace(id, static_cast<uint32_t>(names_.size()));
    if (fresh) names_.push_back(m_.str(id));
    return it->second;
  }
  // (source index, offset) of a slice/flow location.
  std::pair<uint32_t, uint64_t> source_of(uint64_t loc) {
    RunModel::DecodedLoc d = m_.decode_loc(loc);
    std::string key = std::to_string(d.file) + "/" + std::string(d.table);
    auto [it, fresh] = source_of_.try_emplace(key, static_cast<uint32_t>(sources_.size()));
    if (fresh) {
      json s = {{"file", d.file < m_.files.size() ? m_.files[d.file].path : std::string()}};
      if (!d.table.empty()) s["table"] = d.table;
      s["offset"] = d.table.empty() ? "byte" : "rowid";
      sources_.push_back(std::move(s));
    }
    return {it->second, d.offset};
  }

  // Items of one row, aggregated per depth: a run of items shorter than `w` that start
  // within `w` of the run's first becomes one item carrying its count and busy time, named
  // after its longest member (whose evidence it keeps).
  json row_items(const Row& row, Ns lo, Ns w, size_t& aggregated) {
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

  struct Seg {
    Interval iv;
    int kind;
    int cause = -1;  // Free: the cause the idle attribution gave it (idle_cause_name), -1 none
  };

  // A Free segment cut where the idle attribution's stretches begin and end, each part with its
  // cause (a part no stretch covers is Free outside any step, drawn without one).
  void split_by_cause(const Interval& iv, std::vector<Seg>& segs) const {
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
  json band(Ns lo, Ns hi, Ns w) const {
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

  // ---- one step ----

  json step_json(const ChosenStep& c, size_t& items_out) {
    const Ns margin = std::max<Ns>(1, static_cast<Ns>(static_cast<double>(c.end - c.start) * kMarginShare));
    const Ns lo = c.start - margin, hi = c.end + margin;
    const Ns w = std::max<Ns>(1, (hi - lo) / kBuckets);

    // Rows: every host/device track with something in the window, the busiest kept.
    std::vector<Row> rows;
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      auto k = row_kind(t);
      if (!k) continue;
      Row r = collect_row(t, *k, lo, hi, c.start, c.end);
      if (!r.items.empty()) rows.push_back(std::move(r));
    }
    size_t rows_dropped = 0;
    if (rows.size() > kMaxRows) {
      std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.main != b.main) return a.main;
        return a.items.size() > b.items.size();
      });
      rows_dropped = rows.size() - kMaxRows;
      rows.resize(kMaxRows);
    }
    // Host (step thread first), GC, CANN, device streams, communication; then by track.
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      if (a.kind != b.kind) return a.kind < b.kind;
      if (a.main != b.main) return a.main;
      return a.track < b.track;
    });
    std::unordered_map<uint32_t, int> row_of_track;
    for (size_t i = 0; i < rows.size(); ++i) row_of_track[rows[i].track] = static_cast<int>(i);

    json rows_json = json::array();
    size_t items = 0, aggregated = 0;
    for (const Row& r : rows) {
      size_t agg = 0;
      json it = row_items(r, lo, w, agg);
      int depth = 0;
      for (const Item& x : r.items) depth = std::max(depth, x.depth + 1);
      json rj = {{"label", row_label(r)}, {"kind", row_kind_name(r.kind)}, {"depth", depth}, {"slices", r.items.size()},
                 {"aggregated", agg},     {"deeper_not_drawn", r.deep}};
      json enclosing = json::array();
      for (StrId n : r.enclosing) enclosing.push_back(name_index(n));
      rj["enclosing"] = std::move(enclosing);
      items += it.size();
      aggregated += agg;
      rj["items"] = std::move(it);
      rows_json.push_back(std::move(rj));
    }

    json s = json::object();
    s["id"] = c.id;
    s["chosen_as"] = c.why;
    s["step_time_ns"] = c.time;
    s["step_start_ns"] = c.start;
    s["step_end_ns"] = c.end;
    s["start_ns"] = lo;  // every *_t_ns / t_ns below is relative to this
    s["end_ns"] = hi;
    // The same window relative to start_ns: small integers that a browser reads exactly
    // (absolute ns exceed a double's 53 bits).
    s["step_t_ns"] = c.start - lo;
    s["step_end_t_ns"] = c.end - lo;
    s["window_ns"] = hi - lo;
    s["aggregate_below_ns"] = w;
    s["rows"] = std::move(rows_json);
    s["rows_not_drawn"] = rows_dropped;
    json b = band(lo, hi, w);
    items += b.size();
    s["band"] = std::move(b);
    s["flows"] = flows_json(lo, hi, row_of_track, items);
    s["marks"] = marks_json(c, lo, hi, rows);
    s["items"] = items;
    s["aggregated"] = aggregated;
    items_out = items;
    return s;
  }

  // ---- launch lines ----

  json flows_json(Ns lo, Ns hi, const std::unordered_map<uint32_t, int>& row_of_track, size_t& items) {
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
          auto h = host_by_corr_.find(it->corr);
          if (h == host_by_corr_.end()) continue;
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

  json marks_json(const ChosenStep& c, Ns lo, Ns hi, const std::vector<Row>& rows) {
    struct Mark {
      const char* kind;
      Ns ts, dur;
      int row;
      std::string label;
      json evidence;
    };
    std::map<std::string, std::vector<Mark>> by_kind;
    auto add = [&](const char* kind, Ns ts, Ns dur, int row, std::string label, json ev) {
      by_kind[kind].push_back({kind, ts, dur, row, std::move(label), std::move(ev)});
    };
    auto us = [](Ns ns) { return fmt::format("{:.1f} us", static_cast<double>(ns) / 1000.0); };
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
            add("long_collective", s.ts, s.dur, row, std::string(n) + " (" + us(s.dur) + ")",
                evidence_event(m_, s.loc, "communication op"));
          continue;
        }
        if (n == "AscendCL@aclopCompileAndExecute") {
          add("compile", s.ts, s.dur, row, "online compile (" + us(s.dur) + ")",
              evidence_event(m_, s.loc, "aclopCompileAndExecute"));
        } else if (starts_with(n, "AscendCL@aclrtSynchronize") || gpu_sync_kind(n) != GpuSync::None) {
          add("sync", s.ts, s.dur, row, std::string(n) + " (" + us(s.dur) + ")",
              evidence_event(m_, s.loc, "synchronize"));
        } else if (r.kind == RowKind::GC && it.depth == 0) {
          add("gc", s.ts, s.dur, row, "Python GC (" + us(s.dur) + ")", evidence_event(m_, s.loc, "GC"));
        } else if (s.ts >= loader_end && text::contains_nocase(n, "dataloader")) {
          loader_end = s.end();
          add("dataloader", s.ts, s.dur, row, "data loading (" + us(s.dur) + ")",
              evidence_event(m_, s.loc, "dataloader"));
        }
      }
    }
    // From the dispatch facts: interruptions and the step's longest host-bound gaps.
    const json& disp = section("dispatch");
    if (disp.is_object() && disp.contains("interruptions"))
      for (const json& in : disp["interruptions"].value("items", json::array())) {
        Ns ts = in.value("start_ns", Ns{0}), dur = in.value("dur_ns", Ns{0});
        if (ts + dur < lo || ts >= hi) continue;
        add("interruption", ts, dur, -1,
            "pipeline interruption: " + in.value("name", std::string()) + " (" + us(dur) + "), next launch " +
                us(in.value("next_lag_ns", Ns{0})) + " after",
            in.value("evidence", json::array()).empty() ? json(nullptr) : in["evidence"][0]);
      }
    if (disp.is_object() && disp.contains("steps"))
      for (const json& ds : disp["steps"])
        if (ds.is_object() && ds.value("id", json(nullptr)) == c.id) {
          for (const json& g : ds.value("top_host_bound_gaps", json::array())) {
            Ns ts = g.value("start_ns", Ns{0}), dur = g.value("dur_ns", Ns{0});
            Ns lag = g.value("lag_ns", Ns{0});
            add("host_bound_gap", ts, dur, -1,
                "device idle " + us(dur) + ", waiting on the host: the next task (" + g.value("task", std::string()) +
                    ") started " +
                    (lag >= 0 ? us(lag) + " after its launch" : us(-lag) + " before its launch (clock offset)"),
                nullptr);
          }
          break;
        }
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

  const RunModel& m_;
  const DeviceTimeline& d_;
  Facts& facts_;
  const std::vector<IdleStretch>* stretches_;
  std::string step_time_key_ = "host_dur_ns";
  json flow_kind_name_ = nullptr;
  bool by_correlation_ = false;
  std::unordered_map<int64_t, uint32_t> host_by_corr_;
  std::optional<FlowKind> primary_;
  bool secondary_ = false;
  std::vector<uint32_t> flows_, secondary_flows_;  // indexes into m_.flows, by launch time
  std::vector<Ns> track_max_dur_;
  json names_ = json::array();
  std::unordered_map<StrId, uint32_t> name_of_;
  json sources_ = json::array();
  std::unordered_map<std::string, uint32_t> source_of_;
};

}  // namespace

void diagnose_timeline(const DiagnosticContext& ctx, Facts& facts, const std::vector<IdleStretch>* stretches) {
  Timeline(ctx, facts, stretches).run();
}

}  // namespace npu
