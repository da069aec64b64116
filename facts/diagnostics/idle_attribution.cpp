// "idle_attribution" (docs/facts-idle.md): the step's time split once, so that findings take
// their savings from it and never count the same idle microsecond twice. A step is computing,
// communication that no computation hides (of which pipeline bubble: hcom_receive) and idle; each
// idle stretch goes to at most one cause.
//
// Idle is what the step breakdown counts as idle, by the profiler's step semantics (overlap.cpp
// hands its intervals over: StepIdle): each step's Free segments and its Preparing (host step
// start to its first device task). Preparing lies inside the previous step's last gap on text
// exports, where the profiler counts it twice; here every instant is idle once, in the step that
// reaches it first.
//
// Causes, in the order they claim an instant:
//   1. a host event covering it: an online compile, Python GC, a synchronize call, a dataloader
//      fetch, a barrier (facts/host_causes.h), the most specific first;
//   2. sync: the rest of a gap that began while the host sat in a synchronize call (the sync
//      drained the device; it idles until the next launch arrives);
//   3. host launch: the rest of a gap that ended with a vertical launch (dispatch: the device
//      started the next task as soon as the host launched it, so it waited on the host);
//   4. unexplained: the rest.
#include <algorithm>
#include <array>
#include <limits>

#include "base/json_object.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/host_causes.h"

namespace npu {
namespace {

using nlohmann::json;

enum Cause : int { kCompile, kGc, kSync, kDataloader, kCommWait, kHostLaunch, kUnexplained, kCauseCount };

struct CauseInfo {
  const char* name;
  const char* meaning;
};
constexpr CauseInfo kCauses[kCauseCount] = {
    {"compile", "the host compiled an operator online (AscendCL@aclopCompileAndExecute) while the device idled"},
    {"gc", "Python garbage collection ran while the device idled"},
    {"sync",
     "the host sat in a synchronize call while the device idled, or the device drained during one and waited for "
     "the next launch"},
    {"dataloader", "the host fetched the next batch (a dataloader slice) while the device idled"},
    {"communication_wait", "the host waited at a barrier while the device idled"},
    {"host_launch",
     "the idle gap ended with a vertical launch: the device waited for the host to launch its next task "
     "(Python, framework and launch overhead)"},
    {"unexplained", "idle time that no host event and no launch explains"},
};

// Host-event causes in the order they claim an instant: a compile or a GC inside a dataloader
// fetch is the compile's or the GC's.
constexpr std::pair<HostCause, Cause> kClaimOrder[] = {{HostCause::Compile, kCompile},
                                                       {HostCause::GC, kGc},
                                                       {HostCause::Sync, kSync},
                                                       {HostCause::Dataloader, kDataloader},
                                                       {HostCause::CommWait, kCommWait}};

// A gap that begins this soon after a synchronize call returns began during it (the same slack
// as a vertical launch: host and device clocks differ by microseconds).
constexpr Ns kSyncSlackNs = 50'000;
constexpr size_t kLongest = 5;  // stretches listed per cause, with evidence

// The union of one cause's host slices; each merged stretch keeps its longest slice as evidence.
struct Cover {
  Interval iv;
  uint32_t slice;
};
std::vector<Cover> cover_of(const RunModel& m, const std::vector<uint32_t>& slices) {
  std::vector<Cover> out;
  for (uint32_t i : slices) {  // sorted by start
    const Slice& s = m.slices[i];
    if (s.dur <= 0) continue;
    if (!out.empty() && s.ts <= out.back().iv.end) {
      out.back().iv.end = std::max(out.back().iv.end, s.end());
      if (s.dur > m.slices[out.back().slice].dur) out.back().slice = i;
    } else {
      out.push_back({{s.ts, s.end()}, i});
    }
  }
  return out;
}

// One idle stretch of one step.
struct Piece {
  Interval iv;
  size_t step = 0;
  bool device_went_idle = false;  // starts where a busy interval ended (not at a host step start)
  const HostBoundGap* host_bound = nullptr;
};

// Where a stretch's cause shows in the input: a host slice or launch (by location), or, for
// unexplained idle, the trace file itself. Turned into evidence only for the stretches listed.
struct Source {
  enum Kind : uint8_t { Event, TraceFile } kind = TraceFile;
  uint64_t loc = 0;
  const char* what = "";
};

struct Stretch {
  Ns start = 0, dur = 0;
  size_t step = 0;
  Source source;
};

class Attribution {
 public:
  Attribution(const DiagnosticContext& ctx, const StepIdle& idle, const HostBoundGaps& hb, Facts& facts,
              std::vector<IdleStretch>* stretches)
      : ctx_(ctx), m_(ctx.model), d_(ctx.device), idle_(idle), hb_(hb), facts_(facts), stretches_(stretches) {}

