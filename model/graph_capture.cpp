#include "model/graph_capture.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

#include "model/engine_patterns.h"
#include "model/model.h"

namespace npu {

const CapturedLaunch* GraphReplays::launch_of(uint32_t slice) const {
  auto it = std::lower_bound(ops.begin(), ops.end(), slice, [](const ReplayedOp& o, uint32_t s) { return o.slice < s; });
  return it != ops.end() && it->slice == slice ? &launches[it->launch] : nullptr;
}

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// A runtime call that puts device work on a stream: a kernel launch, a copy or a memset (a graph
// launch is a replay, not a captured launch).
bool is_launch_call(std::string_view n) {
  return (contains(n, "Launch") && !contains(n, "GraphLaunch")) || contains(n, "Memcpy") || contains(n, "Memset");
}

// Walks a host track in order with the stack of slices open at each one; `visit(i, stack)` sees
// every slice after the stack was cut back to the slices that hold it.
template <class Visit>
void walk_track(const RunModel& m, uint32_t t, Visit visit) {
  std::vector<uint32_t> stack;
  for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
    const Slice& s = m.slices[i];
    while (!stack.empty() && m.slices[stack.back()].end() < s.end()) stack.pop_back();
    visit(i, stack);
    stack.push_back(i);
  }
}

HostOpsAround around(const RunModel& m, const std::vector<uint32_t>& stack) {
  HostOpsAround h;
  for (uint32_t j : stack) {
    const Slice& s = m.slices[j];
    if (m.str(s.cat) != "cpu_op") continue;
    if (h.op == kEmptyStr) h.op = s.name;
    h.leaf_op = s.name;
    h.leaf_slice = j;
  }
  return h;
}

// The nn.Module forwards' Python frames (with_stack traces) on the stack, outermost first, their
// names joined by '\n'.
std::string module_path(const RunModel& m, const std::vector<uint32_t>& stack) {
  std::string out;
  for (uint32_t j : stack) {
    const Slice& s = m.slices[j];
    if (m.str(s.cat) != "python_function" || !m.str(s.name).starts_with("nn.Module: ")) continue;
    if (!out.empty()) out += '\n';
    out += m.str(s.name);
  }
  return out;
}

// The capture annotation (capture_32_FULL) on the stack, outermost first, or kNone32.
uint32_t capture_annotation(const RunModel& m, const std::vector<uint32_t>& stack, PatternMatch& pm) {
  for (uint32_t j : stack) {
    PatternMatch p;
    if (match_engine_pattern(m.str(m.slices[j].name), p) >= 0 && p.kind == PatternMatch::Kind::Capture) {
      pm = p;
      return j;
    }
  }
  return kNone32;
}

}  // namespace

std::vector<HostOpsAround> host_ops_around(const RunModel& m, const std::vector<uint32_t>& calls) {
  std::vector<HostOpsAround> out(calls.size());
  std::unordered_map<uint32_t, std::vector<size_t>> want;  // slice -> indexes into calls
  std::vector<bool> track_wanted(m.tracks.size(), false);
  for (size_t k = 0; k < calls.size(); ++k) {
    want[calls[k]].push_back(k);
    track_wanted[m.slices[calls[k]].track] = true;
  }
  for (uint32_t t = 0; t < m.tracks.size() && t < m.track_slices.size(); ++t) {
    if (!track_wanted[t]) continue;
    walk_track(m, t, [&](uint32_t i, const std::vector<uint32_t>& stack) {
      auto it = want.find(i);
      if (it == want.end()) return;
      const HostOpsAround h = around(m, stack);
      for (size_t k : it->second) out[k] = h;
    });
  }
  return out;
}

