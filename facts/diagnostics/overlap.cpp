// "steps" and "overall": per-step Computing / Communication / Communication(Not Overlapped)
// / Overlapped / Free / Bubble / Preparing, recomputed from the device tasks by the rule of the
// profiler that wrote the input (docs/overlap.md), then compared with the profiler's own answer
// (step_trace_time.csv or analysis.db StepTraceTime, else the Overlap Analysis track). Where the
// two disagree beyond tolerance, the step shows the profiler's numbers and keeps ours beside them.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "base/json_object.h"
#include "base/stats.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/diagnostics/step_check.h"
#include "facts/step_windows.h"

namespace npu {
namespace {

struct Breakdown {
  Ns computing = 0, communication = 0, comm_not_overlapped = 0, overlapped = 0, free = 0;
  Ns bubble = 0;         // hcom_receive time (pipeline parallelism); Stage leaves it out
  Ns preparing = kNoId;  // host step start -> the step's first device task; kNoId: unknown
  // GPU runs: memcpy/memset time that no kernel overlaps (device work, not idle); kNoId on
  // Ascend, whose profilers count runtime tasks as Free (the key is then not written).
  Ns copies = kNoId;
  Ns copy_time() const { return copies == kNoId ? 0 : copies; }
  // The device step: its parts are disjoint and add up to it exactly.
  Ns device_time() const { return computing + comm_not_overlapped + copy_time() + free; }
  void add(const Breakdown& o) {
    computing += o.computing, communication += o.communication, comm_not_overlapped += o.comm_not_overlapped;
    overlapped += o.overlapped, free += o.free, bubble += o.bubble;
    if (o.preparing != kNoId) preparing = (preparing == kNoId ? 0 : preparing) + o.preparing;
    if (o.copies != kNoId) copies = copy_time() + o.copies;
  }
};

// The breakdown's members, added to `o` (the caller may add more before taking it).
void add_breakdown(JsonObject& o, const Breakdown& b) {
  Ns total = b.device_time();
  o.add("computing_ns", b.computing)
      .add("communication_ns", b.communication)
      .add("comm_not_overlapped_ns", b.comm_not_overlapped)
      .add("overlapped_ns", b.overlapped)
      .add("free_ns", b.free);
  if (b.copies != kNoId) o.add("copies_ns", b.copies);
  o.add("device_time_ns", total)
      .add("bubble_ns", b.bubble)
      .add("stage_ns", total - b.bubble)
      .add("comm_not_overlapped_excl_receive_ns", b.comm_not_overlapped - b.bubble)
      .add_or_null("preparing_ns", b.preparing, kNoId)
      .add("free_ratio", total > 0 ? static_cast<double>(b.free) / static_cast<double>(total) : 0.0);
}

nlohmann::json to_json(const Breakdown& b) {
  JsonObject o;
  add_breakdown(o, b);
  return o.take();
}

// Tolerance for agreement with the profiler: 0.1% of the step or 1 us, whichever is larger.
nlohmann::json agreement(const Breakdown& ours, const Breakdown& theirs) {
  Ns worst = 0;
  const char* worst_name = "";
  auto check = [&](Ns a, Ns b, const char* name) {
    Ns d = a > b ? a - b : b - a;
    if (d > worst) {
      worst = d;
      worst_name = name;
    }
  };
  check(ours.computing, theirs.computing, "computing");
  check(ours.communication, theirs.communication, "communication");
  check(ours.comm_not_overlapped, theirs.comm_not_overlapped, "comm_not_overlapped");
  check(ours.free, theirs.free, "free");
  if (ours.preparing != kNoId && theirs.preparing != kNoId) check(ours.preparing, theirs.preparing, "preparing");
  Ns scale = std::max(ours.device_time(), theirs.device_time());
  Ns tolerance = std::max<Ns>(1000, scale / 1000);
  JsonObject o;
  o.add("max_abs_diff_ns", worst)
      .add("max_rel_diff", scale > 0 ? static_cast<double>(worst) / static_cast<double>(scale) : 0.0)
      .add("worst", worst_name)
      .add("tolerance_ns", tolerance)
      .add("ok", worst <= tolerance);
  return o.take();
}

bool is_receive(std::string_view op) { return op.rfind("hcom_receive", 0) == 0; }

// The gaps between consecutive busy intervals: the profiler's Free segments.
Intervals gaps(const Intervals& busy) {
  Intervals g;
  for (size_t i = 1; i < busy.size(); ++i) g.push_back({busy[i - 1].end, busy[i].start});
  return g;
}

// Per-step accumulation of segments, plus the first busy start (for Preparing).
struct Accumulator {
  std::vector<Breakdown> per;
  std::vector<Ns> first_busy;
  std::vector<Intervals> free;  // each step's Free segments (handed to the idle attribution)
  explicit Accumulator(size_t n) : per(n), first_busy(n, std::numeric_limits<Ns>::max()), free(n) {}
  void add(size_t i, const Interval& s, Ns Breakdown::*field, bool busy) {
    per[i].*field += s.length();
    if (busy) first_busy[i] = std::min(first_busy[i], s.start);
    if (field == &Breakdown::free) free[i].push_back(s);
  }
};

// torch_npu text export: the Overlap Analysis segments of the whole capture, each in the first
// step whose device window holds its start (not clipped at the boundary).
void capture_segments(const RunModel& m, const DeviceTimeline& d, const std::vector<StepWindow>& w, Accumulator& acc) {
  const StepWindowIndex index(w);
  const Intervals& busy = d.busy;
  // GPU runs: memcpy/memset keep the device window open (docs/facts-gpu.md); Ascend: the
  // profiler's Free lies between compute/communication segments only.
  Intervals free = m.meta.platform == "gpu" ? difference(Intervals{d.window}, busy) : gaps(busy);
  auto assign = [&](const Intervals& segs, Ns Breakdown::*field, bool is_busy) {
    for (const auto& s : segs) {
      int i = index.at(s.start);
      if (i >= 0) acc.add(static_cast<size_t>(i), s, field, is_busy);
    }
  };
  assign(d.compute, &Breakdown::computing, true);
  assign(d.comm, &Breakdown::communication, true);
  assign(difference(d.comm, d.compute), &Breakdown::comm_not_overlapped, false);
  assign(free, &Breakdown::free, false);
  for (uint32_t k : d.comm_slices) {
    const Slice& s = m.slices[k];
    int i = is_receive(m.str(s.name)) ? index.at(s.ts) : -1;
    if (i >= 0) acc.per[static_cast<size_t>(i)].bubble += s.dur;
  }
}

// GPU (Kineto, LaunchedWork): windows follow each other without overlap, and each step's
// parts are the device unions clipped to its window, so every instant is in one step at most.
// Free is the window less every kind of device work (copies included); no Preparing (the
// window starts where the previous step's device work ended, or at its host start).
void launched_work(const DeviceTimeline& d, const std::vector<StepWindow>& w, Accumulator& acc) {
  const Intervals cno = difference(d.comm, d.compute);
  for (size_t i = 0; i < w.size(); ++i) {
    const Ns lo = w[i].start, hi = w[i].end;
    for (const Interval& s : clip(d.compute, lo, hi)) acc.add(i, s, &Breakdown::computing, true);
    for (const Interval& s : clip(d.comm, lo, hi)) acc.add(i, s, &Breakdown::communication, true);
    for (const Interval& s : clip(cno, lo, hi)) acc.add(i, s, &Breakdown::comm_not_overlapped, false);
    acc.per[i].copies = total_length(clip(d.copies, lo, hi));
    for (const Interval& s : difference(Intervals{{lo, hi}}, clip(d.busy, lo, hi)))
      acc.add(i, s, &Breakdown::free, false);
  }
}

// msprof: the first start and last end of every device task (runtime tasks too) per window.
std::vector<Interval> task_extents(const RunModel& m, const std::vector<StepWindow>& w) {
  std::vector<Interval> ext(w.size(), Interval{std::numeric_limits<Ns>::max(), std::numeric_limits<Ns>::min()});
  const StepWindowIndex index(w);
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::Device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& s = m.slices[i];
      int k = index.at(s.ts);
      if (k < 0) continue;
      ext[static_cast<size_t>(k)].start = std::min(ext[static_cast<size_t>(k)].start, s.ts);
      ext[static_cast<size_t>(k)].end = std::max(ext[static_cast<size_t>(k)].end, s.end());
    }
  }
  return ext;
}

