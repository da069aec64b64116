// "dispatch": is the host feeding the device fast enough? (docs/facts-dispatch.md)
//
// Every launch arrow (HostToDevice: CANN Node@launch -> device task) gives a launch lag =
// device task start - host launch. A device that starts a task as soon as the host launches
// it ("vertical" arrow) was waiting on the host; a lag that grows during a step means the
// host runs ahead and the device is the bottleneck. Idle gaps on the device that end with a
// vertical launch are idle time the host caused. Also: the torch_npu task queue, the host
// operator rate, synchronize calls, and long device tasks that drained the pipeline.
//
// Cost: one sort of the launches (F log F), one pass over the device gaps with a binary
// search each, one pass over the host slices. No joins between flows and slices other than
// through the indexes the model already holds.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "base/json_object.h"
#include "base/stats.h"
#include "base/text.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/diagnostics/dispatch_lags.h"
#include "facts/frame/launch_flows.h"

namespace npu {
namespace {

// ---- Thresholds -------------------------------------------------------------------------
// A launch is "vertical" when its device task starts at most FactsOptions::vertical_lag_ns
// after the host launch (negative lags from host/device clock offset count too): the device
// started "as soon as" the host launched, i.e. it was waiting on the host.
// A pipeline interruption is a device task or communication op longer than this ...
constexpr Ns kInterruptMinNs = 500'000;
// ... and longer than this many times the median compute task of its step ...
constexpr Ns kInterruptMedianFactor = 20;
// ... after which the next launch is vertical (lag <= the vertical lag): the host waited for it.
// At most this many interruptions are listed (the longest); all are counted.
constexpr size_t kMaxInterruptions = 10;
// Host-bound gaps listed per step (with evidence), and in the run-level evidence.
constexpr size_t kTopGapsPerStep = 3;
constexpr size_t kTopGapsOverall = 5;

using nlohmann::json;

struct Gap {
  Ns start = 0, end = 0;
  Ns lag = 0;           // lag of the launch that ended the gap
  uint32_t launch = 0;  // index into launches
  Ns length() const { return end - start; }
};

// "2.7 us after its launch", or for a negative lag "2.5 us before its launch (clock offset)".
std::string after_launch(Ns lag) {
  return lag >= 0 ? text::us(lag) + " after its launch"
                  : text::us(-lag) + " before its launch (host/device clock offset)";
}

// Everything accumulated per step (or for the whole run).
struct Group {
  std::vector<uint32_t> launches;  // indexes into launches, in device start order
  Ns busy_ns = 0, free_ns = 0, host_bound_free_ns = 0;
  std::vector<Gap> host_bound_gaps;
  std::vector<Ns> compute_durs;
  Ns median_task_ns = 0;
  uint64_t host_ops = 0, sync_calls = 0, device_sync_calls = 0, interruptions = 0;
  Ns sync_ns = 0;
};

class Dispatch {
 public:
  Dispatch(const DiagnosticContext& ctx, Facts& facts)
      : m_(ctx.model),
        d_(ctx.device),
        frame_(ctx.frame),
        steps_(ctx.frame.steps()),
        pseudo_(ctx.frame.pseudo()),
        picked_(ctx.frame.launches()),
        facts_(facts),
        launches_(picked_.launches),
        vertical_lag_ns_(ctx.options.vertical_lag_ns) {}

  void hand_off(HostBoundGaps& out) const {
    out.judged = !launches_.empty() && d_.has_device;
    out.gaps.clear();
    for (const Gap& g : overall_.host_bound_gaps) {
      const Flow& f = flows()[launches_[g.launch].flow];
      out.gaps.push_back({g.start, g.end, f.start_slice != kNone32 ? m_.slices[f.start_slice].loc : f.start_loc});
    }
  }

