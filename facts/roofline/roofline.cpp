// "roofline": how far each operator group is from what the device can do (docs/facts-roofline.md).
#include <algorithm>
#include <cmath>

#include "base/json_object.h"
#include "facts/roofline/roofline_parts.h"

namespace npu {

namespace roofline {
namespace {

constexpr size_t kTopGroups = 30;
// A group whose instances average under this is bound by launch and tail latency, not by a roof.
constexpr Ns kLatencyNs = 10'000;

struct Group {
  const OpRun* first = nullptr;
  uint64_t count = 0;
  Ns time = 0, longest = -1;
  double flops = 0, bytes = 0;
  const OpRun* longest_run = nullptr;
};

nlohmann::json device_json(const DevicePeaks& p) {
  JsonObject o;
  o.add("known", p.known);
  if (!p.known) return o.add("why", p.why).take();
  nlohmann::json peaks = nlohmann::json::object();
  for (const auto& [prec, v] : p.flops) peaks[prec] = v;
  o.add("id", p.id).add("name", p.name).add("basis", p.basis).add("peak_flops_per_s", peaks);
  o.add("hbm_bytes_per_s", p.bytes_per_s).add("source", p.source).add("note", p.note);
  if (p.clock_mhz > 0) o.add("clock_mhz", p.clock_mhz);
  if (p.cores > 0) o.add("cores", p.cores);
  if (p.l2_bytes > 0) o.add("l2_bytes", p.l2_bytes);
  return o.take();
}

// The roof, the fraction of it and the bound of one group (or the why of their absence).
void judge(const DevicePeaks& dev, const std::string& precision, const Group& g, double target, JsonObject& o) {
  const double secs = static_cast<double>(g.time) * 1e-9;
  const bool bytes_only = g.flops <= 0;
  const double peak = bytes_only ? 0 : dev.peak(precision);
  if (!dev.known || dev.bytes_per_s <= 0 || (!bytes_only && peak <= 0)) {
    o.add("fraction", nullptr)
        .add("why", !dev.known ? dev.why : "no " + (bytes_only ? std::string("memory") : precision) + " peak for the device");
    return;
  }
  const double intensity = bytes_only ? 0 : g.flops / std::max(1.0, g.bytes);
  const double roof = bytes_only ? 0 : std::min(peak, intensity * dev.bytes_per_s);
  double fraction = bytes_only ? g.bytes / secs / dev.bytes_per_s : g.flops / secs / roof;
  const bool above = fraction > 1.0;
  if (above) fraction = 1.0;
  const double ideal = std::max(bytes_only ? 0 : g.flops / peak, g.bytes / dev.bytes_per_s);  // seconds at the roof
  const char* bound = static_cast<double>(g.time) / static_cast<double>(g.count) < kLatencyNs ? "latency"
                      : (bytes_only || intensity * dev.bytes_per_s < peak)                   ? "memory"
                                                                                              : "compute";
  if (!bytes_only) o.add("peak_flops_per_s", peak).add("roof_flops_per_s", roof);
  o.add("fraction", fraction).add("above_roof", above).add("bound", bound);
  o.add("gap_ns", std::max<int64_t>(0, g.time - static_cast<Ns>(std::llround(ideal / target * 1e9))));
}

nlohmann::json group_json(const RunModel& m, const DevicePeaks& dev, const Group& g, double target) {
  const OpRun& r = *g.first;
  const double secs = static_cast<double>(g.time) * 1e-9;
  JsonObject o;
  o.add("op", m.str(r.op)).add("shapes", m.str(r.shapes)).add("dtypes", m.str(r.types));
  if (r.formats != kEmptyStr) o.add("formats", m.str(r.formats));
  o.add("precision", r.precision).add("kind", r.work->kind).add("count", g.count).add("time_ns", g.time);
  o.add("flops", g.flops).add("bytes", g.bytes);
  o.add("intensity", g.flops > 0 ? nlohmann::json(g.flops / std::max(1.0, g.bytes)) : nlohmann::json(nullptr));
  o.add("achieved_flops_per_s", secs > 0 ? g.flops / secs : 0).add("achieved_bytes_per_s", secs > 0 ? g.bytes / secs : 0);
  judge(dev, r.precision, g, target, o);
  const OpRun& l = *g.longest_run;
  const std::string what = "longest instance (" + std::to_string(l.time) + " ns)";
  o.add("evidence", nlohmann::json::array({l.line ? evidence_row(m, Role::KernelDetails, l.line, what)
                                                  : evidence_event_in(m, l.file, l.loc, what + ": its recorded Input Dims")}));
  return o.take();
}

nlohmann::json coverage_json(const Coverage& c) {
  nlohmann::json why = nlohmann::json::array();
  std::vector<std::pair<std::string, Coverage::Reason>> v(c.why.begin(), c.why.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  for (const auto& [reason, r] : v) why.push_back({{"reason", reason}, {"count", r.count}, {"time_ns", r.ns}});
  return {{"compute_ns", c.compute_ns},
          {"modelled_ns", c.modelled_ns},
          {"share", c.compute_ns > 0 ? nlohmann::json(static_cast<double>(c.modelled_ns) / c.compute_ns) : nullptr},
          {"not_modelled", why}};
}

// Per step: hardware FLOPs (padding and recompute included), and the model FLOPs utilisation
// against the BF16 peak and against the peaks of the precisions each group ran in.
nlohmann::json steps_json(const DiagnosticContext& ctx, const DevicePeaks& dev, const std::vector<OpRun>& runs) {
  const auto& steps = ctx.frame.steps();
  const auto& windows = ctx.frame.windows();
  std::vector<double> flops(steps.size(), 0), at_peak(steps.size(), 0);
  std::vector<bool> all_peaks(steps.size(), true);
  for (const OpRun& r : runs) {
    if (r.step < 0 || static_cast<size_t>(r.step) >= steps.size() || r.work->flops <= 0) continue;
    flops[r.step] += r.work->flops;
    const double p = dev.peak(r.precision);
    if (p > 0) at_peak[r.step] += r.work->flops / p;
    else all_peaks[r.step] = false;
  }
  nlohmann::json out = nlohmann::json::array();
  const double bf16 = dev.peak("bf16");
  for (size_t i = 0; i < steps.size() && i < windows.size() && i < kMaxStepDetail; ++i) {
    const double secs = static_cast<double>(windows[i].end - windows[i].start) * 1e-9;
    JsonObject o;
    o.add("step", steps[i].id == kNoId ? nlohmann::json(nullptr) : nlohmann::json(steps[i].id));
    o.add("time_ns", windows[i].end - windows[i].start).add("flops", flops[i]);
    const double mfu = bf16 > 0 && secs > 0 ? flops[i] / secs / bf16 : -1;
    const double used = secs > 0 && all_peaks[i] && dev.known ? at_peak[i] / secs : -1;
    // More work than the peaks allow in the step: the peak (an inferred one) or the shapes do not
    // hold; flagged, never reported as an efficiency over 100%.
    const bool above = mfu > 1 || used > 1;
    o.add("mfu_bf16", mfu >= 0 && !above ? nlohmann::json(mfu) : nlohmann::json(nullptr));
    o.add("mfu_precision_used", used >= 0 && !above ? nlohmann::json(used) : nlohmann::json(nullptr));
    o.add("above_peak", above);
    out.push_back(o.take());
  }
  return out;
}

}  // namespace
}  // namespace roofline

void diagnose_roofline(const DiagnosticContext& ctx, Facts& f) {
  using namespace roofline;
  const RunModel& m = ctx.model;
  const DevicePeaks& dev = ctx.device_peaks();
  if (!ctx.peaks_warning().empty()) f.warn(ctx.peaks_warning());
  WorkCache cache;
  Coverage cov;
  const bool ascend = run_platform(m) == "ascend";
  const std::vector<OpRun> runs = ascend ? ascend_op_runs(ctx, cache, cov) : gpu_op_runs(ctx, cache, cov);
  if (cov.compute_ns == 0) {
    f.unavailable("roofline", ascend ? "no kernel_details rows of AI cores" : "no GPU kernels launched by the run");
    return;
  }
  std::map<std::tuple<StrId, StrId, StrId, StrId, std::string>, Group> groups;
  double total_flops = 0;
  for (const OpRun& r : runs) {
    Group& g = groups[{r.op, r.shapes, r.types, r.formats, r.precision}];
    if (!g.first) g.first = &r;
    ++g.count;
    g.time += r.time;
    g.flops += r.work->flops;
    g.bytes += r.work->bytes;
    total_flops += r.work->flops;
    if (r.time > g.longest) g.longest = r.time, g.longest_run = &r;
  }
  std::vector<const Group*> order;
  for (const auto& [k, g] : groups) order.push_back(&g);
  std::sort(order.begin(), order.end(), [](const Group* a, const Group* b) {
    return a->time != b->time ? a->time > b->time : a->first->loc + a->first->line < b->first->loc + b->first->line;
  });
  nlohmann::json gj = nlohmann::json::array();
  for (size_t i = 0; i < order.size() && i < kTopGroups; ++i)
    gj.push_back(group_json(m, dev, *order[i], ctx.options.roofline_target_fraction));
  f.doc["roofline"] = {{"device", device_json(dev)},
                       {"target_fraction", ctx.options.roofline_target_fraction},
                       {"latency_below_ns", kLatencyNs},
                       {"flops_note", "hardware FLOPs: padding (Ascend C0, Cout to 16) and recompute included"},
                       {"coverage", coverage_json(cov)},
                       {"groups_total", groups.size()},
                       {"groups", gj},
                       {"flops", total_flops},
                       {"steps", steps_json(ctx, dev, runs)}};
}

}  // namespace npu
