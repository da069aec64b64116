// "modules": where in the model the device time goes. Every host range that names a part of the
// model (an nn.Module forward recorded with with_stack, a record_function / user annotation, an
// mstx range) owns the device work launched inside it, found the way the step finds its own:
// Kineto by the launching runtime call's correlation id (the same ops the step owns), Ascend by
// the async_npu arrow from the framework operator (else the HostToDevice arrow, through the task
// queue to its Enqueue). Ranges nest per host thread into a tree keyed by path; repeated siblings
// of one class and shape (layer 0..N) are grouped with their spread. docs/facts-modules.md.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "base/stats.h"
#include "base/text.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/diagnostics/module_tree.h"
#include "facts/graph_calls.h"
#include "facts/module_ranges.h"

namespace npu {
namespace {

using nlohmann::json;

using modules::class_of;
using modules::kMaxDepth;
using modules::Node;
using modules::RangeKind;
using modules::Tree;

// One recorded range: where it lies on its thread and which node it counts for.
struct Occurrence {
  Ns ts = 0, end = 0;
  uint32_t node = 0;
  int32_t parent = -1;  // the enclosing occurrence on the same thread
};

// A backward op's range on the autograd thread, joined to the module that ran its forward op.
struct BackwardRange {
  Ns ts = 0, end = 0;
  uint32_t node = 0;
};

class ModuleTree {
 public:
  explicit ModuleTree(const DiagnosticContext& ctx) : ctx_(ctx), m_(ctx.model) {}

  void run(Facts& facts) {
    constexpr const char* kWhy =
        "no module ranges in the trace: record nn.Module forwards with with_stack=True, or "
        "mark the model's parts with record_function or mstx ranges";
    collect_ranges();
    if (too_deep_ > 0)
      facts.warn("modules: " + std::to_string(too_deep_) + " ranges nested deeper than " + std::to_string(kMaxDepth) +
                 " levels count for their ancestor at level " + std::to_string(kMaxDepth));
    // Ascend: graph-launched tasks have no per-operator arrow; the graph_execution facts count them.
    const bool launched_work = ctx_.frame.launched_work();
    const Ns ascend_graph_ns =
        !launched_work && facts.has("graph_execution") ? facts.doc["graph_execution"].value("graph_task_ns", Ns{0}) : 0;
    if (t_.nodes.empty() && !launched_work && ascend_graph_ns == 0) return facts.unavailable("modules", kWhy);
    collect_backward();
    attribute_device_work();
    if (!launched_work) t_.graph_ns = std::min(t_.step_ns, ascend_graph_ns);
    if (t_.nodes.empty()) {
      // Without ranges the graph coverage is still worth stating: the rankings cannot see inside replays.
      if (t_.graph_ns == 0) return facts.unavailable("modules", kWhy);
      facts.unavailable("modules.tree", kWhy);
    }
    for (const auto& entry : occurrences_) t_.ranges += entry.second.size();
    facts.doc["modules"] = tree_json(m_, t_, facts);
  }

 private:
  // Every module range, per thread, nested into the tree.
  void collect_ranges() {
    std::unordered_map<int64_t, std::vector<uint32_t>> by_tid;
    std::vector<int8_t> kind_of(m_.strings.size(), -1);
    for (uint32_t t = 0; t < m_.tracks.size() && t < m_.track_slices.size(); ++t) {
      const TrackKind k = m_.tracks[t].kind;
      if (k == TrackKind::Device || k == TrackKind::Counter || k == TrackKind::Overlap || k == TrackKind::Communication)
        continue;
      for (uint32_t i = m_.track_slices[t].begin; i < m_.track_slices[t].end; ++i) {
        const Slice& s = m_.slices[i];
        int8_t& rk = kind_of[s.name];
        if (rk < 0) rk = static_cast<int8_t>(module_range_kind(m_.str(s.name), m_.str(s.cat)));
        if (rk > 0 && s.dur > 0) by_tid[m_.tracks[t].tid].push_back(i);
      }
    }
    // Threads in a fixed order, so the tree's order does not depend on hashing.
    std::map<int64_t, std::vector<uint32_t>> ordered(by_tid.begin(), by_tid.end());
    for (auto& entry : ordered) nest(entry.first, entry.second);
    if (t_.nodes.size() > 0) shapes();
  }

  void nest(int64_t tid, std::vector<uint32_t>& idx) {
    std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
      const Slice &x = m_.slices[a], &y = m_.slices[b];
      return x.ts != y.ts ? x.ts < y.ts : x.dur > y.dur;
    });
    std::vector<Occurrence>& occ = occurrences_[tid];
    std::vector<int32_t> stack;
    for (uint32_t i : idx) {
      const Slice& s = m_.slices[i];
      // A range that does not lie wholly inside the open one is its sibling (or an uncle).
      while (!stack.empty() && !(s.ts >= occ[stack.back()].ts && s.end() <= occ[stack.back()].end)) stack.pop_back();
      if (stack.size() >= kMaxDepth) {
        ++too_deep_;
        continue;
      }
      const int32_t parent_occ = stack.empty() ? -1 : stack.back();
      const int32_t parent_node = parent_occ < 0 ? -1 : static_cast<int32_t>(occ[parent_occ].node);
      const uint32_t node = node_for(parent_node, s);
      occ.push_back({s.ts, s.end(), node, parent_occ});
      stack.push_back(static_cast<int32_t>(occ.size() - 1));
      Node& n = t_.nodes[node];
      ++n.calls;
      n.host += s.dur;
    }
  }

