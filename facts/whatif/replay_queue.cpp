// torch_npu's task queue in the replay's graph (docs/whatif.md, "The task queue"): the host as a
// two-stage pipeline. Stage 1 is the enqueuing threads (the Python thread, the autograd thread):
// each operator's host work ends with an Enqueue. Stage 2 is the queue's thread: each Dequeue
// runs what one Enqueue put in the queue and launches its tasks. The async_task_queue arrows join
// each Dequeue to its Enqueue.
#include <algorithm>
#include <unordered_set>

#include "base/stats.h"
#include "facts/whatif/replay_parts.h"

namespace npu::whatif {

std::vector<uint32_t> queue_flows(const RunModel& m) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < m.flows.size(); ++i) {
    const Flow& f = m.flows[i];
    if (f.kind == FlowKind::AsyncTaskQueue && f.start_slice != kNone32 && f.end_slice != kNone32) out.push_back(i);
  }
  return out;
}

bool has_task_queue(const RunModel& m) {
  return std::any_of(m.flows.begin(), m.flows.end(), [](const Flow& f) {
    return f.kind == FlowKind::AsyncTaskQueue && f.start_slice != kNone32 && f.end_slice != kNone32;
  });
}

std::vector<uint32_t> queue_slices(const RunModel& m, const std::vector<uint32_t>& flows) {
  std::vector<uint32_t> out;
  for (uint32_t i : flows) {
    out.push_back(m.flows[i].start_slice);
    out.push_back(m.flows[i].end_slice);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

// The item of a slice (kNone32: not an item).
uint32_t queue_item_of(const SliceItems& v, uint32_t slice) {
  auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(slice, 0u));
  return it != v.end() && it->first == slice ? it->second : kNone32;
}

// Lane 1: the items on a queue thread's tracks (every track of a thread that holds a Dequeue: the
// Python process's and CANN's rows of the same thread id). Each item's predecessor in its lane.
void assign_lanes(Graph& g, const RunModel& m, const std::vector<uint32_t>& flows) {
  std::unordered_set<int64_t> queue_tids;
  for (uint32_t i : flows) queue_tids.insert(m.tracks[m.slices[m.flows[i].end_slice].track].tid);
  g.queue_track.assign(m.tracks.size(), 0);
  for (uint32_t t = 0; t < m.tracks.size(); ++t)
    g.queue_track[t] = m.tracks[t].kind != TrackKind::Device && queue_tids.count(m.tracks[t].tid) ? 1 : 0;
  g.lane.assign(g.items.size(), 0);
  g.lane_prev.assign(g.items.size(), kNone32);
  uint32_t last[2] = {kNone32, kNone32};
  for (uint32_t j = 0; j < g.items.size(); ++j) {
    const HostItem& it = g.items[j];
    const uint8_t lane = it.slice != kNone32 ? g.queue_track[m.slices[it.slice].track] : 0;
    g.lane[j] = lane;
    g.lane_prev[j] = last[lane];
    last[lane] = j;
  }
}

}  // namespace

void link_queue(Graph& g, const RunModel& m, const SliceItems& item_of_slice, const std::vector<uint32_t>& flows,
                Ns t0, Ns t1) {
  if (flows.empty()) return;
  assign_lanes(g, m, flows);
  g.link_of.assign(g.items.size(), kNone32);
  for (uint32_t i : flows) {
    const Flow& f = m.flows[i];
    if (m.slices[f.start_slice].ts < t0 || m.slices[f.start_slice].ts >= t1) continue;
    const uint32_t e = queue_item_of(item_of_slice, f.start_slice), d = queue_item_of(item_of_slice, f.end_slice);
    // A Dequeue after its Enqueue, in the other lane (a queue thread's own Enqueue is no stage).
    if (e == kNone32 || d == kNone32 || e >= d || g.lane[d] != 1 || g.lane[e] != 0 || g.link_of[d] != kNone32)
      continue;
    g.link_of[d] = static_cast<uint32_t>(g.links.size());
    g.links.push_back({d, e, 0, 0, false});
  }
  // What held each Dequeue: its Enqueue (the queue was empty: it started a wake-up after the
  // Enqueue ended) or its thread (busy with earlier work): the nearer of the two ends.
  std::vector<Ns> lags, gaps;
  std::vector<Ns> lane_end(g.items.size(), kNever);  // per lane-1 item: the latest end of the lane's items before it
  Ns latest = kNever;
  for (uint32_t j = 0; j < g.items.size(); ++j) {
    if (g.lane[j] != 1) continue;
    lane_end[j] = latest;
    latest = std::max(latest, g.items[j].e);
  }
  for (QueueLink& q : g.links) {
    const Ns lag = g.items[q.dequeue].s - g.items[q.enqueue].e, before = lane_end[q.dequeue];
    const Ns gap = before == kNever ? kNever : g.items[q.dequeue].s - before;
    q.held_by_enqueue = gap == kNever || (gap >= 0 && lag <= gap);
    q.lag = lag;
    q.gap = gap == kNever ? 0 : gap;
    (q.held_by_enqueue ? lags : gaps).push_back(q.held_by_enqueue ? std::max<Ns>(0, lag) : std::max<Ns>(0, gap));
  }
  g.queue_lag = stats::nearest_rank_of(std::move(lags), 0.5, Ns{0});
  g.queue_gap = stats::nearest_rank_of(std::move(gaps), 0.5, Ns{0});
  // Held by its Enqueue: the idle wait before it is not kept (the typical gap at most); held by its
  // thread: the wake-up after the Enqueue is at most the typical one.
  for (QueueLink& q : g.links) {
    if (q.held_by_enqueue) q.gap = std::min(q.gap, g.queue_gap);
    else q.lag = std::min(q.lag, g.queue_lag);
  }
}

}  // namespace npu::whatif