// torch_npu SQLite export and msprof: each step's own tasks (those starting in its window)
// merged on their own, so Free lies between the step's tasks only (msprof: between the first
// and last of every task of the window).
void step_tasks(const RunModel& m, const DeviceTimeline& d, const std::vector<StepWindow>& w, Accumulator& acc) {
  const bool msprof = m.meta.step_semantics == StepSemantics::MsprofTasks;
  const std::vector<Interval> extents = msprof ? task_extents(m, w) : std::vector<Interval>{};
  auto raw = [&](const std::vector<uint32_t>& idx) {
    std::vector<std::pair<Interval, uint32_t>> v;
    v.reserve(idx.size());
    for (uint32_t k : idx) v.push_back({{m.slices[k].ts, m.slices[k].end()}, k});
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first.start < b.first.start; });
    return v;
  };
  const auto compute = raw(d.compute_slices), comm = raw(d.comm_slices);
  auto in_window = [](const std::vector<std::pair<Interval, uint32_t>>& v, const StepWindow& sw) {
    auto lo = std::lower_bound(v.begin(), v.end(), sw.start, [](auto& a, Ns t) { return a.first.start < t; });
    auto hi = std::lower_bound(lo, v.end(), sw.end, [](auto& a, Ns t) { return a.first.start < t; });
    return std::make_pair(lo, hi);
  };
  for (size_t i = 0; i < w.size(); ++i) {
    Intervals c, x;
    auto [c0, c1] = in_window(compute, w[i]);
    for (auto it = c0; it != c1; ++it) c.push_back(it->first);
    auto [x0, x1] = in_window(comm, w[i]);
    for (auto it = x0; it != x1; ++it) {
      x.push_back(it->first);
      if (is_receive(m.str(m.slices[it->second].name))) acc.per[i].bubble += it->first.length();
    }
    c = union_of(std::move(c));
    x = union_of(std::move(x));
    Intervals all = c;
    all.insert(all.end(), x.begin(), x.end());
    Intervals busy = union_of(std::move(all));
    for (const auto& s : c) acc.add(i, s, &Breakdown::computing, true);
    for (const auto& s : x) acc.add(i, s, &Breakdown::communication, true);
    acc.per[i].comm_not_overlapped = total_length(difference(x, c));
    for (const Interval& g :
         msprof&& extents[i].start < extents[i].end ? difference(Intervals{extents[i]}, busy) : gaps(busy))
      acc.add(i, g, &Breakdown::free, false);
  }
}