  uint32_t node_for(int32_t parent, const Slice& s) {
    const std::string_view name = m_.str(s.name);
    return child(parent, module_label(name), module_range_kind(name, m_.str(s.cat)), s.loc);
  }

  // The node `label` below `parent` (-1: a root), made on first sight with `kind` and `loc`.
  uint32_t child(int32_t parent, std::string_view label, RangeKind kind, uint64_t loc) {
    auto [it, fresh] = by_parent_.try_emplace({parent, label}, static_cast<uint32_t>(t_.nodes.size()));
    if (fresh) {
      Node n;
      n.label = label;
      n.kind = kind;
      n.parent = parent;
      n.depth = parent < 0 ? 1 : t_.nodes[static_cast<size_t>(parent)].depth + 1;
      n.loc = loc;
      t_.nodes.push_back(std::move(n));
      if (parent >= 0) t_.nodes[static_cast<size_t>(parent)].children.push_back(it->second);
    }
    return it->second;
  }

  // A node's shape: its class and its children's shapes, in order (children come after parents).
  void shapes() {
    for (size_t i = t_.nodes.size(); i-- > 0;) {
      Node& n = t_.nodes[i];
      uint64_t h = std::hash<std::string>{}(class_of(n.label));
      for (uint32_t c : n.children) h = h * 1000003u ^ t_.nodes[c].shape;
      n.shape = h;
    }
  }

  // The innermost occurrence on `tid` that holds ts, or -1.
  int32_t innermost(int64_t tid, Ns ts) const {
    auto t = occurrences_.find(tid);
    if (t == occurrences_.end()) return -1;
    const auto& occ = t->second;
    auto it = std::upper_bound(occ.begin(), occ.end(), ts, [](Ns v, const Occurrence& o) { return v < o.ts; });
    int32_t k = static_cast<int32_t>(it - occ.begin()) - 1;
    while (k >= 0 && occ[static_cast<size_t>(k)].end < ts) k = occ[static_cast<size_t>(k)].parent;
    return k;
  }

  // The node of a replayed kernel's captured module frames (`path`: their names, outermost
  // first, joined by '\n'), below `parent`, the range around the replay's launch (-1: none).
  // Nodes it makes carry the replay's launch as evidence: the capture's frames are in another trace.
  // Frames deeper than kMaxDepth count for their ancestor at that depth, as ranges do.
  int32_t captured_node(int32_t parent, std::string_view path, uint64_t loc) {
    size_t at = 0;
    while (at <= path.size() && (parent < 0 || t_.nodes[static_cast<size_t>(parent)].depth < kMaxDepth)) {
      const size_t e = std::min(path.find('\n', at), path.size());
      const size_t before = t_.nodes.size();
      parent = static_cast<int32_t>(child(parent, module_label(path.substr(at, e - at)), RangeKind::Module, loc));
      captured_nodes_ = captured_nodes_ || t_.nodes.size() > before;
      at = e + 1;
    }
    return parent;
  }

  // `captured`: a replayed kernel's module frames in its capture (captured_node), else empty.
  void add(uint32_t slice, int step, bool joined, int64_t tid, Ns ts, std::string_view captured = {},
           uint64_t call_loc = 0) {
    if (step < 0) return;
    const Slice& s = m_.slices[slice];
    const TaskClass c = classify_device_task(m_, s);
    const int part = c == TaskClass::Compute ? 0 : c == TaskClass::Communication ? 1 : c == TaskClass::Other ? 2 : -1;
    if (part < 0) return;
    t_.step_ns += s.dur;
    t_.step_part[part] += s.dur;
    int32_t o = joined ? innermost(tid, ts) : -1;
    int32_t leaf = o < 0 ? -1 : static_cast<int32_t>(occurrences_.at(tid)[static_cast<size_t>(o)].node);
    if (!captured.empty()) {
      leaf = captured_node(leaf, captured, call_loc);
      t_.mapped_graph_ns += s.dur;
    }
    const bool backward = leaf < 0 && joined;
    if (backward) leaf = backward_node(tid, ts);
    if (leaf < 0) {
      if (!joined) t_.unjoined_ns += s.dur;
      return;
    }
    t_.nodes[static_cast<size_t>(leaf)].self += s.dur;
    for (int32_t n = leaf; n >= 0; n = t_.nodes[static_cast<size_t>(n)].parent) {
      Node& x = t_.nodes[static_cast<size_t>(n)];
      x.total += s.dur;
      x.part[part] += s.dur;
      if (backward) x.backward += s.dur;
    }
  }

