// The builder of the timeline view (timeline_view(), views/views.h), shared by its three files:
// timeline.cpp (the document, one step, names and evidence sources), timeline_rows.cpp (the rows
// and their items, the Computing / Communication / Free band), timeline_lines.cpp (the launch
// lines and the finding marks drawn over them).
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/diagnostics/diagnostics.h"
#include "views/timeline_steps.h"

namespace npu::timeline {

using nlohmann::json;

constexpr Ns kBuckets = 1500;                 // aggregation: an item shorter than window / kBuckets is "below a pixel"
constexpr int kMaxDepth = 16;                 // deeper host slices are counted, not drawn
constexpr size_t kMaxRows = 32;               // rows per step, the busiest kept
constexpr size_t kMaxFlows = 2500;            // launch lines per step (evenly sampled beyond)
constexpr size_t kMaxSecondaryFlows = 1000;   // async_npu lines beside HostToDevice
constexpr size_t kMaxMarksPerKind = 24;       // the longest of each kind
constexpr size_t kItemBudget = 60000;         // drawn items over all embedded steps; the worst step always goes in
constexpr double kMarginShare = 0.01;         // drawn window = step window +- 1%

enum class RowKind { Host, GC, Cann, Device, Comm };
const char* row_kind_name(RowKind k);

class TimelineBuilder {
 public:
  TimelineBuilder(const DiagnosticContext& ctx, const json& facts, const std::vector<IdleStretch>* stretches)
      : m_(ctx.model), d_(ctx.device), launches_(ctx.frame.launches()), facts_(facts), stretches_(stretches) {}

  // The view, or null with `why` (timeline.cpp).
  json run(std::string& why);

 private:
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
  struct Seg {
    Interval iv;
    int kind;
    int cause = -1;  // Free: the cause the idle attribution gave it (idle_cause_name), -1 none
  };

  // A section of the facts (by reference), or null.
  const json& section(const char* key) const { return facts_section(facts_, key); }

  // timeline.cpp
  void pick_flows();
  void compute_track_max_dur();
  json step_json(const ChosenStep& c, size_t& items_out);
  uint32_t name_index(StrId id);
  std::pair<uint32_t, uint64_t> source_of(uint64_t loc);

  // timeline_rows.cpp
  std::optional<RowKind> row_kind(uint32_t t) const;
  Row collect_row(uint32_t t, RowKind kind, Ns lo, Ns hi, Ns step_lo, Ns step_hi) const;
  std::string row_label(const Row& r) const;
  json row_items(const Row& row, Ns lo, Ns w, size_t& aggregated);
  void split_by_cause(const Interval& iv, std::vector<Seg>& segs) const;
  json band(Ns lo, Ns hi, Ns w) const;

  // timeline_lines.cpp
  json flows_json(Ns lo, Ns hi, const std::unordered_map<uint32_t, int>& row_of_track, size_t& items);
  json marks_json(const ChosenStep& c, Ns lo, Ns hi, const std::vector<Row>& rows);

  const RunModel& m_;
  const DeviceTimeline& d_;
  const LaunchFlows& launches_;  // the frame's launch pairing (the arrows dispatch measured)
  const json& facts_;
  const std::vector<IdleStretch>* stretches_;
  std::string step_time_key_ = "host_dur_ns";
  json flow_kind_name_ = nullptr;
  bool by_correlation_ = false;
  std::optional<FlowKind> primary_;
  bool secondary_ = false;
  std::vector<uint32_t> flows_, secondary_flows_;  // indexes into m_.flows, by launch time
  std::vector<Ns> track_max_dur_;
  json names_ = json::array();
  std::unordered_map<StrId, uint32_t> name_of_;
  json sources_ = json::array();
  std::unordered_map<std::string, uint32_t> source_of_;
};

}  // namespace npu::timeline