  void run() {
    const auto overall = facts_.doc.find("overall");
    if (!d_.has_device || d_.compute.empty() || overall == facts_.doc.end() || idle_.steps.empty()) {
      facts_.unavailable("idle_attribution",
                         "no device timeline: idle time cannot be matched against host events, so findings keep "
                         "their own saving estimates");
      return;
    }
    collect_pieces();
    const HostCauseSlices& host = ctx_.host_causes();
    for (const auto& [hc, cause] : kClaimOrder) covers_[cause] = cover_of(m_, host.by_cause[static_cast<int>(hc)]);
    per_step_.assign(idle_.steps.size(), {});
    for (const Piece& p : pieces_) attribute(p);
    if (stretches_)
      std::sort(stretches_->begin(), stretches_->end(),
                [](const IdleStretch& a, const IdleStretch& b) { return a.iv.start < b.iv.start; });
    write(*overall);
  }

 private:
  // The breakdown's Free segments and Preparing of each step (StepIdle, by the profiler's step
  // semantics); where they overlap, the earlier stretch keeps the time.
  void collect_pieces() {
    std::vector<Piece> raw;
    for (size_t i = 0; i < idle_.free.size(); ++i) {
      for (const Interval& g : idle_.free[i]) raw.push_back({g, i, true, host_bound_ending(g.end)});
      if (i < idle_.preparing.size() && idle_.preparing[i].length() > 0)
        raw.push_back({idle_.preparing[i], i, false, host_bound_ending(idle_.preparing[i].end)});
    }
    std::stable_sort(raw.begin(), raw.end(), [](const Piece& a, const Piece& b) { return a.iv.start < b.iv.start; });
    Ns covered = std::numeric_limits<Ns>::min();
    for (Piece& p : raw) {
      if (p.iv.end <= covered) continue;
      if (p.iv.start < covered) p.iv.start = covered, p.device_went_idle = false;
      covered = p.iv.end;
      pieces_.push_back(p);
    }
  }

  const HostBoundGap* host_bound_ending(Ns end) const {
    auto it =
        std::lower_bound(hb_.gaps.begin(), hb_.gaps.end(), end, [](const HostBoundGap& g, Ns t) { return g.end < t; });
    return it != hb_.gaps.end() && it->end == end ? &*it : nullptr;
  }

  void claim(Cause c, const Interval& iv, size_t step, Source source) {
    if (iv.length() <= 0) return;
    if (stretches_) stretches_->push_back({iv, static_cast<uint8_t>(c)});
    total_[c] += iv.length();
    ++pieces_of_[c];
    per_step_[step][c] += iv.length();
    auto& top = longest_[c];
    if (top.size() == kLongest && iv.length() <= top.back().dur) return;
    Stretch s{iv.start, iv.length(), step, source};
    top.insert(std::upper_bound(top.begin(), top.end(), s.dur, [](Ns d, const Stretch& x) { return d > x.dur; }), s);
    if (top.size() > kLongest) top.pop_back();
  }

  Source slice_source(uint32_t slice, const char* what) const { return {Source::Event, m_.slices[slice].loc, what}; }

  json evidence(const Source& s) const {
    if (s.kind == Source::Event) return json::array({evidence_event(m_, s.loc, s.what)});
    return json::array({evidence_file(m_, Role::Trace, s.what)});
  }

  void attribute(const Piece& p) {
    Intervals left{p.iv};
    for (const auto& [hc, cause] : kClaimOrder) {
      const std::vector<Cover>& cv = covers_[cause];
      auto it = std::lower_bound(cv.begin(), cv.end(), p.iv.start, [](const Cover& c, Ns t) { return c.iv.end <= t; });
      for (; it != cv.end() && it->iv.start < p.iv.end && !left.empty(); ++it) {
        const Intervals taken = intersection(left, Intervals{it->iv});
        for (const Interval& t : taken)
          claim(cause, t, p.step, slice_source(it->slice, "host event overlapping the idle stretch"));
        left = difference(left, taken);
      }
    }
    if (left.empty()) return;
    if (p.device_went_idle) {
      const std::vector<Cover>& sync = covers_[kSync];
      auto it = std::lower_bound(sync.begin(), sync.end(), p.iv.start - kSyncSlackNs,
                                 [](const Cover& c, Ns t) { return c.iv.end < t; });
      if (it != sync.end() && it->iv.start <= p.iv.start) {
        for (const Interval& t : left)
          claim(kSync, t, p.step, slice_source(it->slice, "synchronize call during which the device drained"));
        return;
      }
    }
    for (const Interval& t : left) {
      if (p.host_bound)
        claim(kHostLaunch, t, p.step,
              {Source::Event, p.host_bound->launch_loc, "host launch of the task that ended the gap"});
      else claim(kUnexplained, t, p.step, {Source::TraceFile, 0, "no compute or communication task in this stretch"});
    }
  }

