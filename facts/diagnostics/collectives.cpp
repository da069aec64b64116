// "collectives": why each communication operator of this rank takes its time (docs/facts-collectives.md).
// The profiler splits an operator's elapsed time into transit (data moving), wait (for the peer;
// synchronisation is the part of it spent before the first transfer) and idle (nothing moving):
// communication.json "Communication Time Info" (read into facts "communication.ops"). Beside it,
// from the timeline: the part of the operator no computation hides (exposed), the longest
// Notify Wait on an HCCL plane inside it (what a stalled collective waits on), and a host call
// that blocked on the device at the same time (aclrtSynchronizeStream*, and the Python operator
// that made it, such as aten::item).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "facts/communication_records.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/frame/step_windows.h"

namespace npu {
namespace {

using nlohmann::json;

constexpr size_t kMaxOps = 20;  // the longest operators are listed; the totals cover all of them

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_host_sync(std::string_view n) {
  return starts_with(n, "AscendCL@aclrtSynchronizeStream") || starts_with(n, "AscendCL@aclrtSynchronizeDevice") ||
         starts_with(n, "AscendCL@aclrtSynchronizeEvent");
}

bool is_notify_wait(std::string_view n) { return n == "Notify_Wait" || n == "Notify Wait"; }

struct HostSync {
  uint32_t slice;
  int64_t tid;
};

// What the operator's time went to, by the profiler's split: the largest of transit, wait and
// idle when it is at least half of the elapsed time, else "mixed".
const char* cause_of(Ns elapse, Ns transit, Ns wait, Ns idle) {
  if (elapse <= 0) return "unknown";
  Ns top = std::max({transit, wait, idle});
  if (2 * top < elapse) return "mixed";
  return top == transit ? "transit" : top == wait ? "wait" : "idle";
}

// The profiler's split per operator name (communication.json), the first record of each name.
using SplitIndex = std::map<std::string, const CommOp*>;  // ordered: the output must not depend on hashing

// What the timeline says around the operators: host calls that block on the device and the
// Notify Waits on HCCL plane threads, both in start order.
struct TimelineMarks {
  std::vector<HostSync> syncs;
  std::vector<uint32_t> notify_waits;  // slices on HCCL plane threads
  Ns longest_sync = 0;
};

TimelineMarks timeline_marks(const RunModel& m) {
  TimelineMarks k;
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const Track& tr = m.tracks[t];
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      std::string_view n = m.str(m.slices[i].name);
      if (tr.kind == TrackKind::HostCANN && is_host_sync(n)) k.syncs.push_back({i, tr.tid});
      else if (tr.kind == TrackKind::Communication && is_notify_wait(n)) k.notify_waits.push_back(i);
    }
  }
  std::sort(k.notify_waits.begin(), k.notify_waits.end(),
            [&](uint32_t a, uint32_t b) { return m.slices[a].ts < m.slices[b].ts; });
  std::sort(k.syncs.begin(), k.syncs.end(),
            [&](const HostSync& a, const HostSync& b) { return m.slices[a.slice].ts < m.slices[b.slice].ts; });
  for (const auto& h : k.syncs) k.longest_sync = std::max(k.longest_sync, m.slices[h.slice].dur);
  return k;
}

// The Python operator that made a host sync: the shortest aten:: slice on its thread around it.
// A track's slices are in start order: look back from the sync over a bounded stretch.
const Slice* python_caller(const RunModel& m, const Slice& s, int64_t tid) {
  constexpr int kLookBack = 512;
  const Slice* best = nullptr;
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::HostPython || m.tracks[t].tid != tid) continue;
    const auto r = m.track_slices[t];
    auto first = m.slices.begin() + r.begin, last = m.slices.begin() + r.end;
    auto it = std::upper_bound(first, last, s.ts, [](Ns v, const Slice& x) { return v < x.ts; });
    for (int k = 0; k < kLookBack && it != first; ++k) {
      const Slice& p = *--it;
      if (p.end() >= s.end() && starts_with(m.str(p.name), "aten::") && (!best || p.dur < best->dur)) best = &p;
    }
  }
  return best;
}

// Byte alignment (msprof-analyze's rule): SDMA transfers over a link (not ON_CHIP) of more
// than 512 B should move a multiple of 512 B; an operator with any other is not aligned.
struct Align {
  uint64_t checked = 0, unaligned = 0;
  Ns unaligned_ns = 0;
  int64_t example_size = -1;
  uint64_t example_loc = 0;
};