  void run() {
    groups_.resize(steps_.size());
    assign_launches();
    scan_device();
    scan_host();
    find_interruptions();

    json out = json::object();
    out["flow_kind"] = flow_kind_json();
    // The rules judge each step (rules/lua/verdicts/step_class.lua): they need to know whether
    // idle gaps could be measured, and what the measurements counted as vertical or long.
    out["has_device_timeline"] = d_.has_device;
    out["thresholds"] = {{"vertical_lag_ns", vertical_lag_ns_},
                         {"interruption_min_ns", kInterruptMinNs},
                         {"interruption_median_factor", kInterruptMedianFactor}};
    json steps = json::array();
    for (size_t i = 0; i < steps_.size() && i < kMaxStepDetail; ++i)
      steps.push_back(group_json(groups_[i], steps_[i], kTopGapsPerStep));
    out["steps"] = std::move(steps);
    out["overall"] = overall_json();
    out["task_queue"] = task_queue_json();
    out["interruptions"] = interruptions_json();
    facts_.doc["dispatch"] = std::move(out);
    if (launches_.empty() && m_.meta.platform == "gpu")
      facts_.unavailable("dispatch",
                         "no runtime launch (cudaLaunchKernel, cudaMemcpyAsync, hipLaunchKernel, ...) shares "
                         "a correlation id with a kernel, memcpy or memset: launch lag, vertical share, slope "
                         "and host-bound idle are not computed; host op rate and sync calls still are");
    else if (launches_.empty() && run_platform(m_) == "cpu")
      facts_.unavailable("dispatch",
                         "CPU-only trace: no device launches, so launch lag, vertical share, slope and "
                         "host-bound idle are not computed; host op rate and sync calls still are");
    else if (launches_.empty())
      facts_.unavailable("dispatch",
                         "no launch flows in the trace (looked for HostToDevice, then async_npu, then ac2g "
                         "flows with both ends): launch lag, vertical share, slope and host-bound idle "
                         "are not computed; task queue, host op rate and sync calls still are");
    else if (!d_.has_device)
      facts_.unavailable("dispatch.host_bound_free",
                         "no device tasks in the trace: device idle gaps (free_ns, "
                         "host_bound_free_ns) are not computed and the verdict rests on "
                         "launch lags alone");
  }

 private:
  json flow_kind_json() const { return picked_.kind_json(); }

  const std::vector<Flow>& flows() const { return picked_.flows(m_); }

  // Host events: the step whose host span holds them; device events (a launch's device start, a
  // task, a gap): the step on the device (the frame's: GPUs, until the work it launched ends).
  int group_of(Ns ts) const { return frame_.step_of_host(ts); }
  int device_group_of(Ns ts) const { return frame_.step_of_device(ts); }

  void assign_launches() {
    for (uint32_t i = 0; i < launches_.size(); ++i) {
      int g = device_group_of(launches_[i].start);
      if (g >= 0) groups_[static_cast<size_t>(g)].launches.push_back(i);
      else ++outside_steps_;
    }
  }

