// The replay of a graph with an edit (replay.h: simulate).
#include <algorithm>

#include "facts/whatif/replay_parts.h"

namespace npu::whatif {
namespace {

// Host time removed by an edit: merged intervals and the removed time before each one's start.
class Removed {
 public:
  explicit Removed(const Intervals* in) {
    if (!in || in->empty()) return;
    iv_ = union_of(*in);
    before_.resize(iv_.size());
    Ns acc = 0;
    for (size_t i = 0; i < iv_.size(); ++i) before_[i] = acc, acc += iv_[i].length();
  }
  // Removed time in [a, b), a <= b.
  Ns in(Ns a, Ns b) const { return iv_.empty() || b <= a ? 0 : upto(b) - upto(a); }

 private:
  Ns upto(Ns t) const {
    auto it = std::upper_bound(iv_.begin(), iv_.end(), t, [](Ns v, const Interval& x) { return v < x.start; });
    if (it == iv_.begin()) return 0;
    const size_t i = static_cast<size_t>(it - iv_.begin()) - 1;
    return before_[i] + std::min(t, iv_[i].end) - iv_[i].start;
  }
  Intervals iv_;
  std::vector<Ns> before_;
};

// One replay of a graph with an edit: every host item's start and end (S, E) in host order, and
// with each item the device tasks ordered after it (TS, TE; PM: the latest end so far on the
// task's stream), then the steps' windows and, when asked, their parts.
class Simulation {
 public:
  Simulation(const Graph& g, const Edit* edit)
      : g_(g),
        removed_(edit ? &edit->removed : nullptr),
        removed_queue_(edit ? &edit->removed_queue : nullptr),
        x_(scratch_of(g)),
        unblock_(x_.unblock),
        dur_of_(x_.dur_of),
        S_(x_.S),
        E_(x_.E),
        TS_(x_.TS),
        TE_(x_.TE),
        PM_(x_.PM),
        done_(x_.done),
        owned_end_(x_.owned_end),
        delay_(x_.delay) {
    // Each replay starts from the same state as the first (the buffers' memory is reused, their
    // values are not).
    unblock_.assign(edit && !edit->unblock.empty() ? g.items.size() : 0, -1);
    dur_of_.assign(edit && !edit->durations.empty() ? g.tasks.size() : 0, -1);
    relaunch_.assign(edit && !edit->relaunch.empty() ? g.tasks.size() : 0, nullptr);
    S_.assign(g.items.size(), 0);
    E_.assign(g.items.size(), 0);
    TS_.assign(g.tasks.size(), 0);
    TE_.assign(g.tasks.size(), 0);
    PM_.assign(g.tasks.size(), 0);
    done_.assign(g.stream_begin.size() - 1, 0);
    owned_end_.assign(g.steps.size(), kNever);
    delay_.assign(edit && !edit->delays.empty() ? g.items.size() : 0, 0);
    if (!edit) return;
    for (const auto& d : edit->delays) delay_[d.item] += d.ns;
    for (const auto& u : edit->unblock) unblock_[u.item] = u.cost;
    for (const auto& d : edit->durations) dur_of_[d.task] = d.dur;
    for (const auto& r : edit->relaunch) relaunch_[r.task] = &r;
  }

  void run() {
    size_t bo = 0;
    uint32_t pm[2] = {kNone32, kNone32};  // per lane: the processed item with the latest measured end
    for (uint32_t j = 0; j < g_.items.size(); ++j) {
      const HostItem& it = g_.items[j];
      const uint8_t lane = g_.lane_of(j);
      Ns s = g_.lanes() ? lane_item_start(j, pm[lane]) : item_start(j, pm[0]);
      if (!delay_.empty()) s += delay_[j];
      S_[j] = s;
      for (; bo < g_.by_order.size() && g_.tasks[g_.by_order[bo]].order == j; ++bo) place_task(g_.by_order[bo]);
      E_[j] = item_end(j, s);
      if (pm[lane] == kNone32 || it.e > g_.items[pm[lane]].e) pm[lane] = j;
    }
  }

  Replay result(bool split) const {
    Replay r;
    const std::vector<Interval> win = step_windows(r);
    if (split) split_parts(win, r);
    return r;
  }

