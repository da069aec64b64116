// "steps" and "overall": per-step Computing / Communication / Communication(Not Overlapped)
// / Overlapped / Free, recomputed from the device tasks (docs/overlap.md), then compared
// with the profiler's own answer (step_trace_time.csv, else the Overlap Analysis track).
#include <algorithm>
#include <cmath>
#include <map>

#include "core/diagnostics/diagnostics.h"

namespace npu {
namespace {

struct Breakdown {
  Ns computing = 0, communication = 0, comm_not_overlapped = 0, overlapped = 0, free = 0;
  Ns device_time() const { return computing + comm_not_overlapped + free; }
};

nlohmann::json to_json(const Breakdown& b) {
  Ns total = b.device_time();
  return {{"computing_ns", b.computing},
          {"communication_ns", b.communication},
          {"comm_not_overlapped_ns", b.comm_not_overlapped},
          {"overlapped_ns", b.overlapped},
          {"free_ns", b.free},
          {"device_time_ns", total},
          {"free_ratio", total > 0 ? static_cast<double>(b.free) / static_cast<double>(total) : 0.0}};
}

// The profiler's rule: a segment belongs to the step in which it starts.
void add_by_start(const Intervals& segs, const std::vector<Step>& steps, std::vector<Breakdown>& out,
                  Ns Breakdown::*field) {
  for (const auto& s : segs) {
    int i = steps.size() == 1 && steps[0].id == kNoId ? 0 : step_index_at(steps, s.start);
    if (i >= 0) out[static_cast<size_t>(i)].*field += s.length();
  }
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
  Ns scale = std::max(ours.device_time(), theirs.device_time());
  Ns tolerance = std::max<Ns>(1000, scale / 1000);
  return {{"max_abs_diff_ns", worst},
          {"max_rel_diff", scale > 0 ? static_cast<double>(worst) / static_cast<double>(scale) : 0.0},
          {"worst", worst_name},
          {"tolerance_ns", tolerance},
          {"ok", worst <= tolerance}};
}

// The Overlap Analysis track summed per step, as torch_npu does for step_trace_time.csv.
bool overlap_track_breakdown(const RunModel& m, const std::vector<Step>& steps, std::vector<Breakdown>& out) {
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
      add_by_start(Intervals{{s.ts, s.end()}}, steps, out, field);
    }
  }
  for (auto& b : out) b.overlapped = b.communication - b.comm_not_overlapped;
  return found;
}

const StepTraceRow* profiler_row(const RunModel& m, const std::map<int64_t, const StepTraceRow*>& by_step,
                                 int64_t step_id, size_t index, size_t n_steps) {
  if (step_id != kNoId) {
    auto it = by_step.find(step_id);
    if (it != by_step.end()) return it->second;
  }
  // No step ids (no schedule): rows in order.
  if (m.step_trace.size() == n_steps && index < m.step_trace.size() && m.step_trace[index].step == kNoId)
    return &m.step_trace[index];
  return nullptr;
}

Breakdown from_row(const StepTraceRow& r) {
  return {r.computing, r.communication, r.comm_not_overlapped, r.overlapped, r.free};
}

nlohmann::json step_time_stats(std::vector<Ns> v) {
  if (v.empty()) return nlohmann::json::object();
  std::sort(v.begin(), v.end());
  auto q = [&](double p) { return v[static_cast<size_t>(std::floor(p * static_cast<double>(v.size() - 1) + 0.5))]; };
  Ns sum = 0;
  for (Ns x : v) sum += x;
  return {{"count", v.size()},       {"min_ns", v.front()}, {"median_ns", q(0.5)},
          {"p90_ns", q(0.9)},        {"max_ns", v.back()},  {"mean_ns", sum / static_cast<Ns>(v.size())}};
}

}  // namespace