// The profiler's rows that describe this run's device: a table written for several devices
// (analysis.db of a multi-device run) holds one row per device and step.
std::vector<const StepTraceRow*> rows_of_device(const RunModel& m, int32_t device) {
  std::vector<const StepTraceRow*> out;
  for (const auto& r : m.step_trace)
    if (r.device < 0 || device < 0 || r.device == device) out.push_back(&r);
  return out;
}

std::set<int32_t> devices_in_rows(const RunModel& m) {
  std::set<int32_t> d;
  for (const auto& r : m.step_trace)
    if (r.device >= 0) d.insert(r.device);
  return d;
}

const StepTraceRow* profiler_row(const std::vector<const StepTraceRow*>& rows, int64_t step_id, size_t index,
                                 size_t n_steps) {
  if (step_id != kNoId) {
    for (const StepTraceRow* r : rows)
      if (r->step == step_id) return r;
  }
  // No step ids (no schedule): rows in order.
  if (rows.size() == n_steps && index < rows.size() && rows[index]->step == kNoId) return rows[index];
  return nullptr;
}

Breakdown from_row(const StepTraceRow& r) {
  Breakdown b{r.computing, r.communication, r.comm_not_overlapped, r.overlapped, r.free};
  b.bubble = r.bubble == kNoId ? 0 : r.bubble;
  b.preparing = r.preparing;
  return b;
}

std::string profiler_source(const RunModel& m) {
  const InputFile* f = m.file(Role::StepTraceTime);
  return f && !f->table.empty() ? f->table + " (" + std::filesystem::path(f->path).filename().string() + ")"
                                : role_name(Role::StepTraceTime);
}