  // Each forward -> backward arrow (fwdbwd: the autograd node a forward op created, run later on
  // the autograd thread) joins the backward op that starts at its end, the longest slice starting
  // there, to the innermost module range that held the forward op.
  void collect_backward() {
    for (const Flow& f : m_.flows) {
      if (f.kind != FlowKind::FwdBwd || f.start_track >= m_.tracks.size() || f.end_track >= m_.track_slices.size())
        continue;
      const int32_t o = innermost(m_.tracks[f.start_track].tid, f.start_ts);
      if (o < 0) continue;
      const uint32_t node = occurrences_.at(m_.tracks[f.start_track].tid)[static_cast<size_t>(o)].node;
      const auto r = m_.track_slices[f.end_track];
      auto it = std::lower_bound(m_.slices.begin() + r.begin, m_.slices.begin() + r.end, f.end_ts,
                                 [](const Slice& x, Ns v) { return x.ts < v; });
      if (it == m_.slices.begin() + r.end || it->ts != f.end_ts) continue;
      backward_[m_.tracks[f.end_track].tid].push_back({it->ts, it->end(), node});
    }
    for (auto& entry : backward_)
      std::stable_sort(entry.second.begin(), entry.second.end(), [](const BackwardRange& a, const BackwardRange& b) {
        return a.ts != b.ts ? a.ts < b.ts : a.end > b.end;
      });
  }

  // The module of the backward range on `tid` that holds ts: the latest-starting, of those the
  // longest, of identical ones the first joined; -1 for none.
  int32_t backward_node(int64_t tid, Ns ts) const {
    auto t = backward_.find(tid);
    if (t == backward_.end()) return -1;
    const auto& b = t->second;
    auto it = std::upper_bound(b.begin(), b.end(), ts, [](Ns v, const BackwardRange& x) { return v < x.ts; });
    // Backward ops of one thread follow each other; look back a few in case one nests in another.
    for (int k = 0; k < 4 && it != b.begin(); ++k) {
      --it;
      if (ts > it->end) continue;
      while (it != b.begin() && std::prev(it)->ts == it->ts) --it;  // longer ones start there too
      return static_cast<int32_t>(it->node);
    }
    return -1;
  }

  void attribute_device_work() {
    t_.steps = m_.steps.empty() ? 1 : m_.steps.size();
    const RunFrame& frame = ctx_.frame;
    std::vector<uint8_t> graph_call(m_.strings.size(), 2);
    auto is_graph = [&](StrId name) {
      uint8_t& g = graph_call[name];
      if (g == 2) g = graph_call_kind(m_.str(name)) != GraphCallKind::None ? 1 : 0;
      return g == 1;
    };
    if (frame.launched_work()) {
      for (const LaunchedOp& op : frame.launched()) {
        if (op.call == kNone32) {
          add(op.slice, op.step, false, 0, 0);
          continue;
        }
        const Slice& call = m_.slices[op.call];
        std::string_view captured;
        if (op.step >= 0 && is_graph(call.name)) {
          t_.graph_ns += m_.slices[op.slice].dur;
          // A replayed kernel paired with its captured launch: where the capture ran it.
          if (const CapturedLaunch* l = m_.graph_replays.launch_of(op.slice); l && l->module_path != kEmptyStr)
            captured = m_.str(l->module_path);
        }
        add(op.slice, op.step, true, m_.tracks[call.track].tid, call.ts, captured, call.loc);
      }
      if (captured_nodes_) shapes();  // the captured modules' nodes came after the ranges'
      return;
    }
    const std::vector<LaunchOrigin> origins = frame.origins();
    auto visit = [&](uint32_t slice) {
      auto it = std::lower_bound(origins.begin(), origins.end(), slice,
                                 [](const LaunchOrigin& o, uint32_t v) { return o.slice < v; });
      if (it != origins.end() && it->slice == slice) {
        add(slice, frame.step_of_launch(it->ts), true, it->tid, it->ts);
        return;
      }
      add(slice, frame.step_of_device(m_.slices[slice].ts), false, 0, 0);
    };
    for (uint32_t s : ctx_.device.compute_slices) visit(s);
    for (uint32_t s : ctx_.device.comm_slices) visit(s);
    for (uint32_t s : ctx_.device.copy_slices) visit(s);
  }

  const DiagnosticContext& ctx_;
  const RunModel& m_;
  Tree t_;
  // A node by its parent and name: a path is shared with its parent, never copied.
  struct ParentLabelHash {
    size_t operator()(const std::pair<int32_t, std::string_view>& k) const {
      return std::hash<std::string_view>{}(k.second) * 31 + static_cast<size_t>(k.first);
    }
  };
  std::unordered_map<std::pair<int32_t, std::string_view>, uint32_t, ParentLabelHash> by_parent_;
  uint64_t too_deep_ = 0;  // ranges deeper than kMaxDepth, counted in their ancestor
  std::unordered_map<int64_t, std::vector<Occurrence>> occurrences_;
  std::unordered_map<int64_t, std::vector<BackwardRange>> backward_;
  bool captured_nodes_ = false;
};

}  // namespace

void diagnose_modules(const DiagnosticContext& ctx, Facts& facts) { ModuleTree(ctx).run(facts); }

}  // namespace npu
