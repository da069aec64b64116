#include "facts/whatif/replay.h"

#include <algorithm>
#include <limits>

#include "base/stats.h"
#include "facts/whatif/replay_parts.h"

namespace npu::whatif {
namespace {

constexpr Ns kStreamGated = 2000;     // a task starting within 2 us of its predecessor's end waited for it
constexpr Ns kDefaultLatency = 5000;  // launch -> start when the trace has no launch-gated task
constexpr Ns kMaxLatency = 50'000;
// A task starting later than this after its launch's typical latency, and at most kQueuedGap
// after its stream predecessor, waited in the queue, not for its launch.
constexpr Ns kLaunchSlack = 100'000;
constexpr Ns kQueuedGap = 50'000;
constexpr Ns kDefaultStreamGap = 1000;  // kernel after kernel on an eager queue (H200: 1.1-1.5 us)

// The task of another stream than `stream` that ended last within kStreamGated before `ts`, or
// kNone32. `by_end`: task indexes sorted by end.
uint32_t task_ending_before(const Graph& g, const std::vector<uint32_t>& by_end, Ns ts, uint32_t stream) {
  auto it = std::upper_bound(by_end.begin(), by_end.end(), ts, [&](Ns v, uint32_t t) { return v < g.tasks[t].end(); });
  for (int look = 0; look < 8 && it != by_end.begin(); ++look) {
    --it;
    const DeviceTask& t = g.tasks[*it];
    if (t.end() < ts - kStreamGated) break;
    if (t.stream != stream) return *it;
  }
  return kNone32;
}

std::vector<Ns> prefix_max_end(const Graph& g) {
  std::vector<Ns> out(g.tasks.size());
  for (size_t k = 0; k + 1 < g.stream_begin.size(); ++k) {
    Ns m = kNever;
    for (uint32_t i = g.stream_begin[k]; i < g.stream_begin[k + 1]; ++i) out[i] = m = std::max(m, g.tasks[i].end());
  }
  return out;
}

}  // namespace

void Edit::add(const Edit& o) {
  removed.insert(removed.end(), o.removed.begin(), o.removed.end());
  removed_queue.insert(removed_queue.end(), o.removed_queue.begin(), o.removed_queue.end());
  delays.insert(delays.end(), o.delays.begin(), o.delays.end());
  unblock.insert(unblock.end(), o.unblock.begin(), o.unblock.end());
  durations.insert(durations.end(), o.durations.begin(), o.durations.end());
  relaunch.insert(relaunch.end(), o.relaunch.begin(), o.relaunch.end());
}

namespace {

// The steps a graph holds (StepBlock) and the time they span: work outside [t0, t1) is left out.
struct Scope {
  size_t first = 0, count = 0;
  Ns t0 = std::numeric_limits<Ns>::min(), t1 = std::numeric_limits<Ns>::max();
  bool holds(Ns t) const { return t >= t0 && t < t1; }
  // The graph's index of the frame's step `s` (-1: none, or outside the block).
  int32_t step(int32_t s) const {
    return s < 0 || static_cast<size_t>(s) < first || static_cast<size_t>(s) >= first + count
               ? -1
               : static_cast<int32_t>(static_cast<size_t>(s) - first);
  }
};

Scope scope_of(const RunFrame& f, bool chained, StepBlock b) {
  Scope sc;
  const size_t n = f.steps().size();
  sc.count = n;
  if (chained || b.first >= n || b.count >= n - b.first) return sc;  // chained steps: never a block
  sc.first = b.first;
  sc.count = b.count;
  const size_t last = b.first + b.count - 1;
  const std::vector<Step>& st = f.steps();
  const std::vector<StepWindow>& w = f.windows();
  sc.t0 = std::min(st[b.first].start, w[b.first].start);
  sc.t1 = std::max(st[last].end, w[last].end);
  return sc;
}

// Device tasks of the run's device, per stream in measured order, with the step that owns each.
void add_device_tasks(Graph& g, const RunFrame& f, const Scope& sc) {
  const RunModel& m = f.model();
  const std::vector<LaunchedOp>& launched = f.launched();
  // `launched` and the tasks are both in slice order (tracks in order, each track by time): the
  // lookups below are binary searches, not hash maps (a big run holds millions of tasks).
  const StepWindowIndex windex(f.windows());
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const Track& tr = m.tracks[t];
    if (tr.kind != TrackKind::Device || tr.device != m.meta.device) continue;
    const auto stream = static_cast<uint32_t>(g.stream_begin.size());
    g.stream_begin.push_back(static_cast<uint32_t>(g.tasks.size()));
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      if (!sc.holds(s.ts)) continue;
      const TaskClass c = classify_device_task(m, s);
      if (c == TaskClass::Marker) continue;
      DeviceTask d;
      d.s = s.ts;
      d.dur = s.dur;
      d.slice = i;
      d.stream = stream;
      d.cls = c;
      if (g.chained) {
        auto o = std::lower_bound(launched.begin(), launched.end(), i,
                                  [](const LaunchedOp& x, uint32_t v) { return x.slice < v; });
        d.step = sc.step(o != launched.end() && o->slice == i ? o->step : -1);
      } else {
        d.step = sc.step(windex.at(s.ts));
      }
      g.tasks.push_back(d);
    }
  }
  g.stream_begin.push_back(static_cast<uint32_t>(g.tasks.size()));
}