void add_graph_captures(RunModel& dst, const RunModel& src, int32_t file, int64_t batch, const std::string& mode) {
  auto to_dst = [&](StrId id) { return &src == &dst || id == kEmptyStr ? id : dst.strings.intern(src.str(id)); };
  GraphReplays& g = dst.graph_replays;
  std::map<uint32_t, size_t> group;  // capture annotation slice (kNone32: none) -> captures index
  for (uint32_t t = 0; t < src.tracks.size() && t < src.track_slices.size(); ++t) {
    if (!is_host_op_track(src.tracks[t])) continue;
    GraphCapture* open = nullptr;
    walk_track(src, t, [&](uint32_t i, const std::vector<uint32_t>& stack) {
      const Slice& s = src.slices[i];
      const std::string_view n = src.str(s.name);
      const GraphCall call = graph_call(n);
      if (call == GraphCall::BeginCapture) {
        PatternMatch pm;
        const uint32_t ann = capture_annotation(src, stack, pm);
        auto [it, fresh] = group.try_emplace(ann, g.captures.size());
        if (fresh) {
          GraphCapture c;
          c.batch = batch >= 0 ? batch : pm.batch;
          c.mode = !mode.empty() ? mode : std::string(pm.mode);
          c.file = file;
          c.loc = ann != kNone32 ? src.slices[ann].loc : s.loc;
          g.captures.push_back(std::move(c));
        }
        open = &g.captures[it->second];
        const auto at = static_cast<uint32_t>(g.launches.size());
        open->graphs.push_back({at, at});
      } else if (call == GraphCall::EndCapture) {
        open = nullptr;
      } else if (open && kineto_category(src.str(s.cat)) == KinetoCat::HostRuntime && is_launch_call(n)) {
        const HostOpsAround h = around(src, stack);
        const StrId kernel = src.launch_kernel_of(s);
        CapturedLaunch l{to_dst(kernel), to_dst(s.name), to_dst(h.op), to_dst(h.leaf_op)};
        if (const std::string path = module_path(src, stack); !path.empty()) l.module_path = dst.strings.intern(path);
        if (h.leaf_slice != kNone32) {
          const Slice& op = src.slices[h.leaf_slice];
          if (const OpInputs* in = src.op_inputs_of(op)) l.dims = to_dst(in->dims), l.types = to_dst(in->types);
          l.file = file;
          l.leaf_loc = file >= 0 ? src.decode_loc(op.loc).offset : op.loc;
        }
        g.launches.push_back(l);
        open->graphs.back().end = static_cast<uint32_t>(g.launches.size());
      }
    });
  }
}

namespace {

// Whether the run's names hold a graph launch or a stream capture at all: a look at the distinct
// names, so that runs without graphs pay nothing more.
bool has_graph_calls(const RunModel& m, bool& captures) {
  bool launches = false;
  captures = false;
  for (StrId id = 0; id < m.strings.size(); ++id) {
    const GraphCall c = graph_call(m.str(id));
    launches |= c == GraphCall::Launch;
    captures |= c == GraphCall::BeginCapture;
  }
  return launches || captures;
}

// The capture a replay of an iteration of `size` with `launches` graph launches pairs with: the
// smallest batch at least `size`; of FULL and PIECEWISE at that batch, FULL for one launch.
int32_t pick_capture(const GraphReplays& g, int64_t size, size_t launches) {
  int32_t best = -1;
  for (size_t c = 0; c < g.captures.size(); ++c) {
    const GraphCapture& cap = g.captures[c];
    if (cap.graphs.empty()) continue;
    if (size >= 0 ? cap.batch < size : g.captures.size() != 1) continue;
    if (best < 0 || cap.batch < g.captures[static_cast<size_t>(best)].batch) {
      best = static_cast<int32_t>(c);
      continue;
    }
    if (cap.batch == g.captures[static_cast<size_t>(best)].batch && (cap.graphs.size() > 1) == (launches > 1))
      best = static_cast<int32_t>(c);
  }
  return best;
}

bool names_match(const RunModel& m, const CapturedLaunch& l, const Slice& op) {
  const KinetoCat cat = kineto_category(m.str(op.cat));
  const std::string_view call = m.str(l.call);
  if (contains(call, "Memcpy")) return cat == KinetoCat::GpuMemcpy;
  if (contains(call, "Memset")) return cat == KinetoCat::GpuMemset || contains(m.str(op.name), "fillBuffer");
  return l.kernel == kEmptyStr || l.kernel == op.name;
}

// Pairs a replay's ops (in start order) with its graph's launches: per stream in order, each
// captured launch taking the first stream whose next op has its kernel; a launch no stream has
// next is passed over (a capture may record a launch the replay does not run).
void align(RunModel& m, GraphReplays::Replay& r, const CapturedGraph& graph, const std::vector<uint32_t>& ops) {
  GraphReplays& g = m.graph_replays;
  std::map<uint32_t, std::deque<uint32_t>> streams;
  for (uint32_t s : ops) streams[m.slices[s].track].push_back(s);
  for (uint32_t l = graph.begin; l < graph.end; ++l) {
    for (auto& [track, q] : streams) {
      if (q.empty() || !names_match(m, g.launches[l], m.slices[q.front()])) continue;
      g.ops.push_back({q.front(), l});
      q.pop_front();
      ++r.paired_ops;
      break;
    }
  }
  if (r.paired_ops < r.ops) r.why = "some replayed kernels have no captured launch of their name at their place";
}

}  // namespace

