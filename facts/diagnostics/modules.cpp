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
#include "facts/graph_calls.h"
#include "facts/module_ranges.h"

namespace npu {
namespace {

using nlohmann::json;

constexpr size_t kMaxNodes = 2000;   // tree nodes kept (the heaviest, with their ancestors)
constexpr size_t kMinRepeated = 3;   // siblings of one class and shape that make a repeated layer
constexpr size_t kMaxMembers = 512;  // members listed per repeated layer
constexpr size_t kMaxRepeated = 64;  // repeated layers listed (the heaviest)
constexpr const char* kSep = "/";    // between the names of a path
// Ranges nested deeper than this count for their ancestor at this depth (8,000 nested ranges
// made paths of depth x name bytes each); a real model's tree is a few tens deep.
constexpr size_t kMaxDepth = 128;

using RangeKind = ModuleRangeKind;

// "Linear_3" -> "Linear", "layers.11" -> "layers": the class a repeated layer shares.
std::string class_of(std::string_view label) {
  size_t e = label.size();
  while (e > 0 && label[e - 1] >= '0' && label[e - 1] <= '9') --e;
  if (e == label.size() || e == 0) return std::string(label);
  if (label[e - 1] == '_' || label[e - 1] == '.' || label[e - 1] == '#') --e;
  return std::string(label.substr(0, e));
}

struct Node {
  std::string_view label;  // the model's string: a path is built from the parents when written
  RangeKind kind = RangeKind::None;
  int32_t parent = -1;
  uint32_t depth = 1;
  uint64_t calls = 0, loc = 0;
  Ns host = 0, total = 0, self = 0;
  Ns part[3] = {0, 0, 0};  // computing, communication, copies (total)
  Ns backward = 0;         // of total: launched by the backward ops its forward ops became
  std::vector<uint32_t> children;
  uint64_t shape = 0;  // class and children's shapes, for repeated layers
};

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
    if (nodes_.empty() && !launched_work && ascend_graph_ns == 0) return facts.unavailable("modules", kWhy);
    collect_backward();
    attribute_device_work();
    if (!launched_work) graph_ns_ = std::min(step_ns_, ascend_graph_ns);
    if (nodes_.empty()) {
      // Without ranges the graph coverage is still worth stating: the rankings cannot see inside replays.
      if (graph_ns_ == 0) return facts.unavailable("modules", kWhy);
      facts.unavailable("modules.tree", kWhy);
    }
    facts.doc["modules"] = to_json(facts);
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
    if (nodes_.size() > 0) shapes();
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
      Node& n = nodes_[node];
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
    auto [it, fresh] = by_parent_.try_emplace({parent, label}, static_cast<uint32_t>(nodes_.size()));
    if (fresh) {
      Node n;
      n.label = label;
      n.kind = kind;
      n.parent = parent;
      n.depth = parent < 0 ? 1 : nodes_[static_cast<size_t>(parent)].depth + 1;
      n.loc = loc;
      nodes_.push_back(std::move(n));
      if (parent >= 0) nodes_[static_cast<size_t>(parent)].children.push_back(it->second);
    }
    return it->second;
  }