// The host call that launched each task (kNone32: not known): the frame's launch pairing.
std::vector<uint32_t> launch_slices(const Graph& g, const RunFrame& f) {
  std::vector<uint32_t> launch_slice(g.tasks.size(), kNone32);
  for (size_t k = 0; k < g.tasks.size(); ++k) launch_slice[k] = f.launch_of(g.tasks[k].slice);
  return launch_slice;
}

// Host items: launches, blocking calls and the step spans' ends, in host order, and each step's
// marks and measured window. Returns the item of each launching or blocking host slice.
SliceItems add_host_items(Graph& g, const RunFrame& f, const Scope& sc, const std::vector<uint32_t>& launch_slice,
                          std::vector<uint32_t> syncs, std::vector<uint32_t> queue) {
  const RunModel& m = f.model();
  auto outside = [&](uint32_t s) { return !sc.holds(m.slices[s].ts); };
  syncs.erase(std::remove_if(syncs.begin(), syncs.end(), outside), syncs.end());
  queue.erase(std::remove_if(queue.begin(), queue.end(), outside), queue.end());
  const std::vector<Step>& steps = f.steps();
  const std::vector<StepWindow>& windows = f.windows();
  std::vector<uint32_t> host_slices;
  for (uint32_t s : launch_slice)
    if (s != kNone32) host_slices.push_back(s);
  std::vector<uint32_t> launch_slice_sorted = host_slices;
  std::sort(launch_slice_sorted.begin(), launch_slice_sorted.end());
  std::vector<uint32_t> sync_slices = syncs;
  std::sort(sync_slices.begin(), sync_slices.end());
  host_slices.insert(host_slices.end(), syncs.begin(), syncs.end());
  std::sort(host_slices.begin(), host_slices.end());
  const size_t launching = host_slices.size();
  host_slices.insert(host_slices.end(), queue.begin(), queue.end());  // sorted: the queue's Enqueue and Dequeue slices
  std::inplace_merge(host_slices.begin(), host_slices.begin() + static_cast<std::ptrdiff_t>(launching),
                     host_slices.end());
  host_slices.erase(std::unique(host_slices.begin(), host_slices.end()), host_slices.end());
  for (uint32_t s : host_slices) {
    HostItem it;
    it.s = m.slices[s].ts;
    it.e = m.slices[s].end();
    it.slice = s;
    it.kind = std::binary_search(sync_slices.begin(), sync_slices.end(), s) ? ItemKind::Sync : ItemKind::Launch;
    if (it.kind == ItemKind::Launch && std::binary_search(queue.begin(), queue.end(), s) &&
        !std::binary_search(launch_slice_sorted.begin(), launch_slice_sorted.end(), s))
      it.kind = ItemKind::Queue;
    it.step = sc.step(f.step_of_launch(it.s));
    g.items.push_back(it);
  }
  for (size_t i = sc.first; i < sc.first + sc.count; ++i) {
    // A step's marks are its host span's ends; the pseudo-step has no host span of its own (its
    // span is everything seen), so its marks are its device window's, which the replay measures.
    const Ns mark[2] = {f.pseudo() ? windows[i].start : steps[i].start, f.pseudo() ? windows[i].end : steps[i].end};
    for (const bool end : {false, true}) {
      HostItem it;
      it.s = it.e = mark[end ? 1 : 0];
      it.kind = ItemKind::Mark;
      it.step = static_cast<int32_t>(i - sc.first);
      it.end_mark = end;
      g.items.push_back(it);
    }
  }
  std::stable_sort(g.items.begin(), g.items.end(),
                   [](const HostItem& a, const HostItem& b) { return a.s != b.s ? a.s < b.s : a.e > b.e; });
  SliceItems item_of_slice;
  item_of_slice.reserve(host_slices.size());
  g.steps.assign(sc.count, StepRef{});
  for (uint32_t j = 0; j < g.items.size(); ++j) {
    const HostItem& it = g.items[j];
    if (it.kind != ItemKind::Mark) item_of_slice.push_back({it.slice, j});
    else
      (it.end_mark ? g.steps[static_cast<size_t>(it.step)].end_mark
                   : g.steps[static_cast<size_t>(it.step)].start_mark) = j;
  }
  std::sort(item_of_slice.begin(), item_of_slice.end());
  for (size_t i = 0; i < sc.count; ++i) {
    const StepWindow& w = windows[sc.first + i];
    g.steps[i].measured_start = w.start;
    g.steps[i].measured_end = w.end;
    g.steps[i].hole_end_slice = w.hole_end_slice;
    g.steps[i].hole = w.hole;
  }
  return item_of_slice;
}