 private:
  // An item starts as long after its predecessor (or the latest-ending item before it) as it did,
  // less the removed host time between them.
  Ns item_start(uint32_t j, uint32_t pm) const {
    const HostItem& it = g_.items[j];
    if (j == 0) return it.s;
    const HostItem& p = g_.items[j - 1];
    Ns s = it.s >= p.e ? E_[j - 1] + (it.s - p.e) - removed_.in(p.e, it.s)
                       : S_[j - 1] + (it.s - p.s) - removed_.in(p.s, it.s);
    if (pm != kNone32 && pm != j - 1 && g_.items[pm].e <= it.s)
      s = std::max(s, E_[pm] + (it.s - g_.items[pm].e) - removed_.in(g_.items[pm].e, it.s));
    return s;
  }

  // With the task queue's two stages: an item follows the items of its own lane as above; a
  // Dequeue also follows its Enqueue. One its Enqueue held starts the measured wake-up after it
  // ends and at most the typical gap after the queue thread's previous work; one its thread held
  // keeps its measured gap and starts at most the typical wake-up after its Enqueue.
  Ns lane_item_start(uint32_t j, uint32_t pm) const {
    const HostItem& it = g_.items[j];
    const Removed& rm = g_.lane[j] ? removed_queue_ : removed_;
    const uint32_t p = g_.lane_prev[j];
    const QueueLink* q = g_.link_of[j] != kNone32 ? &g_.links[g_.link_of[j]] : nullptr;
    if (q && q->held_by_enqueue) {
      Ns s = E_[q->enqueue] + q->lag;
      if (pm != kNone32) s = std::max(s, E_[pm] + q->gap);
      return s;
    }
    Ns s = it.s;
    if (p != kNone32) {
      const HostItem& pi = g_.items[p];
      s = it.s >= pi.e ? E_[p] + (it.s - pi.e) - rm.in(pi.e, it.s) : S_[p] + (it.s - pi.s) - rm.in(pi.s, it.s);
    }
    if (pm != kNone32 && pm != p && g_.items[pm].e <= it.s)
      s = std::max(s, E_[pm] + (it.s - g_.items[pm].e) - rm.in(g_.items[pm].e, it.s));
    if (q) s = std::max(s, E_[q->enqueue] + q->lag);
    return s;
  }

  void place_task(uint32_t k) {
    const DeviceTask& d = g_.tasks[k];
    uint32_t L = d.launcher;
    Ns lambda = d.lambda, gap = d.gap;
    // A graph's task follows its predecessor at the graph's gap, or as it did when they overlap
    // (tracks that hold an operator's span and its tasks, or several queues).
    if (!relaunch_.empty() && relaunch_[k])
      L = relaunch_[k]->item, lambda = g_.launch_latency, gap = std::min(gap, relaunch_[k]->gap);
    Ns st = S_[L] + lambda;
    const bool first = k == g_.stream_begin[d.stream];
    if (!first) st = std::max(st, TE_[k - 1] + gap);
    if (d.dep != kNone32) st = std::max(st, TE_[d.dep] + d.dep_gap);
    // The first task after an iteration's hole waited on work the trace does not hold: no edit
    // of what the trace holds makes it start earlier.
    if (d.step >= 0 && g_.steps[static_cast<size_t>(d.step)].start_task == k) st = std::max(st, d.s);
    TS_[k] = st;
    TE_[k] = st + (!dur_of_.empty() && dur_of_[k] >= 0 ? dur_of_[k] : d.dur);
    PM_[k] = first ? TE_[k] : std::max(PM_[k - 1], TE_[k]);
    ++done_[d.stream];
    if (d.step >= 0)
      owned_end_[static_cast<size_t>(d.step)] = std::max(owned_end_[static_cast<size_t>(d.step)], TE_[k]);
  }

  // Its own time, or until what it waits for ends (a blocking copy its task, a sync the work
  // launched before it); an unblocked item no longer waits.
  Ns item_end(uint32_t j, Ns s) const {
    const HostItem& it = g_.items[j];
    const Ns own = std::max<Ns>(0, (it.e - it.s) - (g_.lane_of(j) ? removed_queue_ : removed_).in(it.s, it.e));
    if (!unblock_.empty() && unblock_[j] >= 0) return s + std::min(own, unblock_[j]);
    if (it.kind != ItemKind::BlockingCopy && it.kind != ItemKind::Sync) return s + own;
    Ns w = kNever;
    if (it.kind == ItemKind::BlockingCopy) {
      w = TE_[it.own_task];
    } else {
      for (size_t k = 0; k < done_.size(); ++k)
        if (uint32_t a = awaited(g_, g_.prefix_end, k, done_[k], it.e); a != kNone32) w = std::max(w, PM_[a]);
    }
    return w == kNever ? s + own : std::max(s + std::min(it.cost, own), w + it.tail);
  }