  // Busy = compute ∪ communication; a gap between two busy intervals is idle, the step's where it starts (the
  // profiler's rule; a serving iteration's up to its window's end), the host's when its task was launched vertically.
  void scan_device() {
    for (uint32_t i : d_.compute_slices) {
      const Slice& s = m_.slices[i];
      all_compute_durs_.push_back(s.dur);
      int g = device_group_of(s.ts);
      if (g >= 0) groups_[static_cast<size_t>(g)].compute_durs.push_back(s.dur);
    }
    auto median = [](std::vector<Ns>& v) -> Ns {
      if (v.empty()) return 0;
      auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
      std::nth_element(v.begin(), mid, v.end());
      return *mid;
    };
    run_median_task_ns_ = median(all_compute_durs_);
    for (auto& g : groups_) g.median_task_ns = median(g.compute_durs);

    const Intervals& busy = d_.busy;
    size_t cursor = 0;
    for (size_t k = 0; k < busy.size(); ++k) {
      int g = device_group_of(busy[k].start);
      overall_.busy_ns += busy[k].length();
      if (g >= 0) groups_[static_cast<size_t>(g)].busy_ns += busy[k].length();
      if (k + 1 == busy.size()) break;
      Gap gap{busy[k].end, busy[k + 1].start, 0, 0};
      overall_.free_ns += gap.length();
      const Ns w_end =
          g >= 0 && m_.meta.engine_iteration_steps ? frame_.windows()[static_cast<size_t>(g)].end : gap.end;
      const Ns cut = std::clamp(w_end, gap.start, gap.end);  // the part in the step
      if (g >= 0) groups_[static_cast<size_t>(g)].free_ns += cut - gap.start;
      // The launch of the task that ends the gap: the lowest lag among launches starting there.
      // Gaps come in time order, so one cursor walks the launches (a merge, not a search).
      while (cursor < launches_.size() && launches_[cursor].start < gap.end) ++cursor;
      auto b = launches_.begin() + static_cast<std::ptrdiff_t>(cursor), e = b;
      while (e != launches_.end() && e->start == gap.end) ++e;
      if (b == e) continue;
      auto best = std::min_element(b, e, [](const Launch& x, const Launch& y) { return x.lag < y.lag; });
      if (best->lag > vertical_lag_ns_) continue;
      gap.lag = best->lag;
      gap.launch = static_cast<uint32_t>(best - launches_.begin());
      overall_.host_bound_free_ns += gap.length();
      overall_.host_bound_gaps.push_back(gap);
      if (g >= 0 && cut > gap.start) {
        groups_[static_cast<size_t>(g)].host_bound_free_ns += cut - gap.start;
        groups_[static_cast<size_t>(g)].host_bound_gaps.push_back({gap.start, cut, gap.lag, gap.launch});
      }
    }
  }

  struct Cmp {
    bool operator()(const Launch& l, Ns v) const { return l.start < v; }
    bool operator()(Ns v, const Launch& l) const { return v < l.start; }
  };

  // Host operators, synchronize calls and the task-queue slices.
  void scan_host() {
    StrId cpu_op = m_.strings.find("cpu_op");
    StrId operator_cat = m_.strings.find("Operator");  // 2021 Kineto traces
    StrId runtime = m_.strings.find("cuda_runtime"), driver = m_.strings.find("cuda_driver"),
          runtime_old = m_.strings.find("Runtime");
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      const Track& tr = m_.tracks[t];
      auto r = m_.track_slices[t];
      if (is_host_op_track(tr)) {
        for (uint32_t i = r.begin; i < r.end; ++i) {
          const Slice& s = m_.slices[i];
          std::string_view n = m_.str(s.name);
          if (n == "Enqueue") ++enqueue_slices_;
          else if (n.rfind("Dequeue@", 0) == 0) ++dequeue_slices_;
          if (s.cat != kEmptyStr && (s.cat == runtime || s.cat == driver || s.cat == runtime_old)) {
            GpuSync k = gpu_sync_kind(n);
            if (k == GpuSync::None) continue;
            int g = group_of(s.ts);
            Group* grp = g >= 0 ? &groups_[static_cast<size_t>(g)] : nullptr;
            for (Group* x : {&overall_, grp}) {
              if (!x) continue;
              (k == GpuSync::Device ? x->device_sync_calls : x->sync_calls)++;
              x->sync_ns += s.dur;
            }
            continue;
          }
          if (s.cat == kEmptyStr || (s.cat != cpu_op && s.cat != operator_cat) || n.rfind("ProfilerStep#", 0) == 0)
            continue;
          ++overall_.host_ops;
          int g = group_of(s.ts);
          if (g >= 0) groups_[static_cast<size_t>(g)].host_ops++;
        }
      } else if (tr.kind == TrackKind::HostCANN) {
        for (uint32_t i = r.begin; i < r.end; ++i) {
          const Slice& s = m_.slices[i];
          std::string_view n = m_.str(s.name);
          bool stream = n.rfind("AscendCL@aclrtSynchronizeStream", 0) == 0;
          bool device = n.rfind("AscendCL@aclrtSynchronizeDevice", 0) == 0;
          if (!stream && !device) continue;
          int g = group_of(s.ts);
          Group* grp = g >= 0 ? &groups_[static_cast<size_t>(g)] : nullptr;
          for (Group* x : {&overall_, grp}) {
            if (!x) continue;
            (stream ? x->sync_calls : x->device_sync_calls)++;
            x->sync_ns += s.dur;
          }
        }
      }
    }
  }