// Each task's launcher (or the host item running when it started), its order and its gates; the
// typical gap between tasks of a stream and the typical launch latency.
void assign_launchers(Graph& g, const std::vector<uint32_t>& launch_slice, const SliceItems& item_of_slice) {
  auto item_of = [&](uint32_t slice) {
    return std::lower_bound(item_of_slice.begin(), item_of_slice.end(), std::make_pair(slice, 0u))->second;
  };
  std::vector<Ns> item_starts(g.items.size());
  for (size_t j = 0; j < g.items.size(); ++j) item_starts[j] = g.items[j].s;
  std::vector<Ns> lat, gaps;
  for (size_t k = 0; k + 1 < g.stream_begin.size(); ++k) {
    uint32_t prev_order = 0;
    for (uint32_t i = g.stream_begin[k]; i < g.stream_begin[k + 1]; ++i) {
      DeviceTask& d = g.tasks[i];
      uint32_t L = kNone32;
      if (launch_slice[i] != kNone32) {
        L = item_of(launch_slice[i]);
        d.launched = true;
        ++g.joined;
        ++g.items[L].tasks;
      } else {
        auto it = std::upper_bound(item_starts.begin(), item_starts.end(), d.s);
        L = it == item_starts.begin() ? 0 : static_cast<uint32_t>(it - item_starts.begin()) - 1;
      }
      d.launcher = L;
      d.order = std::max(L, prev_order);
      prev_order = d.order;
      const bool first = i == g.stream_begin[k];
      const Ns pred_end = first ? kNever : g.tasks[i - 1].end();
      if (!first && d.s <= pred_end + kStreamGated) {
        gaps.push_back(std::max<Ns>(0, d.s - pred_end));
      } else if (d.launched) {
        lat.push_back(d.s - g.items[L].s);
      }
    }
  }
  g.stream_gap = stats::nearest_rank_of(std::move(gaps), 0.5, kDefaultStreamGap);
  // The launch latency of a task nothing else held up: the lower quartile of the launch-gated
  // lags (a GPU-bound trace has few such tasks, some held by another stream's work), at most 50 us.
  g.launch_latency = lat.empty() ? kDefaultLatency
                                 : std::clamp<Ns>(stats::nearest_rank_of(std::move(lat), 0.25, Ns{0}), 0, kMaxLatency);
}

