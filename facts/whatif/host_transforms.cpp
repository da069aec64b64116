// The Ascend host fixes of the what-if replay (docs/whatif.md): torch_npu's task queue at level 2
// and CPU binding, as edits of the two-stage host pipeline (replay_queue.cpp).
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "base/stats.h"
#include "facts/whatif/transform_parts.h"

namespace npu::whatif {
namespace {

constexpr int kStretchOps = 16;       // operators per host stretch
constexpr double kSlowStretch = 2.0;  // a stretch this many times the median time per operator is slow
constexpr size_t kMinStretches = 3;   // the median needs at least this many stretches

int64_t tid_of(const RunModel& m, const HostItem& it) { return m.tracks[m.slices[it.slice].track].tid; }

// Each enqueuing thread's Enqueue items (their start, their link), in time order.
std::unordered_map<int64_t, std::vector<std::pair<Ns, uint32_t>>> enqueues_by_thread(const RunModel& m,
                                                                                      const Graph& g) {
  std::unordered_map<int64_t, std::vector<std::pair<Ns, uint32_t>>> out;
  for (uint32_t k = 0; k < g.links.size(); ++k) {
    const HostItem& e = g.items[g.links[k].enqueue];
    out[tid_of(m, e)].push_back({e.s, k});
  }
  for (auto& [tid, v] : out) std::sort(v.begin(), v.end());
  return out;
}

// The slices of the enqueuing threads (lane 0, host tracks) whose name ends with `suffix`.
std::vector<uint32_t> lane0_slices_ending(const RunModel& m, const Graph& g, std::string_view suffix) {
  std::vector<int8_t> match(m.strings.size(), -1);
  std::vector<uint32_t> out;
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind == TrackKind::Device || (!g.queue_track.empty() && g.queue_track[t])) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      int8_t& x = match[m.slices[i].name];
      if (x < 0) x = m.str(m.slices[i].name).ends_with(suffix) ? 1 : 0;
      if (x) out.push_back(i);
    }
  }
  return out;
}

}  // namespace

Transform task_queue(const RunModel& m, const Graph& g) {
  Transform t;
  t.name = "task_queue";
  if (g.links.empty()) {
    t.why =
        "no Enqueue joined to its Dequeue in the trace: the task queue is off (TASK_QUEUE_ENABLE=0) or not recorded "
        "(turning it on is not modelled)";
    return t;
  }
  const auto enqueues = enqueues_by_thread(m, g);
  Ns moved = 0;
  size_t calls = 0;
  for (uint32_t w : lane0_slices_ending(m, g, "GetWorkspaceSize")) {
    const Slice& s = m.slices[w];
    if (s.ts < g.span_start || s.ts >= g.span_end) continue;  // outside the graph's steps (a block of them)
    auto th = enqueues.find(m.tracks[s.track].tid);
    if (th == enqueues.end()) continue;
    // The operator's Enqueue: the thread's first one after its workspace call.
    auto e = std::lower_bound(th->second.begin(), th->second.end(), std::make_pair(s.end(), 0u));
    if (e == th->second.end()) continue;
    t.edit.removed.push_back({s.ts, s.end()});
    t.edit.delays.push_back({g.links[e->second].dequeue, s.dur});
    moved += s.dur;
    ++calls;
  }
  if (calls == 0) {
    t.why =
        "no operator's workspace work on the enqueuing threads in the trace (no aclnn*GetWorkspaceSize call before an "
        "Enqueue): level 2 has nothing to move (the queue is at level 2 already, or every operator hit the aclnn cache)";
    t.edit = {};
    return t;
  }
  t.applicable = true;
  t.formula = fmt::format(
      "{} aclnn workspace calls ({:.3f} ms per step) moved from the enqueuing threads to the queue thread, each "
      "before its operator's Dequeue (TASK_QUEUE_ENABLE=2); the queue thread wakes {:.2f} us after an Enqueue and "
      "runs its Dequeues {:.2f} us apart (medians in the trace)",
      calls, to_ms(per_graph_step(g, static_cast<double>(moved))), static_cast<double>(g.queue_lag) / 1e3, static_cast<double>(g.queue_gap) / 1e3);
  return t;
}