nlohmann::json step_time_stats(std::vector<Ns> v) {
  if (v.empty()) return nlohmann::json::object();
  std::sort(v.begin(), v.end());
  auto q = [&](double p) { return stats::nearest_rank(v, p); };
  Ns sum = 0;
  for (Ns x : v) sum += x;
  return {{"count", v.size()}, {"min_ns", v.front()}, {"median_ns", q(0.5)},
          {"p90_ns", q(0.9)},  {"max_ns", v.back()},  {"mean_ns", sum / static_cast<Ns>(v.size())}};
}

// The Overlap Analysis track summed per step by the same windows, when no table gives the
// profiler's numbers.
bool overlap_track_breakdown(const RunModel& m, const std::vector<StepWindow>& w, std::vector<Breakdown>& out) {
  const StepWindowIndex index(w);
  std::vector<Ns> first_busy(w.size(), std::numeric_limits<Ns>::max());
  bool found = false;
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::Overlap) continue;
    auto r = m.track_slices[t];
    for (uint32_t i = r.begin; i < r.end; ++i) {
      const Slice& s = m.slices[i];
      std::string_view n = m.str(s.name);
      Ns Breakdown::*field = nullptr;
      if (n == "Computing") field = &Breakdown::computing;
      else if (n == "Communication") field = &Breakdown::communication;
      else if (n == "Communication(Not Overlapped)") field = &Breakdown::comm_not_overlapped;
      else if (n == "Free") field = &Breakdown::free;
      if (!field) continue;
      found = true;
      int k = index.at(s.ts);
      if (k < 0) continue;
      out[static_cast<size_t>(k)].*field += s.dur;
      if (field == &Breakdown::computing || field == &Breakdown::communication)
        first_busy[static_cast<size_t>(k)] = std::min(first_busy[static_cast<size_t>(k)], s.ts);
    }
  }
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].overlapped = out[k].communication - out[k].comm_not_overlapped;
    if (first_busy[k] != std::numeric_limits<Ns>::max() && w[k].launched_tasks > 0)
      out[k].preparing = first_busy[k] - w[k].host_start;
  }
  return found;
}

void put_overall(Facts& facts, const Breakdown& total, size_t n_steps, std::vector<Ns> device_times,
                 std::vector<Ns> host_times, nlohmann::json extra) {
  nlohmann::json overall = to_json(total);
  overall["steps"] = n_steps;
  overall["step_time"] = step_time_stats(std::move(device_times));
  if (!host_times.empty()) overall["host_step_time"] = step_time_stats(std::move(host_times));
  overall.update(extra);
  facts.doc["overall"] = overall;
}

// No device timeline: the profiler's own rows are the breakdown. A table of several devices
// (analysis.db of a multi-device run) is several devices, each with its steps: the steps
// shown are those of the run's device (else the lowest), the others are listed per device.
void from_profiler_rows(const RunModel& m, Facts& facts, StepIdle* idle) {
  const std::set<int32_t> devices = devices_in_rows(m);
  int32_t shown = m.meta.device;
  if (devices.size() > 1 && !devices.count(shown)) shown = *devices.begin();
  nlohmann::json steps_json = nlohmann::json::array();
  Breakdown total;
  std::vector<Ns> device_times;
  const std::string source = profiler_source(m);
  size_t n_steps = 0;
  for (const StepTraceRow* r : rows_of_device(m, devices.size() > 1 ? shown : -1)) {
    Breakdown b = from_row(*r);
    total.add(b);
    device_times.push_back(b.device_time());
    if (idle) idle->shown_free.push_back(b.free);
    if (n_steps++ >= kMaxStepDetail) continue;
    nlohmann::json j = to_json(b);
    j["id"] = r->step == kNoId ? nlohmann::json(nullptr) : nlohmann::json(r->step);
    if (r->device >= 0) j["device"] = r->device;
    j["source"] = source;
    j["evidence"] = nlohmann::json::array({evidence_row(m, Role::StepTraceTime, r->line, "profiler's row")});
    steps_json.push_back(j);
  }
  if (idle) idle->shown_device = device_times;
  nlohmann::json extra = {{"source", source}};
  if (const InputFile* f = m.file(Role::StepTraceTime); f && !f->path.empty())
    extra["source_file"] = f->table.empty() ? f->path : f->path + " (table " + f->table + ")";
  if (devices.size() > 1) {
    extra["device"] = shown;
    nlohmann::json per = nlohmann::json::array();
    for (int32_t dev : devices) {
      Breakdown t;
      size_t n = 0;
      for (const StepTraceRow* r : rows_of_device(m, dev)) t.add(from_row(*r)), ++n;
      nlohmann::json j = to_json(t);
      j["device"] = dev;
      j["steps"] = n;
      per.push_back(j);
    }
    extra["devices"] = per;
    facts.unavailable("overall.devices", "the profiler's table holds " + std::to_string(devices.size()) +
                                             " devices; steps and overall show device " + std::to_string(shown) +
                                             ", every device is in overall.devices");
  }
  facts.doc["steps"] = steps_json;
  put_overall(facts, total, n_steps, std::move(device_times), {}, extra);
  facts.unavailable("steps.recomputed", "no device tasks (" + std::string(role_name(Role::Trace)) +
                                            " missing): the breakdown is the profiler's "
                                            "own " +
                                            source + ", not recomputed");
}