  void write(const json& overall) {
    const Ns n = static_cast<Ns>(idle_.steps.size());
    Ns idle = 0;
    for (Ns t : total_) idle += t;
    const Ns computing = overall.value("computing_ns", Ns{0});
    const Ns exposed = overall.value("comm_not_overlapped_ns", Ns{0});
    const Ns bubble = std::min(exposed, overall.value("bubble_ns", Ns{0}));
    const bool gpu = overall.contains("copies_ns");  // GPU runs: copies are a part of the step
    const Ns copies = overall.value("copies_ns", Ns{0});
    const Ns step = computing + exposed + copies + idle;
    json out;
    out["steps"] = n;
    out["step_ns"] = step;
    out["per_step_ns"] = step / n;
    out["computing_ns"] = computing;
    if (gpu) out["copies_ns"] = copies;
    out["communication_ns"] = exposed - bubble;
    out["bubble_ns"] = bubble;
    out["idle_ns"] = idle;
    out["host_launch_judged"] = hb_.judged;
    // A serving engine's iterations: the device idle between two windows (the host's turn) is in no
    // step; a serving saving is of the period, the step and the turn after it (docs/whatif.md).
    if (m_.meta.engine_iteration_steps) out["turns_ns"] = turns_between(ctx_.frame.windows());
    json causes = json::object();
    for (int c = 0; c < kCauseCount; ++c) {
      json longest = json::array();
      for (const Stretch& s : longest_[c])
        longest.push_back({{"start_ns", s.start},
                           {"dur_ns", s.dur},
                           {"step", idle_.steps[s.step].id == kNoId ? json(nullptr) : json(idle_.steps[s.step].id)},
                           {"evidence", evidence(s.source)}});
      causes[kCauses[c].name] = {
          {"ns", total_[c]},
          {"per_step_ns", total_[c] / n},
          {"step_ratio", step > 0 ? static_cast<double>(total_[c]) / static_cast<double>(step) : 0.0},
          {"stretches", pieces_of_[c]},
          {"meaning", kCauses[c].meaning},
          {"longest", std::move(longest)}};
    }
    out["causes"] = std::move(causes);
    json by_step = json::array();
    for (size_t i = 0; i < per_step_.size() && i < kMaxStepDetail; ++i) {
      JsonObject c;
      Ns sum = 0;
      for (int k = 0; k < kCauseCount; ++k)
        if (per_step_[i][k] > 0) c.add(kCauses[k].name, per_step_[i][k]), sum += per_step_[i][k];
      JsonObject o;
      o.add_or_null("id", idle_.steps[i].id, kNoId).add("idle_ns", sum).add("causes", c.take());
      by_step.push_back(o.take());
    }
    out["by_step"] = std::move(by_step);
    facts_.doc["idle_attribution"] = std::move(out);
    if (!hb_.judged)
      facts_.unavailable("idle_attribution.causes.host_launch",
                         "no launch arrows to tell whether the device waited on the host: idle time that no host "
                         "event covers stays unexplained");
  }

  const DiagnosticContext& ctx_;
  const RunModel& m_;
  const DeviceTimeline& d_;
  const StepIdle& idle_;
  const HostBoundGaps& hb_;
  Facts& facts_;
  std::vector<IdleStretch>* stretches_;
  std::vector<Piece> pieces_;
  std::vector<Cover> covers_[kCauseCount];
  Ns total_[kCauseCount] = {};
  uint64_t pieces_of_[kCauseCount] = {};
  std::vector<std::array<Ns, kCauseCount>> per_step_;
  std::vector<Stretch> longest_[kCauseCount];
};

}  // namespace

const char* idle_cause_name(uint8_t cause) { return cause < kCauseCount ? kCauses[cause].name : "unexplained"; }

void diagnose_idle_attribution(const DiagnosticContext& ctx, const StepIdle& idle, const HostBoundGaps& host_bound,
                               Facts& facts, std::vector<IdleStretch>* stretches) {
  Attribution(ctx, idle, host_bound, facts, stretches).run();
}

}  // namespace npu
