// The profiler's own step numbers (step_trace_time.csv, analysis.db StepTraceTime, the Overlap
// Analysis track) for the breakdown to compare with or show (overlap_parts.h).
#include <algorithm>
#include <filesystem>
#include <limits>

#include "base/stats.h"
#include "facts/diagnostics/overlap_parts.h"

namespace npu::breakdown {
namespace {

nlohmann::json step_time_stats(std::vector<Ns> v) {
  if (v.empty()) return nlohmann::json::object();
  std::sort(v.begin(), v.end());
  auto q = [&](double p) { return stats::nearest_rank(v, p); };
  Ns sum = 0;
  for (Ns x : v) sum += x;
  return {{"count", v.size()}, {"min_ns", v.front()}, {"median_ns", q(0.5)},
          {"p90_ns", q(0.9)},  {"max_ns", v.back()},  {"mean_ns", sum / static_cast<Ns>(v.size())}};
}

}  // namespace

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
                                            " missing): the breakdown is the profiler's own " + source +
                                            ", not recomputed");
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

void host_steps(const RunModel& m, const RunFrame& f, Facts& facts) {
  if (f.pseudo() || f.steps().empty() || run_platform(m) != "cpu") return;
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < f.steps().size() && i < kMaxStepDetail; ++i) {
    const Step& s = f.steps()[i];
    list.push_back({{"id", step_json(s.id)},
                    {"start_ns", s.start},
                    {"end_ns", s.end},
                    {"host_dur_ns", s.end - s.start},
                    {"evidence", nlohmann::json::array({evidence_event(m, s.src.loc, "ProfilerStep#" + std::to_string(s.id))})}});
  }
  facts.doc["host_steps"] = std::move(list);
}

}  // namespace npu::breakdown
