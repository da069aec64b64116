// The timeline view (views/views.h, docs/views.md): what the HTML report draws for a few chosen
// steps: the slices of each host and device row inside the step, the launch lines (host launch ->
// device task) with their lag, the Computing / Communication / Free band, and marks where findings
// happen (a compile, a sync, a long collective, an interruption, a host-bound gap).
//
// It reads the step windows and the flow kind from the facts ("steps", "dispatch"), never
// recomputes them, so the picture always shows what the numbers describe.
// Bounded: at most kMaxTimelineSteps steps, each row aggregated so that it holds at most about
// 2 x kBuckets items per nesting level (runs of items shorter than window / kBuckets become one
// aggregate item carrying its count), at most kMaxDepth levels, kMaxRows rows and kMaxFlows
// lines per step (evenly sampled beyond), and a total item budget across steps.
// This file: the document, one step, the names and evidence sources the steps share.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "views/timeline_build.h"
#include "views/views.h"

namespace npu::timeline {

json TimelineBuilder::run(std::string& why) {
  std::vector<ChosenStep> chosen = choose_timeline_steps(facts_, step_time_key_);
  if (chosen.empty()) {
    why = "no step window to draw: no steps facts and no dispatch steps";
    return nullptr;
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
  // What the facts called vertical (dispatch.step_class's vertical_lag_ns); null without dispatch
  // facts, and the page then colours no launch line as vertical.
  out["vertical_lag_ns"] = th.is_object() && th.contains("vertical_lag_ns") && th["vertical_lag_ns"].is_number_integer()
                               ? json(th["vertical_lag_ns"].get<Ns>())
                               : json(nullptr);
  out["step_time"] = step_time_key_;
  out["names"] = std::move(names_);
  out["sources"] = std::move(sources_);
  out["steps"] = std::move(steps);
  out["items"] = total_items;
  out["steps_left_out"] = std::move(left_out);
  return out;
}

// ---- launch lines: the frame's launch pairing (what dispatch measured) ----

void TimelineBuilder::pick_flows() {
  flow_kind_name_ = launches_.kind_json();
  if (launches_.by_correlation) {
    by_correlation_ = true;
    return;
  }
  if (!launches_.kind) return;
  primary_ = launches_.kind;
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

void TimelineBuilder::compute_track_max_dur() {
  track_max_dur_.assign(m_.tracks.size(), 0);
  for (uint32_t t = 0; t < m_.tracks.size(); ++t)
    for (uint32_t i = m_.track_slices[t].begin; i < m_.track_slices[t].end; ++i)
      track_max_dur_[t] = std::max(track_max_dur_[t], m_.slices[i].dur);
}

// ---- names and evidence sources, shared by all steps ----

uint32_t TimelineBuilder::name_index(StrId id) {
  auto [it, fresh] = name_of_.try_emplace(id, static_cast<uint32_t>(names_.size()));
  if (fresh) names_.push_back(m_.str(id));
  return it->second;
}

// (source index, offset) of a slice/flow location.
std::pair<uint32_t, uint64_t> TimelineBuilder::source_of(uint64_t loc) {
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

// ---- one step ----

json TimelineBuilder::step_json(const ChosenStep& c, size_t& items_out) {
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

}  // namespace npu::timeline

namespace npu {

nlohmann::json timeline_view(const DiagnosticContext& ctx, const nlohmann::json& facts,
                             const std::vector<IdleStretch>* stretches, std::string& why) {
  return timeline::TimelineBuilder(ctx, facts, stretches).run(why);
}

}  // namespace npu
