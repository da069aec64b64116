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

#include "facts/diagnostics/diagnostics.h"
#include "facts/step_windows.h"

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

}  // namespace

void diagnose_collectives(const DiagnosticContext& ctx, Facts& facts) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;
  // The profiler's split per operator name (communication.json), when the rank has it.
  std::map<std::string, const json*> split;  // ordered: the output must not depend on hashing
  const json* comm = facts.doc.contains("communication") ? &facts.doc["communication"] : nullptr;
  if (comm && comm->contains("ops"))
    for (const auto& op : (*comm)["ops"]) split.emplace(op.value("name", ""), &op);
  const bool timeline = d.comm_from_ops && !d.comm_slices.empty();
  if (!timeline && split.empty()) {
    facts.unavailable("collectives", "no communication operators on the device timeline and no communication.json");
    return;
  }
  if (split.empty())
    facts.unavailable("collectives.split", "no communication.json: transit / wait / idle per operator unknown");
  if (!timeline)
    facts.unavailable("collectives.exposed",
                      "no trace: the exposed part, Notify Waits and host syncs of each operator "
                      "are unknown (communication.json only)");

  const Intervals exposed_all = difference(d.comm, d.compute);
  std::vector<HostSync> syncs;
  std::vector<uint32_t> notify_waits;  // slices on HCCL plane threads
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const Track& tr = m.tracks[t];
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      std::string_view n = m.str(m.slices[i].name);
      if (tr.kind == TrackKind::HostCANN && is_host_sync(n)) syncs.push_back({i, tr.tid});
      else if (tr.kind == TrackKind::Communication && is_notify_wait(n)) notify_waits.push_back(i);
    }
  }
  auto by_ts = [&](const auto& a, const auto& b) { return m.slices[a].ts < m.slices[b].ts; };
  std::sort(notify_waits.begin(), notify_waits.end(), by_ts);
  std::sort(syncs.begin(), syncs.end(),
            [&](const HostSync& a, const HostSync& b) { return m.slices[a.slice].ts < m.slices[b.slice].ts; });
  Ns longest_sync = 0;
  for (const auto& h : syncs) longest_sync = std::max(longest_sync, m.slices[h.slice].dur);
  // The Python operator that made a host sync: the shortest aten:: slice on its thread around it.
  // A track's slices are in start order: look back from the sync over a bounded stretch.
  auto python_caller = [&](const Slice& s, int64_t tid) -> const Slice* {
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
  };

  const std::vector<Step>& steps = m.steps;
  const StepWindowIndex index(ctx.step_windows);

  // Byte alignment (msprof-analyze's rule): SDMA transfers over a link (not ON_CHIP) of more
  // than 512 B should move a multiple of 512 B; an operator with any other is not aligned.
  struct Align {
    uint64_t checked = 0, unaligned = 0;
    Ns unaligned_ns = 0;
    int64_t example_size = -1;
    uint64_t example_loc = 0;
  };
  std::map<uint32_t, Align> align;  // by operator slice
  if (timeline && !m.comm_task_args.empty()) {
    std::vector<uint32_t> by_start = d.comm_slices;
    std::sort(by_start.begin(), by_start.end(), by_ts);
    const StrId sdma = m.strings.find("SDMA"), on_chip = m.strings.find("ON_CHIP");
    for (const CommTaskArgs& a : m.comm_task_args) {
      if (a.transport != sdma || a.link == on_chip || a.size_bytes <= 512) continue;
      const Slice& t = m.slices[a.slice];
      auto it = std::upper_bound(by_start.begin(), by_start.end(), t.ts,
                                 [&](Ns v, uint32_t k) { return v < m.slices[k].ts; });
      if (it == by_start.begin() || t.ts >= m.slices[*(it - 1)].end()) continue;
      Align& al = align[*(it - 1)];
      ++al.checked;
      if (a.size_bytes % 512 == 0) continue;
      ++al.unaligned;
      al.unaligned_ns += t.dur;
      if (al.example_size < 0) al.example_size = a.size_bytes, al.example_loc = t.loc;
    }
  }
  uint64_t ops_checked = 0, ops_unaligned = 0;
  Ns unaligned_ns = 0;

  json ops = json::array();
  Ns t_elapse = 0, t_transit = 0, t_wait = 0, t_sync = 0, t_idle = 0, t_exposed = 0;
  bool have_split = false;
  // Every operator counts in the totals; the JSON record (Notify Wait, host sync, evidence) is
  // built for the longest ones only, so a capture with tens of thousands of collectives costs
  // one pass, not one scan of the timeline per operator.
  struct OpTime {
    uint32_t slice;
    Ns exposed;
  };
  std::vector<OpTime> op_times;
  // The split's numbers per operator name, looked up once per distinct name (a long capture
  // repeats each name once per step: 345,600 operators of 600 names on a generated rank).
  struct SplitTimes {
    bool found = false;
    Ns transit = 0, wait = 0, sync = 0, idle = 0;
  };
  std::unordered_map<StrId, SplitTimes> split_of_name;
  for (uint32_t k : timeline ? d.comm_slices : std::vector<uint32_t>{}) {
    const Slice& s = m.slices[k];
    // Exposed: the not-overlapped intervals (sorted, disjoint) inside the operator's span.
    Ns exposed = 0;
    auto it = std::upper_bound(exposed_all.begin(), exposed_all.end(), s.ts,
                               [](Ns v, const Interval& x) { return v < x.end; });
    for (; it != exposed_all.end() && it->start < s.end(); ++it)
      exposed += std::min(it->end, s.end()) - std::max(it->start, s.ts);
    op_times.push_back({k, exposed});
    t_elapse += s.dur;
    t_exposed += exposed;
    auto [cached, fresh] = split_of_name.try_emplace(s.name);
    if (fresh)
      if (auto sp = split.find(std::string(m.str(s.name))); sp != split.end()) {
        const json& r = *sp->second;
        cached->second = {true, r.value("transit_ns", Ns{0}), r.value("wait_ns", Ns{0}), r.value("sync_ns", Ns{0}),
                          r.value("idle_ns", Ns{0})};
      }
    if (const SplitTimes& t = cached->second; t.found) {
      t_transit += t.transit, t_wait += t.wait, t_sync += t.sync, t_idle += t.idle;
      have_split = true;
    }
  }
  for (const auto& [slice, al] : align) {
    ++ops_checked;
    if (al.unaligned > 0) ++ops_unaligned, unaligned_ns += al.unaligned_ns;
  }
  auto record = [&](uint32_t k, Ns exposed) -> json {
    const Slice& s = m.slices[k];
    const std::string name(m.str(s.name));
    json o;
    o["name"] = name;
    o["group"] = std::string(m.str(m.tracks[s.track].thread_name));
    if (const auto* g = find_parallel_group(m.meta.parallel_groups, o["group"].get<std::string>()))
      o["group_name"] = g->name;
    int si = steps.empty() ? -1 : index.at(s.ts);
    o["step"] = si >= 0 ? json(steps[static_cast<size_t>(si)].id) : json(nullptr);
    o["start_ns"] = s.ts;
    o["elapse_ns"] = s.dur;
    o["exposed_ns"] = exposed;
    o["evidence"] = json::array({evidence_event(m, s.loc, name)});
    if (auto it = split.find(name); it != split.end()) {
      const json& r = *it->second;
      Ns tr = r.value("transit_ns", Ns{0}), w = r.value("wait_ns", Ns{0}), sy = r.value("sync_ns", Ns{0}),
         id = r.value("idle_ns", Ns{0}), el = r.value("elapse_ns", s.dur);
      o["transit_ns"] = tr, o["wait_ns"] = w, o["sync_ns"] = sy, o["idle_ns"] = id;
      o["cause"] = cause_of(el, tr, w, id);
      for (const auto& e : r.value("evidence", json::array())) o["evidence"].push_back(e);
    } else {
      o["transit_ns"] = o["wait_ns"] = o["sync_ns"] = o["idle_ns"] = nullptr;
      o["cause"] = "unknown";
    }
    // The longest Notify Wait inside the operator: the plane (and so the peer link) it stalls on.
    auto lo = std::lower_bound(notify_waits.begin(), notify_waits.end(), s.ts,
                               [&](uint32_t i, Ns t) { return m.slices[i].ts < t; });
    const Slice* nw = nullptr;
    for (auto it = lo; it != notify_waits.end() && m.slices[*it].ts < s.end(); ++it)
      if (!nw || m.slices[*it].dur > nw->dur) nw = &m.slices[*it];
    o["notify_wait"] = nw ? json{{"plane", std::string(m.str(m.tracks[nw->track].thread_name))},
                                 {"dur_ns", nw->dur},
                                 {"evidence", json::array({evidence_event(m, nw->loc, "Notify Wait")})}}
                          : json(nullptr);
    // A host call blocked on the device while the operator ran.
    const HostSync* hs = nullptr;
    Ns hs_overlap = 0;
    // Syncs in start order: those starting before the operator ends, back to the longest sync's reach.
    auto sit = std::upper_bound(syncs.begin(), syncs.end(), s.end(),
                                [&](Ns v, const HostSync& h) { return v < m.slices[h.slice].ts; });
    while (sit != syncs.begin()) {
      const HostSync& h = *--sit;
      const Slice& x = m.slices[h.slice];
      if (x.ts + longest_sync < s.ts) break;
      Ns ov = std::min(x.end(), s.end()) - std::max(x.ts, s.ts);
      if (ov > hs_overlap || (ov == hs_overlap && ov > 0 && hs && h.slice < hs->slice)) hs_overlap = ov, hs = &h;
    }
    if (hs) {
      const Slice& x = m.slices[hs->slice];
      json h = {{"name", std::string(m.str(x.name))},
                {"overlap_ns", hs_overlap},
                {"dur_ns", x.dur},
                {"evidence", json::array({evidence_event(m, x.loc, m.str(x.name))})}};
      if (const Slice* p = python_caller(x, hs->tid)) {
        h["caller"] = std::string(m.str(p->name));
        h["evidence"].push_back(evidence_event(m, p->loc, m.str(p->name)));
      }
      o["host_blocked"] = h;
    } else {
      o["host_blocked"] = nullptr;
    }
    if (auto it = align.find(k); it != align.end()) {
      const Align& al = it->second;
      o["alignment"] = {
          {"checked_tasks", al.checked}, {"unaligned_tasks", al.unaligned}, {"unaligned_ns", al.unaligned_ns}};
      if (al.unaligned > 0) {
        o["alignment"]["example_size_bytes"] = al.example_size;
        o["alignment"]["evidence"] =
            json::array({evidence_event(m, al.example_loc, "SDMA transfer, size not a multiple of 512 B")});
      }
    } else {
      o["alignment"] = nullptr;
    }
    return o;
  };
  // The kMaxOps longest, ties in timeline order (what a stable sort of all of them gives).
  std::vector<size_t> order(op_times.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const size_t shown = std::min(order.size(), kMaxOps);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](size_t a, size_t b) {
                      const Ns da = m.slices[op_times[a].slice].dur, db = m.slices[op_times[b].slice].dur;
                      return da != db ? da > db : a < b;
                    });
  for (size_t i = 0; i < shown; ++i) ops.push_back(record(op_times[order[i]].slice, op_times[order[i]].exposed));
  // No timeline: the operators as communication.json lists them.
  if (!timeline)
    for (const auto& [name, r] : split) {
      json o = {{"name", name},
                {"group", r->value("group", "")},
                {"step", r->value("step", json(nullptr))},
                {"elapse_ns", r->value("elapse_ns", Ns{0})},
                {"exposed_ns", nullptr},
                {"notify_wait", nullptr},
                {"host_blocked", nullptr}};
      Ns tr = r->value("transit_ns", Ns{0}), w = r->value("wait_ns", Ns{0}), sy = r->value("sync_ns", Ns{0}),
         id = r->value("idle_ns", Ns{0});
      o["transit_ns"] = tr, o["wait_ns"] = w, o["sync_ns"] = sy, o["idle_ns"] = id;
      o["cause"] = cause_of(o["elapse_ns"].get<Ns>(), tr, w, id);
      o["evidence"] = r->value("evidence", json::array());
      if (const auto* g = find_parallel_group(m.meta.parallel_groups, o["group"].get<std::string>()))
        o["group_name"] = g->name;
      t_elapse += o["elapse_ns"].get<Ns>(), t_transit += tr, t_wait += w, t_sync += sy, t_idle += id;
      have_split = true;
      ops.push_back(std::move(o));
    }
  std::stable_sort(ops.begin(), ops.end(),
                   [](const json& a, const json& b) { return a["elapse_ns"].get<Ns>() > b["elapse_ns"].get<Ns>(); });
  const size_t count = timeline ? op_times.size() : ops.size();
  if (ops.size() > kMaxOps) ops.erase(ops.begin() + kMaxOps, ops.end());
  json total = {{"elapse_ns", t_elapse}, {"exposed_ns", timeline ? json(t_exposed) : json(nullptr)}};
  if (have_split) {
    total["transit_ns"] = t_transit, total["wait_ns"] = t_wait, total["sync_ns"] = t_sync, total["idle_ns"] = t_idle;
    total["cause"] = cause_of(t_transit + t_wait + t_idle, t_transit, t_wait, t_idle);
  }
  size_t n_steps = steps.size();
  if (!timeline) {  // steps as communication.json names them
    std::set<std::string> ids;
    for (const auto& [name, r] : split) ids.insert(r->value("step", json(nullptr)).dump());
    n_steps = ids.size();
  }
  json alignment = nullptr;
  if (!m.comm_task_args.empty())
    alignment = {{"ops_checked", ops_checked}, {"ops_unaligned", ops_unaligned}, {"unaligned_ns", unaligned_ns}};
  else
    facts.unavailable("collectives.alignment",
                      "no HCCL plane task sizes (trace without HCCL plane tasks, gzipped, or a "
                      "database export): byte alignment unchecked");
  facts.doc["collectives"] = {{"count", count},
                              {"alignment", alignment},
                              {"steps", std::max<size_t>(1, n_steps)},
                              {"split_source", have_split ? "communication.json" : ""},
                              {"total", total},
                              {"ops", ops}};
}

}  // namespace npu