// What held each task: its stream predecessor, its launch, or another stream's task that had
// just ended (its dependency).
void find_gates(Graph& g) {
  // Every task by its end: which one another stream's task may have waited for.
  std::vector<uint32_t> by_end(g.tasks.size());
  for (uint32_t i = 0; i < by_end.size(); ++i) by_end[i] = i;
  std::sort(by_end.begin(), by_end.end(), [&](uint32_t a, uint32_t b) { return g.tasks[a].end() < g.tasks[b].end(); });
  for (size_t k = 0; k + 1 < g.stream_begin.size(); ++k) {
    for (uint32_t i = g.stream_begin[k]; i < g.stream_begin[k + 1]; ++i) {
      DeviceTask& d = g.tasks[i];
      const bool first = i == g.stream_begin[k];
      const Ns pred_end = first ? kNever : g.tasks[i - 1].end();
      const Ns since_launch = d.s - g.items[d.launcher].s;
      // Held by its stream: it started right after its predecessor, or soon after it when it
      // had been launched long before (a queued kernel the GPU took a few microseconds to start).
      const bool held = !first && (d.s <= pred_end + kStreamGated || (d.launched && d.s <= pred_end + kQueuedGap &&
                                                                      since_launch > g.launch_latency + kLaunchSlack));
      if (held) {
        d.gap = d.s - pred_end;
        d.lambda = d.launched ? std::min(since_launch, g.launch_latency) : since_launch;
      } else {
        d.gap = first ? 0 : std::min(d.s - pred_end, g.stream_gap);
        d.lambda = since_launch;
        // Launched long before it started: it waited for another stream's task that had just ended.
        if (d.launched && since_launch > g.launch_latency + kLaunchSlack) {
          const uint32_t dep = task_ending_before(g, by_end, d.s, d.stream);
          if (dep != kNone32) {
            d.dep = dep;
            d.dep_gap = d.s - g.tasks[dep].end();
            d.lambda = std::min(since_launch, g.launch_latency);
          }
        }
      }
    }
  }
}

// Orders once the dependencies are known, in start order (a task's predecessor and the task it
// waited for started before it): max(launcher, stream predecessor's order, dependency's order).
void order_tasks(Graph& g) {
  std::vector<uint32_t> by_start(g.tasks.size());
  for (uint32_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](uint32_t a, uint32_t b) { return g.tasks[a].s < g.tasks[b].s; });
  for (uint32_t i : by_start) {
    DeviceTask& d = g.tasks[i];
    if (i != g.stream_begin[d.stream]) d.order = std::max(d.order, g.tasks[i - 1].order);
    if (d.dep != kNone32) d.order = std::max(d.order, g.tasks[d.dep].order);
  }
  g.by_order.resize(g.tasks.size());
  for (uint32_t i = 0; i < g.by_order.size(); ++i) g.by_order[i] = i;
  std::stable_sort(g.by_order.begin(), g.by_order.end(), [&](uint32_t a, uint32_t b) {
    const DeviceTask &x = g.tasks[a], &y = g.tasks[b];
    return x.order != y.order ? x.order < y.order : x.s < y.s;
  });
}

// Blocking calls: what each waited for, its tail after that work ended and its own cost. A
// waiting call (HostCause::Sync, facts/host_causes.h decides) that launched a copy waited for it.
void cost_blocking_calls(Graph& g, const RunModel& m) {
  for (uint32_t i = 0; i < g.tasks.size(); ++i) {
    const DeviceTask& d = g.tasks[i];
    HostItem& it = g.items[d.launcher];
    if (!d.launched || it.kind == ItemKind::Launch || d.cls != TaskClass::Other || d.order != d.launcher) continue;
    if (m.str(m.slices[d.slice].name).find("Memcpy") == std::string_view::npos) continue;
    if (it.own_task == kNone32 || d.end() > g.tasks[it.own_task].end()) it.own_task = i;
    it.kind = ItemKind::BlockingCopy;
  }
  std::vector<Ns> durs;
  for (const HostItem& it : g.items)
    if (it.kind == ItemKind::Launch && it.tasks > 0) durs.push_back(it.e - it.s);
  g.launch_cost = stats::nearest_rank_of(std::move(durs), 0.5, Ns{0});
  g.prefix_end = prefix_max_end(g);
  const std::vector<Ns>& prefix_end = g.prefix_end;
  std::vector<uint32_t> done(g.stream_begin.size() - 1, 0);
  size_t bo = 0;
  for (uint32_t j = 0; j < g.items.size(); ++j) {
    while (bo < g.by_order.size() && g.tasks[g.by_order[bo]].order == j) ++done[g.tasks[g.by_order[bo++]].stream];
    HostItem& it = g.items[j];
    const Ns d = it.e - it.s;
    Ns w = kNever;
    if (it.kind == ItemKind::BlockingCopy) {
      w = g.tasks[it.own_task].end();
    } else if (it.kind == ItemKind::Sync) {
      for (size_t k = 0; k < done.size(); ++k)
        if (uint32_t a = awaited(g, prefix_end, k, done[k], it.e); a != kNone32) w = std::max(w, prefix_end[a]);
    } else {
      continue;
    }
    if (w == kNever) {
      it.kind = ItemKind::Launch;  // nothing to wait for
    } else if (w > it.s) {
      it.tail = std::max(-d, it.e - w);
      it.cost = std::min(d, g.launch_cost);
    } else {
      it.tail = std::clamp<Ns>(it.e - w, 0, d);
      it.cost = d;
    }
  }
}