namespace {

// The launching thread's operators, in host order: its Enqueues with the task queue, else the
// launch calls.
std::vector<uint32_t> operator_items(const Graph& g) {
  std::vector<uint32_t> out;
  if (!g.links.empty()) {
    for (const QueueLink& q : g.links) out.push_back(q.enqueue);
    std::sort(out.begin(), out.end());
    return out;
  }
  for (uint32_t j = 0; j < g.items.size(); ++j)
    if (g.items[j].kind == ItemKind::Launch && g.items[j].tasks > 0) out.push_back(j);
  return out;
}

// Stretches of kStretchOps operators inside one step with no host wait (a sync, a blocking copy)
// and no host work of a known cause (DataLoader fetches, GC, online compilation: other fixes)
// inside: (first item, last item).
std::vector<std::pair<uint32_t, uint32_t>> stretches(const RunModel& m, const Graph& g, const HostCauseSlices& causes) {
  std::vector<Ns> waits;
  for (uint32_t j = 0; j < g.items.size(); ++j)
    if (g.lane_of(j) == 0 && (g.items[j].kind == ItemKind::Sync || g.items[j].kind == ItemKind::BlockingCopy))
      waits.push_back(g.items[j].s);
  Intervals known;
  for (HostCause c : {HostCause::Dataloader, HostCause::GC, HostCause::Compile})
    for (uint32_t i : causes.by_cause[static_cast<int>(c)]) known.push_back({m.slices[i].ts, m.slices[i].end()});
  known = union_of(std::move(known));
  std::vector<std::pair<uint32_t, uint32_t>> out;
  const std::vector<uint32_t> ops = operator_items(g);
  for (size_t i = 0; i + kStretchOps <= ops.size();) {
    const HostItem &a = g.items[ops[i]], &b = g.items[ops[i + kStretchOps - 1]];
    const bool same_step = a.step >= 0 && a.step == b.step;
    const bool waited = std::lower_bound(waits.begin(), waits.end(), a.s) != std::upper_bound(waits.begin(), waits.end(), b.e);
    const bool caused = total_length(clip(known, a.s, b.e)) > 0;
    if (!same_step || waited || caused) {
      ++i;  // slide past the break
      continue;
    }
    out.push_back({ops[i], ops[i + kStretchOps - 1]});
    i += kStretchOps;
  }
  return out;
}

}  // namespace

Transform cpu_binding(const RunModel& m, const Graph& g, const HostCauseSlices& causes) {
  Transform t;
  t.name = "cpu_binding";
  if (run_platform(m) != "ascend") {
    t.why = "CPU binding (CPU_AFFINITY_CONF) is torch_npu's: modelled for Ascend runs only";
    return t;
  }
  const auto st = stretches(m, g, causes);
  if (st.size() < kMinStretches) {
    t.why = fmt::format("{} stretches of {} operators without a host wait: too few for the run's median rate",
                        st.size(), kStretchOps);
    return t;
  }
  std::vector<Ns> per_op;
  for (const auto& [a, b] : st) per_op.push_back((g.items[b].e - g.items[a].s) / kStretchOps);
  const Ns median = stats::nearest_rank_of(std::vector<Ns>(per_op), 0.5, Ns{0});
  const std::vector<uint32_t> ops = operator_items(g);
  size_t slow = 0;
  Ns removed = 0;
  for (size_t k = 0; k < st.size(); ++k) {
    if (static_cast<double>(per_op[k]) <= kSlowStretch * static_cast<double>(median)) continue;
    const Ns a = g.items[st[k].first].s, b = g.items[st[k].second].e, length = b - a;
    const double f = static_cast<double>(length - kStretchOps * median) / static_cast<double>(length);
    // Each operator's share of the stretch (its start to the next one's) runs at the median rate:
    // the same fraction of each comes off its end.
    auto first = std::lower_bound(ops.begin(), ops.end(), st[k].first);
    for (auto o = first; o != ops.end() && *o <= st[k].second; ++o) {
      const Ns from = g.items[*o].s, to = *o == st[k].second ? b : g.items[*(o + 1)].s;
      const Ns cut = static_cast<Ns>(f * static_cast<double>(to - from));
      if (cut > 0) t.edit.removed.push_back({to - cut, to}), removed += cut;
    }
    ++slow;
  }
  if (slow == 0) {
    t.why = fmt::format("no stretch of {} operators takes over {:.0f}x the median {:.2f} us per operator", kStretchOps,
                        kSlowStretch, static_cast<double>(median) / 1e3);
    t.edit = {};
    return t;
  }
  t.applicable = true;
  t.formula = fmt::format(
      "{} of {} stretches of {} operators on the launching thread took over {:.0f}x the run's median {:.2f} us per "
      "operator: run at the median, {:.3f} ms per step less host time (CPU_AFFINITY_CONF)",
      slow, st.size(), kStretchOps, kSlowStretch, static_cast<double>(median) / 1e3, to_ms(per_graph_step(g, static_cast<double>(removed))));
  return t;
}

}  // namespace npu::whatif