void diagnose_overlap(const DiagnosticContext& ctx, Facts& facts) {
  const RunModel& m = ctx.model;
  const DeviceTimeline& d = ctx.device;
  nlohmann::json steps_json = nlohmann::json::array();
  Breakdown total;

  // Steps: ProfilerStep#N, or one pseudo-step over the whole device window (no schedule).
  std::vector<Step> steps = m.steps;
  bool pseudo = false;
  if (steps.empty() && d.has_device) {
    steps.push_back(Step{kNoId, d.window.start, d.window.end, {}});
    pseudo = true;
  }

  if (d.has_device && !d.compute.empty()) {
    Intervals busy = union_of([&] {
      Intervals all = d.compute;
      all.insert(all.end(), d.comm.begin(), d.comm.end());
      return all;
    }());
    Intervals cno = difference(d.comm, d.compute);
    Intervals free = difference(Intervals{d.window}, busy);
    std::vector<Breakdown> per(steps.size());
    add_by_start(d.compute, steps, per, &Breakdown::computing);
    add_by_start(d.comm, steps, per, &Breakdown::communication);
    add_by_start(cno, steps, per, &Breakdown::comm_not_overlapped);
    add_by_start(free, steps, per, &Breakdown::free);
    for (auto& b : per) b.overlapped = b.communication - b.comm_not_overlapped;

    std::vector<Breakdown> track(steps.size());
    bool have_track = overlap_track_breakdown(m, steps, track);

    std::map<int64_t, const StepTraceRow*> rows_by_step;
    for (const auto& r : m.step_trace)
      if (r.step != kNoId) rows_by_step.emplace(r.step, &r);
    std::vector<Ns> step_times;
    nlohmann::json worst = nullptr;
    double worst_rel = -1;
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& s = steps[i];
      nlohmann::json j = to_json(per[i]);
      j["id"] = s.id == kNoId ? nlohmann::json(nullptr) : nlohmann::json(s.id);
      j["start_ns"] = s.start;
      j["end_ns"] = s.end;
      j["host_dur_ns"] = s.end - s.start;
      j["source"] = "recomputed from device tasks";
      j["evidence"] = nlohmann::json::array();
      if (!pseudo) j["evidence"].push_back(evidence_event(m, s.src.loc, "ProfilerStep#" + std::to_string(s.id)));
      // The profiler's own numbers: step_trace_time.csv first, else the Overlap Analysis track.
      const StepTraceRow* row = profiler_row(m, rows_by_step, s.id, i, steps.size());
      if (row) {
        nlohmann::json p = to_json(from_row(*row));
        p["source"] = "step_trace_time.csv";
        p["evidence"] = nlohmann::json::array({evidence_row(m, "step_trace_time.csv", row->line, "profiler's row")});
        j["profiler"] = p;
        j["agreement"] = agreement(per[i], from_row(*row));
      } else if (have_track) {
        nlohmann::json p = to_json(track[i]);
        p["source"] = "Overlap Analysis track";
        j["profiler"] = p;
        j["agreement"] = agreement(per[i], track[i]);
      }
      if (j.contains("agreement") && j["agreement"]["max_rel_diff"].get<double>() > worst_rel) {
        worst_rel = j["agreement"]["max_rel_diff"].get<double>();
        worst = j["agreement"];
        worst["step"] = j["id"];
      }
      total.computing += per[i].computing;
      total.communication += per[i].communication;
      total.comm_not_overlapped += per[i].comm_not_overlapped;
      total.overlapped += per[i].overlapped;
      total.free += per[i].free;
      step_times.push_back(pseudo ? per[i].device_time() : s.end - s.start);
      steps_json.push_back(j);
    }
    nlohmann::json overall = to_json(total);
    overall["steps"] = steps.size();
    overall["step_time"] = step_time_stats(step_times);
    overall["source"] = "recomputed from device tasks";
    overall["compute_tasks"] = d.compute_slices.size();
    overall["communication_ops"] = d.comm_slices.size();
    const bool gpu = m.meta.platform == "gpu";
    overall["communication_source"] = d.comm_from_ops ? "communication operator threads"
                                      : gpu          ? "NCCL kernels"
                                                     : "device HCCL tasks";
    if (gpu) {
      overall["device"] = d.device;
      overall["other_devices"] = d.other_devices;
      if (!d.other_devices.empty())
        facts.unavailable("overall.other_devices",
                          "the trace holds kernels of several GPUs; the breakdown covers GPU " + std::to_string(d.device) +
                              " (the busiest), the others are listed in overall.other_devices");
    }
    overall["device_window_ns"] = d.window.length();
    if (!worst.is_null()) overall["worst_agreement"] = worst;
    if (!have_track && m.step_trace.empty())
      facts.unavailable("steps.profiler", m.meta.platform == "gpu"
                                              ? "Kineto traces carry no profiler-computed step breakdown to cross-check against"
                                              : "no step_trace_time.csv and no Overlap Analysis track to cross-check against");
    facts.doc["steps"] = steps_json;
    facts.doc["overall"] = overall;
    return;
  }

  // No device timeline: fall back to the profiler's own step breakdown when it exists.
  if (!m.step_trace.empty()) {
    std::vector<Ns> step_times;
    for (const auto& r : m.step_trace) {
      Breakdown b = from_row(r);
      nlohmann::json j = to_json(b);
      j["id"] = r.step == kNoId ? nlohmann::json(nullptr) : nlohmann::json(r.step);
      j["source"] = "step_trace_time.csv";
      j["evidence"] = nlohmann::json::array({evidence_row(m, "step_trace_time.csv", r.line, "profiler's row")});
      steps_json.push_back(j);
      total.computing += b.computing;
      total.communication += b.communication;
      total.comm_not_overlapped += b.comm_not_overlapped;
      total.overlapped += b.overlapped;
      total.free += b.free;
      step_times.push_back(b.device_time());
    }
    nlohmann::json overall = to_json(total);
    overall["steps"] = m.step_trace.size();
    overall["step_time"] = step_time_stats(step_times);
    overall["source"] = "step_trace_time.csv";
    // Where the rows really came from: the CSV, or a database table standing in for it.
    if (const InputFile* f = m.file("step_trace_time.csv"); f && !f->path.empty())
      overall["source_file"] = f->table.empty() ? f->path : f->path + " (table " + f->table + ")";
    facts.doc["steps"] = steps_json;
    facts.doc["overall"] = overall;
    facts.unavailable("steps.recomputed", "no device tasks (trace_view.json missing): the breakdown is the profiler's "
                                          "own step_trace_time.csv, not recomputed");
    return;
  }
  const std::string platform = run_platform(m);
  const char* why =
      platform == "cpu"    ? "CPU-only trace (no GPU kernels, memcpy or memset events): there is no device timeline to break down"
      : platform == "gpu"  ? "GPU runtime calls but no kernel, memcpy or memset events: the trace was captured without "
                             "ProfilerActivity.CUDA (or with the CUPTI range profiler), so there is no device timeline"
      : platform == "mtia" ? "MTIA accelerator events (mtia_*) are not read: there is no device timeline to break down"
                           : "no device tasks in the trace and no step_trace_time.csv";
  facts.unavailable("steps", why);
  facts.unavailable("overall", why);
}

}  // namespace npu