  // Long device tasks / communication ops after which the next launch starts vertically: the
  // pipeline ran dry behind them (a synchronize, a .item(), a blocking copy).
  void find_interruptions() {
    auto consider = [&](uint32_t idx, const char* what) {
      const Slice& s = m_.slices[idx];
      if (s.dur <= kInterruptMinNs) return;
      int g = device_group_of(s.ts);
      Ns median = g >= 0 ? groups_[static_cast<size_t>(g)].median_task_ns : run_median_task_ns_;
      if (s.dur <= kInterruptMedianFactor * median) return;
      auto it = std::lower_bound(launches_.begin(), launches_.end(), s.end(), Cmp{});
      if (it == launches_.end() || it->lag > vertical_lag_ns_) return;
      interruptions_.push_back(Interruption{idx, static_cast<uint32_t>(it - launches_.begin()), g, what});
      ++overall_.interruptions;
      if (g >= 0) groups_[static_cast<size_t>(g)].interruptions++;
    };
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      if (m_.tracks[t].kind != TrackKind::Device) continue;
      for (uint32_t i = m_.track_slices[t].begin; i < m_.track_slices[t].end; ++i) {
        TaskClass c = classify_device_task(m_, m_.slices[i]);
        // Communication ops come from the op threads when there are any (no double counting).
        if (c == TaskClass::Communication && d_.comm_from_ops) continue;
        consider(i, c == TaskClass::Compute ? "compute" : c == TaskClass::Communication ? "communication" : "other");
      }
    }
    if (d_.comm_from_ops)
      for (uint32_t i : d_.comm_slices) consider(i, "communication");
    std::sort(interruptions_.begin(), interruptions_.end(), [&](const Interruption& a, const Interruption& b) {
      return m_.slices[a.slice].dur > m_.slices[b.slice].dur;
    });
  }

  // ---- JSON ----

  json step_id(const Step& s) const { return s.id == kNoId ? json(nullptr) : json(s.id); }

  // The device task a launch ends at and the host slice it starts in.
  void launch_evidence(json& ev, const Launch& l, const std::string& task_what, const std::string& host_what) const {
    const Flow& f = flows()[l.flow];
    if (f.end_slice != kNone32) ev.push_back(evidence_event(m_, m_.slices[f.end_slice].loc, task_what));
    else ev.push_back(evidence_event(m_, f.end_loc, task_what + " (flow end)"));
    if (f.start_slice != kNone32)
      ev.push_back(evidence_event(m_, m_.slices[f.start_slice].loc,
                                  host_what + " (" + std::string(m_.str(m_.slices[f.start_slice].name)) + ")"));
    else ev.push_back(evidence_event(m_, f.start_loc, host_what + " (flow start)"));
  }

  std::string task_name(const Launch& l) const {
    const Flow& f = flows()[l.flow];
    return f.end_slice != kNone32 ? std::string(m_.str(m_.slices[f.end_slice].name)) : std::string();
  }

  void gap_evidence(json& ev, const Gap& g) const {
    launch_evidence(ev, launches_[g.launch],
                    "device task that ended a " + text::us(g.length()) + " idle gap, starting " + after_launch(g.lag),
                    "host launch of that task");
  }