// No device timeline and no profiler rows: the facts say why (a CPU-only Kineto trace, a GPU
// trace captured without CUDA activities, ...).
void no_breakdown(const RunModel& m, Facts& facts) {
  const std::string platform = run_platform(m);
  const std::string why =
      platform == "cpu"
          ? "CPU-only trace (no GPU kernels, memcpy or memset events): there is no device timeline to break down"
      : platform == "gpu"  ? "GPU runtime calls but no kernel, memcpy or memset events: the trace was captured without "
                             "ProfilerActivity.CUDA (or with the CUPTI range profiler), so there is no device timeline"
      : platform == "mtia" ? "MTIA accelerator events (mtia_*) are not read: there is no device timeline to break down"
                           : "no device tasks in the trace and no " + std::string(role_name(Role::StepTraceTime));
  facts.unavailable("steps", why);
  facts.unavailable("overall", why);
}

// The steps of the breakdown and the device window of each.
struct StepFrame {
  std::vector<Step> steps;
  std::vector<StepWindow> windows;
  bool pseudo = false;    // no steps: one pseudo-step over the whole device window
  bool launched = false;  // GPU: a step is the device work it launched
};

StepFrame step_frame(const DiagnosticContext& ctx) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;
  StepFrame f;
  // Steps: ProfilerStep#N (or msprof's Iteration N), or one pseudo-step over the whole device
  // window (no schedule).
  f.steps = m.steps;
  f.pseudo = f.steps.empty();
  if (f.pseudo) f.steps.push_back(Step{kNoId, d.window.start, d.window.end, {}});
  f.launched = m.meta.step_semantics == StepSemantics::LaunchedWork;
  if (!f.pseudo) f.windows = ctx.step_windows;
  // No steps on a GPU: the one pseudo-step is the device window (clipped windows need an end).
  else if (f.launched) f.windows = {StepWindow{d.window.start, d.window.end}};
  else {
    f.windows = device_step_windows(m, f.steps);
    f.windows[0].end = std::numeric_limits<Ns>::max();
  }
  return f;
}

// Our breakdown of each step, recomputed from the device tasks by the profiler's rule; the Free
// segments and Preparing intervals go to `idle` (the idle attribution reads them).
std::vector<Breakdown> recompute(const DiagnosticContext& ctx, const StepFrame& f, StepIdle* idle) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;
  const std::vector<Step>& steps = f.steps;
  const std::vector<StepWindow>& windows = f.windows;
  const bool pseudo = f.pseudo, launched = f.launched;
  Accumulator acc(steps.size());
  if (launched) launched_work(d, windows, acc);
  else if (m.meta.step_semantics == StepSemantics::CaptureSegments) capture_segments(m, d, windows, acc);
  else step_tasks(m, d, windows, acc);
  std::vector<Breakdown>& per = acc.per;
  for (size_t i = 0; i < per.size(); ++i) {
    per[i].overlapped = per[i].communication - per[i].comm_not_overlapped;
    // Preparing needs a host step and the device work it launched (GPU windows have none).
    if (!pseudo && !launched && windows[i].launched_tasks > 0 && acc.first_busy[i] != std::numeric_limits<Ns>::max())
      per[i].preparing = acc.first_busy[i] - windows[i].host_start;
  }
  if (idle) {
    idle->steps = steps;
    idle->free = std::move(acc.free);
    idle->preparing.assign(steps.size(), Interval{});
    for (size_t i = 0; i < per.size(); ++i)
      if (per[i].preparing != kNoId) idle->preparing[i] = {windows[i].host_start, acc.first_busy[i]};
  }
  return std::move(acc.per);
}