std::map<uint32_t, Align> byte_alignment(const RunModel& m, const std::vector<uint32_t>& comm_slices) {
  std::map<uint32_t, Align> align;  // by operator slice
  std::vector<uint32_t> by_start = comm_slices;
  std::sort(by_start.begin(), by_start.end(), [&](uint32_t a, uint32_t b) { return m.slices[a].ts < m.slices[b].ts; });
  const StrId sdma = m.strings.find("SDMA"), on_chip = m.strings.find("ON_CHIP");
  for (const CommTaskArgs& a : m.comm_task_args) {
    if (a.transport != sdma || a.link == on_chip || a.size_bytes <= 512) continue;
    const Slice& t = m.slices[a.slice];
    auto it =
        std::upper_bound(by_start.begin(), by_start.end(), t.ts, [&](Ns v, uint32_t k) { return v < m.slices[k].ts; });
    if (it == by_start.begin() || t.ts >= m.slices[*(it - 1)].end()) continue;
    Align& al = align[*(it - 1)];
    ++al.checked;
    if (a.size_bytes % 512 == 0) continue;
    ++al.unaligned;
    al.unaligned_ns += t.dur;
    if (al.example_size < 0) al.example_size = a.size_bytes, al.example_loc = t.loc;
  }
  return align;
}

// The sums over every operator (the records cover only the longest).
struct Totals {
  Ns elapse = 0, transit = 0, wait = 0, sync = 0, idle = 0, exposed = 0;
  bool have_split = false;
  void add_split(const CommOp& r) {
    transit += r.transit_ns, wait += r.wait_ns, sync += r.sync_ns, idle += r.idle_ns;
    have_split = true;
  }
};

struct OpTime {
  uint32_t slice;
  Ns exposed;
};

// Every operator of the timeline with its exposed part (the not-overlapped intervals inside its
// span), adding to the totals. The split is looked up once per distinct name (a long capture
// repeats each name once per step: 345,600 operators of 600 names on a generated rank).
std::vector<OpTime> timeline_op_times(const RunModel& m, const DeviceTimeline& d, const SplitIndex& split,
                                      Totals& total) {
  const Intervals exposed_all = difference(d.comm, d.compute);
  std::vector<OpTime> op_times;
  std::unordered_map<StrId, const CommOp*> split_of_name;
  for (uint32_t k : d.comm_slices) {
    const Slice& s = m.slices[k];
    Ns exposed = 0;
    auto it = std::upper_bound(exposed_all.begin(), exposed_all.end(), s.ts,
                               [](Ns v, const Interval& x) { return v < x.end; });
    for (; it != exposed_all.end() && it->start < s.end(); ++it)
      exposed += std::min(it->end, s.end()) - std::max(it->start, s.ts);
    op_times.push_back({k, exposed});
    total.elapse += s.dur;
    total.exposed += exposed;
    auto [cached, fresh] = split_of_name.try_emplace(s.name, nullptr);
    if (fresh)
      if (auto sp = split.find(std::string(m.str(s.name))); sp != split.end()) cached->second = sp->second;
    if (cached->second) total.add_split(*cached->second);
  }
  return op_times;
}

// The JSON record of one timeline operator: its split, the longest Notify Wait inside it, a
// host call blocked at the same time and its byte alignment.
class OpRecords {
 public:
  OpRecords(const DiagnosticContext& ctx, const SplitIndex& split, const TimelineMarks& marks,
            const std::map<uint32_t, Align>& align)
      : m_(ctx.model), split_(split), marks_(marks), align_(align), index_(ctx.frame.scheduled_windows()) {}

  json record(uint32_t k, Ns exposed) const {
    const Slice& s = m_.slices[k];
    const std::string name(m_.str(s.name));
    json o;
    o["name"] = name;
    o["group"] = std::string(m_.str(m_.tracks[s.track].thread_name));
    if (const auto* g = find_parallel_group(m_.meta.parallel_groups, o["group"].get<std::string>()))
      o["group_name"] = g->name;
    int si = m_.steps.empty() ? -1 : index_.at(s.ts);
    o["step"] = si >= 0 ? json(m_.steps[static_cast<size_t>(si)].id) : json(nullptr);
    o["start_ns"] = s.ts;
    o["elapse_ns"] = s.dur;
    o["exposed_ns"] = exposed;
    o["evidence"] = json::array({evidence_event(m_, s.loc, name)});
    if (auto it = split_.find(name); it != split_.end()) {
      const CommOp& r = *it->second;
      o["transit_ns"] = r.transit_ns, o["wait_ns"] = r.wait_ns, o["sync_ns"] = r.sync_ns, o["idle_ns"] = r.idle_ns;
      o["cause"] = cause_of(r.elapse_ns, r.transit_ns, r.wait_ns, r.idle_ns);
      for (const auto& e : record_evidence_json(r.source)) o["evidence"].push_back(e);
    } else {
      o["transit_ns"] = o["wait_ns"] = o["sync_ns"] = o["idle_ns"] = nullptr;
      o["cause"] = "unknown";
    }
    o["notify_wait"] = notify_wait(s);
    o["host_blocked"] = host_blocked(s);
    o["alignment"] = alignment(k);
    return o;
  }