  static std::vector<Gap> longest(std::vector<Gap> v, size_t n) {
    size_t k = std::min(n, v.size());
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end(),
                      [](const Gap& a, const Gap& b) { return a.length() > b.length(); });
    v.resize(k);
    return v;
  }

  // Lag statistics and fit over the launches `idx`; x = ms since `x0` (dispatch_lags.h).
  void add_lags(JsonObject& j, const std::vector<uint32_t>& idx, Ns x0) const {
    add_lag_stats(j, launches_, idx, x0, vertical_lag_ns_);
  }

  // Fields shared by a step and the run: host-bound idle, rates, syncs, evidence.
  // `launches_per_ms`: launches over the span, as the caller counts them.
  void add_common(JsonObject& j, const Group& g, const std::vector<uint32_t>& launches, uint64_t host_ops, Ns span_ns,
                  double launches_per_ms, size_t top_gaps) const {
    Ns device_time = g.busy_ns + g.free_ns;
    double ms = static_cast<double>(span_ns) / 1e6;
    j.add("free_ns", g.free_ns)
        .add("device_time_ns", device_time)
        .add("host_bound_free_ns", g.host_bound_free_ns)
        .add("host_bound_free_ratio", stats::ratio(g.host_bound_free_ns, device_time))
        .add("host_bound_of_free_ratio", stats::ratio(g.host_bound_free_ns, g.free_ns))
        .add("host_bound_gaps", g.host_bound_gaps.size())
        .add("host_ops", host_ops)
        .add("host_ops_per_ms", ms > 0 ? static_cast<double>(host_ops) / ms : 0.0)
        .add("launches_per_ms", launches_per_ms)
        .add("sync_calls", g.sync_calls)
        .add("device_sync_calls", g.device_sync_calls)
        .add("sync_ns", g.sync_ns)
        .add("interruptions", g.interruptions);

    std::vector<Gap> top = longest(g.host_bound_gaps, top_gaps);
    json gaps = json::array();
    for (const Gap& gp : top) {
      JsonObject o;
      o.add("start_ns", gp.start)
          .add("dur_ns", gp.length())
          .add("lag_ns", gp.lag)
          .add("task", task_name(launches_[gp.launch]));
      gaps.push_back(o.take());
    }
    j.add("top_host_bound_gaps", std::move(gaps));

    // Evidence of the measurements: the host-caused gaps listed above, and the launch that
    // waited longest. The step verdict picks what explains it (lib.steps, steps.evidence).
    json ev = json::array();
    for (const Gap& gp : top) gap_evidence(ev, gp);
    j.add("evidence", std::move(ev));
    json lag_ev = json::array();
    if (!launches.empty()) {
      const Launch* worst = nullptr;
      for (uint32_t i : launches)
        if (!worst || launches_[i].lag > worst->lag) worst = &launches_[i];
      launch_evidence(lag_ev, *worst, "device task that started " + after_launch(worst->lag) + " (largest lag)",
                      "host launch of that task");
    }
    j.add("largest_lag_evidence", std::move(lag_ev));
  }

  json group_json(const Group& g, const Step& s, size_t top_gaps) const {
    JsonObject j;
    j.add("id", step_id(s)).add("start_ns", s.start).add("end_ns", s.end);
    add_lags(j, g.launches, s.start);
    j.add("median_task_ns", g.median_task_ns);
    const Ns span = s.end - s.start;
    const double launches_per_ms =
        span > 0 ? static_cast<double>(g.launches.size()) / (static_cast<double>(span) / 1e6) : 0.0;
    add_common(j, g, g.launches, g.host_ops, span, launches_per_ms, top_gaps);
    return j.take();
  }

  json overall_json() const {
    JsonObject j;
    std::vector<uint32_t> all(launches_.size());
    for (uint32_t i = 0; i < launches_.size(); ++i) all[i] = i;
    // x for the run-level fit: ms since the first launch.
    Ns x0 = launches_.empty() ? 0 : std::min_element(launches_.begin(), launches_.end(), [](auto& a, auto& b) {
                                      return a.launch < b.launch;
                                    })->launch;
    add_lags(j, all, x0);
    j.add("flows_used", launches_.size())
        .add("flow_kind", flow_kind_json())
        .add("flows_outside_steps", outside_steps_)
        .add("unpaired_flow_points", m_.stats.dangling_flow_points)
        .add("median_task_ns", run_median_task_ns_)
        .add("steps", pseudo_ ? 0 : steps_.size());
    // Rates over the steps (host ops inside steps / total step time); the whole span without steps.
    Ns span = 0;
    uint64_t ops_in_steps = 0;
    for (size_t i = 0; i < steps_.size(); ++i) {
      span += steps_[i].end - steps_[i].start;
      ops_in_steps += groups_[i].host_ops;
    }
    const double launches_per_ms =
        span > 0 ? static_cast<double>(launches_.size() - outside_steps_) / (static_cast<double>(span) / 1e6) : 0.0;
    add_common(j, overall_, all, ops_in_steps, span, launches_per_ms, kTopGapsOverall);
    j.add("host_ops_total", overall_.host_ops);
    return j.take();
  }

  json task_queue_json() const {
    std::vector<Ns> lat;
    for (const auto& f : m_.flows)
      if (f.kind == FlowKind::AsyncTaskQueue) lat.push_back(f.end_ts - f.start_ts);
    std::sort(lat.begin(), lat.end());
    json j = json::object();
    j["flows"] = lat.size();
    j["latency_p50_ns"] = lat.empty() ? json(nullptr) : json(stats::nearest_rank(lat, 0.5));
    j["latency_p90_ns"] = lat.empty() ? json(nullptr) : json(stats::nearest_rank(lat, 0.9));
    j["latency_max_ns"] = lat.empty() ? json(nullptr) : json(lat.back());
    j["enqueue_slices"] = enqueue_slices_;
    j["dequeue_slices"] = dequeue_slices_;
    j["two_stage_active"] = !lat.empty() || enqueue_slices_ > 0 || dequeue_slices_ > 0;
    auto it = m_.meta.env.find("TASK_QUEUE_ENABLE");
    j["task_queue_enable_env"] = it != m_.meta.env.end() ? json(it->second) : json(nullptr);
    return j;
  }

  json interruptions_json() const {
    json j = json::object();
    j["count"] = interruptions_.size();
    json items = json::array();
    for (size_t k = 0; k < interruptions_.size() && k < kMaxInterruptions; ++k) {
      const Interruption& in = interruptions_[k];
      const Slice& s = m_.slices[in.slice];
      const Launch& next = launches_[in.next];
      json it = {{"step", in.group >= 0 ? step_id(steps_[static_cast<size_t>(in.group)]) : json(nullptr)},
                 {"name", m_.str(s.name)},
                 {"class", in.what},
                 {"start_ns", s.ts},
                 {"dur_ns", s.dur},
                 {"next_task_start_ns", next.start},
                 {"next_lag_ns", next.lag},
                 {"gap_after_ns", next.start - s.end()}};
      json ev = json::array();
      ev.push_back(evidence_event(m_, s.loc, "long " + std::string(in.what) + " task (" + text::us(s.dur) + ")"));
      launch_evidence(ev, next, "next device task, started " + after_launch(next.lag), "host launch of the next task");
      it["evidence"] = std::move(ev);
      items.push_back(std::move(it));
    }
    j["items"] = std::move(items);
    return j;
  }

  struct Interruption {
    uint32_t slice;
    uint32_t next;  // index into launches_
    int group;
    const char* what;
  };

  const RunModel& m_;
  const DeviceTimeline& d_;
  const RunFrame& frame_;           // which step, which launch
  const std::vector<Step>& steps_;  // the frame's steps (one pseudo-step without a schedule)
  const bool pseudo_;
  const LaunchFlows& picked_;  // the frame's launches (their arrows)
  Facts& facts_;
  const std::vector<Launch>& launches_;  // sorted by device start, one per graph launch
  const Ns vertical_lag_ns_;             // FactsOptions::vertical_lag_ns
  std::vector<Group> groups_;
  Group overall_;
  uint64_t outside_steps_ = 0;
  std::vector<Ns> all_compute_durs_;
  Ns run_median_task_ns_ = 0;
  uint64_t enqueue_slices_ = 0, dequeue_slices_ = 0;
  std::vector<Interruption> interruptions_;
};

}  // namespace

void diagnose_dispatch(const DiagnosticContext& ctx, Facts& facts, HostBoundGaps* handoff) {
  Dispatch d(ctx, facts);
  d.run();
  if (handoff) d.hand_off(*handoff);
}

}  // namespace npu