namespace {

// The iteration (index into `its`, outermost annotations by start) whose host span holds the
// call, on its process, or -1.
int32_t iteration_of(const RunModel& m, const std::vector<PatternHit>& its, const Slice& call) {
  auto next =
      std::upper_bound(its.begin(), its.end(), call.ts, [](Ns ts, const PatternHit& h) { return ts < h.start; });
  if (next == its.begin()) return -1;
  const size_t k = static_cast<size_t>(next - its.begin()) - 1;
  const Slice& a = m.slices[its[k].slice];
  if (call.end() > its[k].end || m.tracks[a.track].pid != m.tracks[call.track].pid) return -1;
  return static_cast<int32_t>(k);
}

// The graph launch calls (m.graph_replays.replays, by track then start) with their iterations,
// and the device ops each ran (the ops whose correlation id is the call's), in start order.
std::vector<std::vector<uint32_t>> collect_replays(RunModel& m, const std::vector<PatternHit>& its,
                                                   std::vector<int32_t>& it_of) {
  GraphReplays& g = m.graph_replays;
  std::unordered_map<uint32_t, size_t> replay_of;
  for (uint32_t t = 0; t < m.tracks.size() && t < m.track_slices.size(); ++t)
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      if (graph_call(m.str(m.slices[i].name)) != GraphCall::Launch) continue;
      replay_of[i] = g.replays.size();
      g.replays.push_back({i});
      it_of.push_back(iteration_of(m, its, m.slices[i]));
    }
  std::vector<std::vector<uint32_t>> ops(g.replays.size());
  for (uint32_t t = 0; t < m.tracks.size() && t < m.track_slices.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::Device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      if (m.slices[i].corr == kNoId) continue;
      auto c = m.correlation.by_id.find(m.slices[i].corr);
      if (c == m.correlation.by_id.end()) continue;
      if (auto r = replay_of.find(c->second); r != replay_of.end()) ops[r->second].push_back(i);
    }
  }
  for (auto& o : ops)
    std::sort(o.begin(), o.end(), [&](uint32_t a, uint32_t b) { return m.slices[a].ts < m.slices[b].ts; });
  return ops;
}

// Pairs one iteration's launches (`rs`, in start order) with capture `c`: the k-th launch with
// the k-th graph of a capture of as many graphs, every launch with the graph of a one-graph one.
void pair_iteration(RunModel& m, int32_t c, const std::vector<size_t>& rs, const std::vector<std::vector<uint32_t>>& ops) {
  GraphReplays& g = m.graph_replays;
  for (size_t k = 0; k < rs.size(); ++k) {
    GraphReplays::Replay& r = g.replays[rs[k]];
    r.ops = static_cast<uint32_t>(ops[rs[k]].size());
    if (c < 0) {
      r.why = g.captures.empty() ? "no capture in the trace or beside it"
                                 : "no capture of the iteration's batch size or larger";
      continue;
    }
    const GraphCapture& cap = g.captures[static_cast<size_t>(c)];
    const size_t graph = cap.graphs.size() == 1 ? 0 : cap.graphs.size() == rs.size() ? k : cap.graphs.size();
    if (graph >= cap.graphs.size()) {
      r.why = "the iteration's graph launches are not as many as the capture's graphs";
      continue;
    }
    r.capture = c, r.graph = static_cast<int32_t>(graph);
    align(m, r, cap.graphs[graph], ops[rs[k]]);
  }
}

}  // namespace

void pair_graph_replays(RunModel& m) {
  bool captures = false;
  if (!has_graph_calls(m, captures)) return;
  if (captures) add_graph_captures(m, m, -1, -1, "");
  GraphReplays& g = m.graph_replays;
  const std::vector<PatternHit> its = engine_iterations(m);
  std::vector<int32_t> it_of;
  const std::vector<std::vector<uint32_t>> ops = collect_replays(m, its, it_of);
  std::map<int32_t, std::vector<size_t>> by_it;  // iteration (-1: none) -> its launches
  for (size_t r = 0; r < g.replays.size(); ++r) by_it[it_of[r]].push_back(r);
  for (auto& [it, rs] : by_it) {
    std::sort(rs.begin(), rs.end(),
              [&](size_t a, size_t b) { return m.slices[g.replays[a].call].ts < m.slices[g.replays[b].call].ts; });
    int64_t size = -1;
    if (it >= 0) {
      const PatternMatch& pm = its[static_cast<size_t>(it)].match;
      size = pm.tokens >= 0 ? pm.tokens : pm.requests;
    }
    // A launch outside any iteration (or of one whose name says no size) pairs only with the one capture there is.
    const int32_t c = size < 0 && g.captures.size() != 1 ? -1 : pick_capture(g, size, rs.size());
    pair_iteration(m, c, rs, ops);
  }
  std::sort(g.ops.begin(), g.ops.end(), [](const ReplayedOp& a, const ReplayedOp& b) { return a.slice < b.slice; });
}

}  // namespace npu