// The steps as shown, with the totals over them and the worst agreement with the profiler.
struct StepsShown {
  nlohmann::json steps_json;
  Breakdown total;
  std::vector<Ns> device_times, host_times, free_times;
  nlohmann::json worst;
  size_t shown_from_profiler = 0;
};

// Each step as shown: ours, or the profiler's own numbers (its table, else the Overlap Analysis
// track) where ours differ beyond tolerance, with ours beside them.
StepsShown steps_shown(const DiagnosticContext& ctx, const StepFrame& f, const std::vector<Breakdown>& per,
                       const std::vector<Breakdown>& track, bool have_track) {
  const RunModel& m = ctx.model;
  const std::vector<Step>& steps = f.steps;
  const std::vector<StepWindow>& windows = f.windows;
  const bool pseudo = f.pseudo, launched = f.launched;
  const auto rows = rows_of_device(m, devices_in_rows(m).size() > 1 ? m.meta.device : -1);
  const std::string row_source = profiler_source(m);

  nlohmann::json steps_json = nlohmann::json::array();
  Breakdown total;
  std::vector<Ns> device_times, host_times, free_times;
  nlohmann::json worst = nullptr;
  double worst_rel = -1;
  size_t shown_from_profiler = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    Breakdown shown = per[i];
    nlohmann::json profiler, agree;
    if (const StepTraceRow* row = profiler_row(rows, s.id, i, steps.size())) {
      JsonObject p;
      add_breakdown(p, from_row(*row));
      p.add("source", row_source);
      p.add("evidence", nlohmann::json::array({evidence_row(m, Role::StepTraceTime, row->line, "profiler's row")}));
      profiler = p.take();
      agree = agreement(per[i], from_row(*row));
      if (!agree["ok"].get<bool>()) shown = from_row(*row);
    } else if (have_track) {
      profiler = to_json(track[i]);
      profiler["source"] = "Overlap Analysis track";
      agree = agreement(per[i], track[i]);
      if (!agree["ok"].get<bool>()) shown = track[i];
    }
    const bool from_profiler = !profiler.is_null() && !agree["ok"].get<bool>();
    const bool host_dur = !pseudo && m.meta.step_semantics != StepSemantics::MsprofTasks;
    if (from_profiler) ++shown_from_profiler;
    if (!profiler.is_null() && agree["max_rel_diff"].get<double>() > worst_rel) {
      worst_rel = agree["max_rel_diff"].get<double>();
      worst = agree;
      worst["step"] = s.id == kNoId ? nlohmann::json(nullptr) : nlohmann::json(s.id);
    }
    total.add(shown);
    device_times.push_back(shown.device_time());
    free_times.push_back(shown.free);
    if (host_dur) host_times.push_back(s.end - s.start);
    if (i >= kMaxStepDetail) continue;  // counted above, not listed
    JsonObject o;
    add_breakdown(o, shown);
    o.add_or_null("id", s.id, kNoId).add("start_ns", s.start).add("end_ns", s.end);
    o.add("host_dur_ns", host_dur ? nlohmann::json(s.end - s.start) : nlohmann::json(nullptr));
    JsonObject window;
    window.add("start_ns", windows[i].start)
        .add("end_ns", pseudo ? nlohmann::json(nullptr) : nlohmann::json(windows[i].end))
        .add("launched_tasks", windows[i].launched_tasks);
    if (launched) window.add_or_null("launched_end_ns", windows[i].launched_end, kNoId);
    o.add("device_window", window.take());
    // Rules and reports read the numbers shown: the profiler's own where ours differ, with ours beside them.
    o.add("source", from_profiler ? profiler["source"] : nlohmann::json("recomputed from device tasks"));
    nlohmann::json evidence = nlohmann::json::array();
    if (!pseudo) evidence.push_back(evidence_event(m, s.src.loc, "ProfilerStep#" + std::to_string(s.id)));
    o.add("evidence", std::move(evidence));
    if (!profiler.is_null()) {
      if (from_profiler) o.add("recomputed", to_json(per[i]));
      o.add("profiler", std::move(profiler)).add("agreement", std::move(agree));
    }
    steps_json.push_back(o.take());  // a long capture has tens of thousands of steps: no copies
  }
  return {std::move(steps_json),   total,
          std::move(device_times), std::move(host_times),
          std::move(free_times),   std::move(worst),
          shown_from_profiler};
}