  std::vector<Interval> step_windows(Replay& r) const {
    r.step_ns.resize(g_.steps.size());
    if (g_.serving) r.turn_ns.assign(g_.steps.size(), 0);
    std::vector<Interval> win(g_.steps.size());
    Ns prev = kNever;
    for (uint32_t w : g_.warmup_tasks) prev = std::max(prev, TE_[w]);
    for (size_t i = 0; i < g_.steps.size(); ++i) {
      const StepRef& ref = g_.steps[i];
      const HostItem &hs = g_.items[ref.start_mark], &he = g_.items[ref.end_mark];
      Ns a = 0, b = 0;
      if (g_.chained) {
        // An iteration after a hole starts at its first task after it (the hole is not the step's).
        a = std::max(prev, ref.start_task != kNone32 ? TS_[ref.start_task] : S_[ref.start_mark]);
        b = std::max(S_[ref.end_mark], owned_end_[i]);
      } else {
        // The window keeps its place after the host step's start: work that starts earlier does
        // not lengthen the step; the step ends when its last task or its host span does.
        a = S_[ref.start_mark] + (ref.measured_start - hs.s);
        b = ref.end_task != kNone32 ? std::max(TE_[ref.end_task], S_[ref.end_mark])
                                    : S_[ref.end_mark] + (ref.measured_end - he.s);
        if (owned_end_[i] != kNever) b = std::max(b, owned_end_[i] - ref.overhang);
      }
      b = std::max(a, b);
      if (g_.serving && i > 0) {
        const Ns turn = turn_between(prev, a, ref.hole);
        r.turn_ns[i - 1] = turn;
        r.turns_ns += turn;
      }
      prev = b;
      win[i] = {a, b};
      r.step_ns[i] = b - a;
      r.total_ns += b - a;
    }
    return win;
  }

  void split_parts(const std::vector<Interval>& win, Replay& r) const {
    Intervals by[3];
    for (size_t k = 0; k < g_.tasks.size(); ++k) {
      const TaskClass c = g_.tasks[k].cls;
      by[c == TaskClass::Compute ? 0 : c == TaskClass::Communication ? 1 : 2].push_back({TS_[k], TE_[k]});
    }
    for (auto& v : by) v = union_of(std::move(v));
    // Computing first, then communication not under computing, then copies under neither: the
    // breakdown's order (docs/overlap.md).
    const Intervals comm = difference(by[1], by[0]);
    const Intervals copies = difference(difference(by[2], by[0]), comm);
    for (std::vector<Ns>* v : {&r.computing_ns, &r.communication_ns, &r.copies_ns}) v->resize(g_.steps.size());
    for (size_t i = 0; i < g_.steps.size(); ++i) {
      r.computing_ns[i] = total_length(clip(by[0], win[i].start, win[i].end));
      r.communication_ns[i] = total_length(clip(comm, win[i].start, win[i].end));
      r.copies_ns[i] = g_.chained ? total_length(clip(copies, win[i].start, win[i].end)) : 0;
    }
  }

  static SimScratch& scratch_of(const Graph& g) {
    if (!g.scratch) g.scratch = std::make_unique<SimScratch>();
    return *g.scratch;
  }

  const Graph& g_;
  const Removed removed_, removed_queue_;
  SimScratch& x_;
  std::vector<Ns>&unblock_, &dur_of_;
  std::vector<const Edit::Relaunch*> relaunch_;
  std::vector<Ns>&S_, &E_, &TS_, &TE_, &PM_;
  std::vector<uint32_t>& done_;
  std::vector<Ns>& owned_end_;
  std::vector<Ns>& delay_;
};

}  // namespace

Replay simulate(const Graph& g, const Edit* edit, bool split) {
  Simulation sim(g, edit);
  sim.run();
  return sim.result(split);
}

}  // namespace npu::whatif