  // A node's shape: its class and its children's shapes, in order (children come after parents).
  void shapes() {
    for (size_t i = nodes_.size(); i-- > 0;) {
      Node& n = nodes_[i];
      uint64_t h = std::hash<std::string>{}(class_of(n.label));
      for (uint32_t c : n.children) h = h * 1000003u ^ nodes_[c].shape;
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
    while (at <= path.size() && (parent < 0 || nodes_[static_cast<size_t>(parent)].depth < kMaxDepth)) {
      const size_t e = std::min(path.find('\n', at), path.size());
      const size_t before = nodes_.size();
      parent = static_cast<int32_t>(child(parent, module_label(path.substr(at, e - at)), RangeKind::Module, loc));
      captured_nodes_ = captured_nodes_ || nodes_.size() > before;
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
    step_ns_ += s.dur;
    step_part_[part] += s.dur;
    int32_t o = joined ? innermost(tid, ts) : -1;
    int32_t leaf = o < 0 ? -1 : static_cast<int32_t>(occurrences_.at(tid)[static_cast<size_t>(o)].node);
    if (!captured.empty()) {
      leaf = captured_node(leaf, captured, call_loc);
      mapped_graph_ns_ += s.dur;
    }
    const bool backward = leaf < 0 && joined;
    if (backward) leaf = backward_node(tid, ts);
    if (leaf < 0) {
      if (!joined) unjoined_ns_ += s.dur;
      return;
    }
    nodes_[static_cast<size_t>(leaf)].self += s.dur;
    for (int32_t n = leaf; n >= 0; n = nodes_[static_cast<size_t>(n)].parent) {
      Node& x = nodes_[static_cast<size_t>(n)];
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
    steps_ = m_.steps.empty() ? 1 : m_.steps.size();
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
          graph_ns_ += m_.slices[op.slice].dur;
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

  json to_json(Facts& facts) const;
  std::vector<bool> kept_nodes() const;  // what the tree lists
  std::vector<uint32_t> preorder(const std::vector<bool>& kept, std::vector<int32_t>& index) const;
  json repeated_json(const std::vector<bool>& kept) const;
  // "Model/encoder/Linear_3": the names from the root, cut as a long name is (text::clip, with
  // the whole path's length).
  std::string path(int32_t node) const {
    std::vector<std::string_view> names;
    size_t bytes = 0;
    for (int32_t k = node; k >= 0; k = nodes_[static_cast<size_t>(k)].parent) {
      names.push_back(nodes_[static_cast<size_t>(k)].label);
      bytes += names.back().size() + (names.size() > 1 ? 1 : 0);
    }
    std::string out;
    for (size_t i = names.size(); i-- > 0 && out.size() <= text::kMaxNameBytes;) {
      out += names[i];
      if (i > 0) out += kSep;
    }
    if (bytes <= text::kMaxNameBytes) return out;
    const std::string suffix = "...(" + std::to_string(bytes) + " bytes)";
    out.resize(text::utf8_prefix(out, text::kMaxNameBytes - suffix.size()));
    return out + suffix;
  }

  const DiagnosticContext& ctx_;
  const RunModel& m_;
  std::vector<Node> nodes_;
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
  size_t steps_ = 1;
  Ns step_ns_ = 0, unjoined_ns_ = 0, graph_ns_ = 0;
  Ns mapped_graph_ns_ = 0;  // of graph_ns_: mapped to the modules its capture recorded
  bool captured_nodes_ = false;
  Ns step_part_[3] = {0, 0, 0};
};

Ns per_step(Ns v, size_t steps) {
  return static_cast<Ns>(std::llround(static_cast<double>(v) / static_cast<double>(steps)));
}

// Siblings of one class and one shape, three or more: the repeated layers, with their spread.
json ModuleTree::repeated_json(const std::vector<bool>& kept) const {
  std::map<std::pair<int32_t, uint64_t>, std::vector<uint32_t>> groups;
  for (uint32_t i = 0; i < nodes_.size(); ++i)
    if (kept[i]) groups[{nodes_[i].parent, nodes_[i].shape}].push_back(i);
  std::vector<std::pair<Ns, json>> out;
  for (const auto& [key, members] : groups) {
    if (members.size() < kMinRepeated) continue;
    std::vector<double> v;
    Ns sum = 0;
    for (uint32_t i : members) {
      v.push_back(static_cast<double>(nodes_[i].total));
      sum += nodes_[i].total;
    }
    const double med = stats::median_midpoint(v);
    const double mad = stats::mad_midpoint(v, med);
    const Node& first = nodes_[members[0]];
    json list = json::array();
    for (size_t k = 0; k < members.size() && k < kMaxMembers; ++k) {
      const Node& n = nodes_[members[k]];
      list.push_back({{"path", path(static_cast<int32_t>(members[k]))},
                      {"device_ns", per_step(n.total, steps_)},
                      {"host_ns", per_step(n.host, steps_)},
                      {"calls", n.calls},
                      {"evidence", json::array({evidence_event(m_, n.loc, "its first range")})}});
    }
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    out.push_back({sum, json{{"class", class_of(first.label)},
                             {"parent", first.parent < 0 ? json(nullptr) : json(path(first.parent))},
                             {"count", members.size()},
                             {"device_ns", per_step(sum, steps_)},
                             {"median_ns", per_step(static_cast<Ns>(med), steps_)},
                             {"mad_ns", per_step(static_cast<Ns>(mad), steps_)},
                             {"min_ns", per_step(static_cast<Ns>(*lo), steps_)},
                             {"max_ns", per_step(static_cast<Ns>(*hi), steps_)},
                             {"members_listed", list.size()},
                             {"members", std::move(list)}}});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  json arr = json::array();
  for (size_t k = 0; k < out.size() && k < kMaxRepeated; ++k) arr.push_back(std::move(out[k].second));
  return arr;
}

std::vector<bool> ModuleTree::kept_nodes() const {
  // Keep the heaviest nodes and their ancestors when the tree is too large to list.
  std::vector<bool> kept(nodes_.size(), true);
  if (nodes_.size() <= kMaxNodes) return kept;
  std::vector<uint32_t> order(nodes_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return nodes_[a].total > nodes_[b].total; });
  std::fill(kept.begin(), kept.end(), false);
  size_t n = 0;
  for (uint32_t i : order) {
    for (int32_t k = static_cast<int32_t>(i); k >= 0 && !kept[static_cast<size_t>(k)];
         k = nodes_[static_cast<size_t>(k)].parent) {
      kept[static_cast<size_t>(k)] = true;
      ++n;
    }
    if (n >= kMaxNodes) break;
  }
  return kept;
}

std::vector<uint32_t> ModuleTree::preorder(const std::vector<bool>& kept, std::vector<int32_t>& index) const {
  // Preorder: parents before children, siblings in the order they first ran.
  std::vector<uint32_t> order;
  index.assign(nodes_.size(), -1);
  std::vector<uint32_t> stack;
  for (uint32_t i = static_cast<uint32_t>(nodes_.size()); i-- > 0;)
    if (nodes_[i].parent < 0 && kept[i]) stack.push_back(i);
  while (!stack.empty()) {
    const uint32_t i = stack.back();
    stack.pop_back();
    index[i] = static_cast<int32_t>(order.size());
    order.push_back(i);
    const auto& ch = nodes_[i].children;
    for (size_t k = ch.size(); k-- > 0;)
      if (kept[ch[k]]) stack.push_back(ch[k]);
  }
  return order;
}

json ModuleTree::to_json(Facts& facts) const {
  const std::vector<bool> kept = kept_nodes();
  std::vector<int32_t> index;
  const std::vector<uint32_t> order = preorder(kept, index);
  Ns in_modules = 0;
  for (const Node& n : nodes_)
    if (n.parent < 0) in_modules += n.total;
  json tree = json::array();
  for (uint32_t i : order) {
    const Node& n = nodes_[i];
    tree.push_back({{"path", path(static_cast<int32_t>(i))},
                    {"name", n.label},
                    {"class", class_of(n.label)},
                    {"kind", n.kind == RangeKind::Module ? "module" : "annotation"},
                    {"depth", n.depth},
                    {"parent", n.parent < 0 ? -1 : index[static_cast<size_t>(n.parent)]},
                    {"calls", n.calls},
                    {"device_ns", per_step(n.total, steps_)},
                    {"self_ns", per_step(n.self, steps_)},
                    {"computing_ns", per_step(n.part[0], steps_)},
                    {"communication_ns", per_step(n.part[1], steps_)},
                    {"copies_ns", per_step(n.part[2], steps_)},
                    {"backward_ns", per_step(n.backward, steps_)},
                    {"host_ns", per_step(n.host, steps_)},
                    {"total_device_ns", n.total},
                    {"evidence", json::array({evidence_event(m_, n.loc, "its first range")})}});
  }
  json graph = {{"device_ns", per_step(graph_ns_, steps_)},
                {"share", stats::ratio(graph_ns_, step_ns_)},
                {"mapped", mapped_graph_ns_ > 0},
                {"mapped_ns", per_step(mapped_graph_ns_, steps_)},
                {"mapped_share", stats::ratio(mapped_graph_ns_, graph_ns_)}};
  if (graph_ns_ > mapped_graph_ns_) {
    graph["why_not_mapped"] =
        "graph replays launch their kernels from one call: a replayed kernel is mapped to the modules its "
        "capture recorded around its launch only where the capture (in the trace or beside it) is paired with the "
        "replay and recorded nn.Module frames (with_stack); the rest counts for the module that launched the "
        "replay, else outside every module";
    if (mapped_graph_ns_ == 0)
      facts.unavailable("modules.graph", "replayed kernels are not mapped back to the modules that captured them");
  }
  const Ns total = step_ns_;
  return {{"steps", m_.steps.size()},
          {"ranges",
           [&] {
             uint64_t n = 0;
             for (const auto& [tid, occ] : occurrences_) n += occ.size();
             return n;
           }()},
          {"nodes", nodes_.size()},
          {"nodes_listed", tree.size()},
          {"step_device_ns", per_step(total, steps_)},
          {"step_computing_ns", per_step(step_part_[0], steps_)},
          {"step_communication_ns", per_step(step_part_[1], steps_)},
          {"step_copies_ns", per_step(step_part_[2], steps_)},
          {"total_step_device_ns", total},
          {"in_modules_ns", per_step(in_modules, steps_)},
          {"outside_ns", per_step(total, steps_) - per_step(in_modules, steps_)},  // adds up as rounded
          {"unjoined_ns", per_step(unjoined_ns_, steps_)},
          {"coverage", stats::ratio(in_modules, total)},
          {"graph", std::move(graph)},
          {"tree", std::move(tree)},
          {"repeated", repeated_json(kept)}};
}

}  // namespace

void diagnose_modules(const DiagnosticContext& ctx, Facts& facts) { ModuleTree(ctx).run(facts); }

}  // namespace npu