// The members of "overall" beside the breakdown: where the numbers come from, what a step is,
// the device, the self-check and the worst agreement.
nlohmann::json overall_extra(const DiagnosticContext& ctx, const StepFrame& f, const std::vector<Breakdown>& per,
                             const StepsShown& shown, bool have_track, Facts& facts) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;
  const std::vector<Step>& steps = f.steps;
  const std::vector<StepWindow>& windows = f.windows;
  const bool pseudo = f.pseudo, launched = f.launched;
  const nlohmann::json& worst = shown.worst;
  const size_t shown_from_profiler = shown.shown_from_profiler;
  nlohmann::json extra;
  extra["source"] = shown_from_profiler == 0 ? "recomputed from device tasks"
                    : shown_from_profiler == steps.size()
                        ? "profiler's own numbers (the recomputation differs beyond tolerance)"
                        : "recomputed from device tasks, the profiler's own numbers on " +
                              std::to_string(shown_from_profiler) + " steps where they differ";
  extra["step_semantics"] = to_string(m.meta.step_semantics);
  // What a step's time is, for compare and gate: the device step (GPU: until the work the step
  // launched ends), or the host ProfilerStep span where every step has one (Ascend).
  if (launched) extra["step_time_rule"] = "launched_work";
  extra["compute_tasks"] = d.compute_slices.size();
  extra["communication_ops"] = d.comm_slices.size();
  const bool gpu = m.meta.platform == "gpu";
  extra["communication_source"] = d.comm_from_ops ? "communication operator threads"
                                  : gpu           ? "NCCL kernels"
                                                  : "device HCCL tasks";
  if (gpu) {
    extra["device"] = d.device;
    extra["other_devices"] = d.other_devices;
    if (!d.other_devices.empty())
      facts.unavailable("overall.other_devices", "the trace holds kernels of several GPUs; the breakdown covers GPU " +
                                                     std::to_string(d.device) +
                                                     " (the busiest), the others are listed in overall.other_devices");
  }
  extra["device_window_ns"] = d.window.length();
  if (launched && !pseudo) {
    std::vector<StepParts> parts;
    for (const Breakdown& b : per) parts.push_back({b.device_time()});
    extra["self_check"] = launched_work_self_check(m, ctx.launched, windows, parts);
  }
  if (!worst.is_null()) extra["worst_agreement"] = worst;
  if (!have_track && m.step_trace.empty())
    facts.unavailable("steps.profiler",
                      gpu ? "Kineto traces carry no profiler-computed step breakdown to cross-check against"
                          : "no " + std::string(role_name(Role::StepTraceTime)) +
                                " and no Overlap Analysis track to cross-check against");
  return extra;
}

}  // namespace

void diagnose_overlap(const DiagnosticContext& ctx, Facts& facts, StepIdle* idle) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;

  if (!(d.has_device && !d.compute.empty())) {
    if (!m.step_trace.empty()) return from_profiler_rows(m, facts, idle);
    return no_breakdown(m, facts);
  }
  const StepFrame f = step_frame(ctx);
  const std::vector<Breakdown> per = recompute(ctx, f, idle);
  std::vector<Breakdown> track(f.steps.size());
  const bool have_track = overlap_track_breakdown(m, f.windows, track);
  StepsShown shown = steps_shown(ctx, f, per, track, have_track);
  const nlohmann::json extra = overall_extra(ctx, f, per, shown, have_track, facts);
  facts.doc["steps"] = std::move(shown.steps_json);
  if (idle) {
    idle->shown_device = shown.device_times;
    idle->shown_free = std::move(shown.free_times);
  }
  put_overall(facts, shown.total, f.steps.size(), std::move(shown.device_times), std::move(shown.host_times), extra);
}

}  // namespace npu