 private:
  // The longest Notify Wait inside the operator: the plane (and so the peer link) it stalls on.
  json notify_wait(const Slice& s) const {
    const auto& nws = marks_.notify_waits;
    auto lo = std::lower_bound(nws.begin(), nws.end(), s.ts, [&](uint32_t i, Ns t) { return m_.slices[i].ts < t; });
    const Slice* nw = nullptr;
    for (auto it = lo; it != nws.end() && m_.slices[*it].ts < s.end(); ++it)
      if (!nw || m_.slices[*it].dur > nw->dur) nw = &m_.slices[*it];
    if (!nw) return nullptr;
    return {{"plane", std::string(m_.str(m_.tracks[nw->track].thread_name))},
            {"dur_ns", nw->dur},
            {"evidence", json::array({evidence_event(m_, nw->loc, "Notify Wait")})}};
  }

  // A host call blocked on the device while the operator ran.
  json host_blocked(const Slice& s) const {
    const HostSync* hs = nullptr;
    Ns hs_overlap = 0;
    // Syncs in start order: those starting before the operator ends, back to the longest sync's reach.
    auto sit = std::upper_bound(marks_.syncs.begin(), marks_.syncs.end(), s.end(),
                                [&](Ns v, const HostSync& h) { return v < m_.slices[h.slice].ts; });
    while (sit != marks_.syncs.begin()) {
      const HostSync& h = *--sit;
      const Slice& x = m_.slices[h.slice];
      if (x.ts + marks_.longest_sync < s.ts) break;
      Ns ov = std::min(x.end(), s.end()) - std::max(x.ts, s.ts);
      if (ov > hs_overlap || (ov == hs_overlap && ov > 0 && hs && h.slice < hs->slice)) hs_overlap = ov, hs = &h;
    }
    if (!hs) return nullptr;
    const Slice& x = m_.slices[hs->slice];
    json h = {{"name", std::string(m_.str(x.name))},
              {"overlap_ns", hs_overlap},
              {"dur_ns", x.dur},
              {"evidence", json::array({evidence_event(m_, x.loc, m_.str(x.name))})}};
    if (const Slice* p = python_caller(m_, x, hs->tid)) {
      h["caller"] = std::string(m_.str(p->name));
      h["evidence"].push_back(evidence_event(m_, p->loc, m_.str(p->name)));
    }
    return h;
  }

  json alignment(uint32_t k) const {
    auto it = align_.find(k);
    if (it == align_.end()) return nullptr;
    const Align& al = it->second;
    json a = {{"checked_tasks", al.checked}, {"unaligned_tasks", al.unaligned}, {"unaligned_ns", al.unaligned_ns}};
    if (al.unaligned > 0) {
      a["example_size_bytes"] = al.example_size;
      a["evidence"] = json::array({evidence_event(m_, al.example_loc, "SDMA transfer, size not a multiple of 512 B")});
    }
    return a;
  }

  const RunModel& m_;
  const SplitIndex& split_;
  const TimelineMarks& marks_;
  const std::map<uint32_t, Align>& align_;
  const StepWindowIndex index_;
};

// The kMaxOps longest timeline operators, ties in timeline order (what a stable sort of all of them gives).
json longest_timeline_ops(const RunModel& m, const std::vector<OpTime>& op_times, const OpRecords& records) {
  std::vector<size_t> order(op_times.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const size_t shown = std::min(order.size(), kMaxOps);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](size_t a, size_t b) {
                      const Ns da = m.slices[op_times[a].slice].dur, db = m.slices[op_times[b].slice].dur;
                      return da != db ? da > db : a < b;
                    });
  json ops = json::array();
  for (size_t i = 0; i < shown; ++i)
    ops.push_back(records.record(op_times[order[i]].slice, op_times[order[i]].exposed));
  return ops;
}