// Chained steps (GPU): the tasks before the first step's own, run as warm-up. Else each step's
// last task and how far its own work overhangs its measured end.
void attribute_step_ends(Graph& g) {
  if (g.chained) {
    Ns first_own = std::numeric_limits<Ns>::max();
    for (uint32_t i = 0; i < g.tasks.size(); ++i) {
      const DeviceTask& d = g.tasks[i];
      if (d.step == 0) first_own = std::min(first_own, d.s);
      if (d.step >= 0 && d.slice == g.steps[static_cast<size_t>(d.step)].hole_end_slice)
        g.steps[static_cast<size_t>(d.step)].start_task = i;
    }
    for (uint32_t i = 0; i < g.tasks.size(); ++i)
      if (g.tasks[i].step < 0 && g.tasks[i].end() < first_own) g.warmup_tasks.push_back(i);
  } else {
    std::vector<Ns> owned_end(g.steps.size(), kNever);
    for (uint32_t i = 0; i < g.tasks.size(); ++i) {
      const DeviceTask& d = g.tasks[i];
      if (d.step < 0) continue;
      StepRef& r = g.steps[static_cast<size_t>(d.step)];
      if (d.end() == r.measured_end) r.end_task = i;
      owned_end[static_cast<size_t>(d.step)] = std::max(owned_end[static_cast<size_t>(d.step)], d.end());
    }
    for (size_t i = 0; i < g.steps.size(); ++i)
      g.steps[i].overhang = std::max<Ns>(0, owned_end[i] - g.steps[i].measured_end);
  }
}

}  // namespace

Graph build_graph(const RunFrame& f, const std::vector<uint32_t>& syncs, bool two_stage, StepBlock block) {
  Graph g;
  g.chained = f.launched_work() && !f.pseudo();
  g.iterations = f.model().meta.engine_iteration_steps;
  g.serving = g.chained && g.iterations;
  if (f.steps().empty()) {
    g.why_not = "no steps";
    return g;
  }
  // Each part reads what the ones before it found: the tasks, who launched them, the host items,
  // each task's launcher, what held it, the order of everything, what blocking calls waited for.
  const Scope sc = scope_of(f, g.chained, block);
  g.first_step = sc.first;
  g.span_start = sc.t0;
  g.span_end = sc.t1;
  add_device_tasks(g, f, sc);
  if (g.tasks.empty()) {
    g.why_not = "no device tasks";
    return g;
  }
  const std::vector<uint32_t> launch_slice = launch_slices(g, f);
  const std::vector<uint32_t> qflows = two_stage ? queue_flows(f.model()) : std::vector<uint32_t>{};
  const std::vector<uint32_t> queue = queue_slices(f.model(), qflows);
  const SliceItems item_of_slice = add_host_items(g, f, sc, launch_slice, syncs, queue);
  link_queue(g, f.model(), item_of_slice, qflows, sc.t0, sc.t1);
  assign_launchers(g, launch_slice, item_of_slice);
  find_gates(g);
  order_tasks(g);
  cost_blocking_calls(g, f.model());
  attribute_step_ends(g);
  if (g.joined == 0)
    g.why_not = "none of the " + std::to_string(g.tasks.size()) +
                " device tasks is joined to the host call that launched it (no flows or correlation ids)";
  return g;
}
uint32_t awaited(const Graph& g, const std::vector<Ns>& prefix_end, size_t k, uint32_t done, Ns until) {
  const uint32_t b = g.stream_begin[k], e = b + done;
  auto it = std::upper_bound(prefix_end.begin() + b, prefix_end.begin() + e, until);
  if (it == prefix_end.begin() + b) return kNone32;
  return static_cast<uint32_t>(it - prefix_end.begin()) - 1;
}

}  // namespace npu::whatif