// No timeline: the operators as communication.json lists them.
json split_only_ops(const RunModel& m, const SplitIndex& split, Totals& total) {
  json ops = json::array();
  for (const auto& [name, r] : split) {
    json o = {{"name", name},
              {"group", r->group},
              {"step", r->step == kNoId ? json(nullptr) : json(r->step)},
              {"elapse_ns", r->elapse_ns},
              {"exposed_ns", nullptr},
              {"notify_wait", nullptr},
              {"host_blocked", nullptr}};
    o["transit_ns"] = r->transit_ns, o["wait_ns"] = r->wait_ns, o["sync_ns"] = r->sync_ns, o["idle_ns"] = r->idle_ns;
    o["cause"] = cause_of(r->elapse_ns, r->transit_ns, r->wait_ns, r->idle_ns);
    o["evidence"] = record_evidence_json(r->source);
    if (const auto* g = find_parallel_group(m.meta.parallel_groups, r->group)) o["group_name"] = g->name;
    total.elapse += r->elapse_ns;
    total.add_split(*r);
    ops.push_back(std::move(o));
  }
  return ops;
}

json alignment_summary(const std::map<uint32_t, Align>& align) {
  uint64_t ops_checked = 0, ops_unaligned = 0;
  Ns unaligned_ns = 0;
  for (const auto& [slice, al] : align) {
    ++ops_checked;
    if (al.unaligned > 0) ++ops_unaligned, unaligned_ns += al.unaligned_ns;
  }
  return {{"ops_checked", ops_checked}, {"ops_unaligned", ops_unaligned}, {"unaligned_ns", unaligned_ns}};
}

}  // namespace

void diagnose_collectives(const DiagnosticContext& ctx, Facts& facts) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;
  SplitIndex split;
  if (m.communication.ops)
    for (const CommOp& op : *m.communication.ops) split.emplace(op.name, &op);
  const bool timeline = d.comm_from_ops && !d.comm_slices.empty();
  if (!timeline && split.empty()) {
    facts.unavailable("collectives", "no communication operators on the device timeline and no " +
                                         std::string(role_name(Role::Communication)));
    return;
  }
  if (split.empty())
    facts.unavailable("collectives.split", "no " + std::string(role_name(Role::Communication)) +
                                               ": transit / wait / idle per operator unknown");
  if (!timeline)
    facts.unavailable("collectives.exposed",
                      "no trace: the exposed part, Notify Waits and host syncs of each operator "
                      "are unknown (" +
                          std::string(role_name(Role::Communication)) + " only)");

  // Every operator counts in the totals; the JSON record (Notify Wait, host sync, evidence) is
  // built for the longest ones only, so a capture with tens of thousands of collectives costs
  // one pass, not one scan of the timeline per operator.
  Totals t;
  json ops;
  size_t count = 0;
  std::map<uint32_t, Align> align;
  if (timeline) {
    if (!m.comm_task_args.empty()) align = byte_alignment(m, d.comm_slices);
    const TimelineMarks marks = timeline_marks(m);
    const std::vector<OpTime> op_times = timeline_op_times(m, d, split, t);
    ops = longest_timeline_ops(m, op_times, OpRecords(ctx, split, marks, align));
    count = op_times.size();
  } else {
    ops = split_only_ops(m, split, t);
    count = ops.size();
  }
  std::stable_sort(ops.begin(), ops.end(),
                   [](const json& a, const json& b) { return a["elapse_ns"].get<Ns>() > b["elapse_ns"].get<Ns>(); });
  if (ops.size() > kMaxOps) ops.erase(ops.begin() + kMaxOps, ops.end());
  json total = {{"elapse_ns", t.elapse}, {"exposed_ns", timeline ? json(t.exposed) : json(nullptr)}};
  if (t.have_split) {
    total["transit_ns"] = t.transit, total["wait_ns"] = t.wait, total["sync_ns"] = t.sync, total["idle_ns"] = t.idle;
    total["cause"] = cause_of(t.transit + t.wait + t.idle, t.transit, t.wait, t.idle);
  }
  size_t n_steps = m.steps.size();
  if (!timeline) {  // steps as the communication records name them
    std::set<int64_t> ids;
    for (const auto& [name, r] : split) ids.insert(r->step);
    n_steps = ids.size();
  }
  json alignment = nullptr;
  if (!m.comm_task_args.empty()) alignment = alignment_summary(align);
  else
    facts.unavailable("collectives.alignment",
                      "no HCCL plane task sizes (trace without HCCL plane tasks, gzipped, or a "
                      "database export): byte alignment unchecked");
  facts.doc["collectives"] = {{"count", count},
                              {"alignment", alignment},
                              {"steps", std::max<size_t>(1, n_steps)},
                              {"split_source", t.have_split ? role_name(Role::Communication) : ""},
                              {"total", total},
                              {"ops", ops}};
}

}  // namespace npu
