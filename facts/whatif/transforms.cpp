#include "facts/whatif/transforms.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/stats.h"
#include "base/text.h"
#include "facts/graph_calls.h"
#include "facts/whatif/transform_parts.h"

namespace npu::whatif {
namespace {

constexpr Ns kGraphNodeHostNs = 1000;  // host cost per graph node without a graph launch in the trace
constexpr Ns kGraphGapNs = 100;
constexpr double kMostlyGraphed = 0.9;  // share of the steps' device time in graph replays: nothing left to graph        // kernel after kernel inside a graph without graph replays in the trace
constexpr Ns kRunPauseNs = 1'000'000;  // a longer pause between two launches is not launch overhead
constexpr int kWorkers = 8;            // the workers schedule.dataloader advises
constexpr int64_t kMinBandwidthBytes = 1 << 20;  // pinned copies at least this big measure a link

Intervals slices_of(const RunModel& m, const std::vector<uint32_t>& v) {
  Intervals out;
  for (uint32_t i : v) out.push_back({m.slices[i].ts, m.slices[i].end()});
  return union_of(std::move(out));
}

}  // namespace

bool graph_launch(const RunModel& m, const HostItem& it) {
  if (it.slice == kNone32 || it.kind != ItemKind::Launch || it.tasks < 2) return false;
  const GraphCallKind k = graph_call_kind(m.str(m.slices[it.slice].name));
  return k != GraphCallKind::None && k != GraphCallKind::Capture;
}

namespace {

// The host time of `v` taken out of the lane whose thread ran each slice.
Transform host_time_removed(const char* name, const RunModel& m, const std::vector<uint32_t>& v, const char* what,
                            const Graph& g) {
  Transform t;
  t.name = name;
  std::vector<uint32_t> by_lane[2];
  for (uint32_t i : v) by_lane[g.queue_track.empty() ? 0 : g.queue_track[m.slices[i].track]].push_back(i);
  t.edit.removed = slices_of(m, by_lane[0]);
  t.edit.removed_queue = slices_of(m, by_lane[1]);
  const Ns total = total_length(t.edit.removed) + total_length(t.edit.removed_queue);
  if (total == 0) {
    t.why = std::string("no ") + what + " in the trace";
    t.edit = {};
    return t;
  }
  t.applicable = true;
  t.formula = fmt::format("the host's time in {} removed ({:.3f} ms per step)", what,
                          to_ms(per_graph_step(g, static_cast<double>(total))));
  return t;
}

// A single-process loader given kWorkers workers still waits fetch / kWorkers less the rest of
// its step (the workers load while the step runs); a multi-process one waits half as long.
// `v`: the DataLoader fetch slices (HostCause::Dataloader), `fetches` their union.
Transform dataloader(const RunModel& m, const Graph& g, const std::vector<uint32_t>& v) {
  // The fetches run on the Python thread: lane 0.
  std::vector<uint32_t> python;
  for (uint32_t i : v)
    if (g.queue_track.empty() || !g.queue_track[m.slices[i].track]) python.push_back(i);
  Transform t = host_time_removed("dataloader", m, python, "DataLoader fetches", g);
  if (!t.applicable) return t;
  bool single = false;
  for (uint32_t i : v) single = single || text::contains_nocase(m.str(m.slices[i].name), "singleprocess");
  const Replay without = simulate(g, &t.edit);
  // Per step: the fetch time in its host span, and what is left of it.
  Intervals kept;
  Ns waited = 0;
  for (size_t i = 0; i < g.steps.size(); ++i) {
    const Intervals in_step = clip(t.edit.removed, g.items[g.steps[i].start_mark].s, g.items[g.steps[i].end_mark].s);
    const Ns fetch = total_length(in_step);
    if (fetch == 0) continue;
    const Ns wait = single ? std::max<Ns>(0, fetch / kWorkers - without.step_ns[i]) : fetch / 2;
    waited += wait;
    // Keep the end of each fetch, in proportion.
    for (const Interval& x : in_step) {
      const Ns keep =
          static_cast<Ns>(static_cast<double>(wait) * static_cast<double>(x.length()) / static_cast<double>(fetch));
      if (keep > 0) kept.push_back({x.end - keep, x.end});
    }
  }
  // Fetches outside every step stay removed: no step waits for them.
  t.edit.removed = difference(t.edit.removed, union_of(std::move(kept)));
  const double waited_per_step = per_graph_step(g, static_cast<double>(waited));
  t.formula += single ? fmt::format(
                            "; the single-process loader given {} workers, each step still waits max(0, fetch / {} "
                            "- the rest of the step): {:.3f} ms per step",
                            kWorkers, kWorkers, to_ms(waited_per_step))
                      : fmt::format(
                            "; the loader's workers doubled, each step still waits half its fetch: {:.3f} ms "
                            "per step",
                            to_ms(waited_per_step));
  return t;
}

}  // namespace

void graph_costs(const RunModel& m, const Graph& g, Ns* node_cost, Ns* gap, bool* measured) {
  std::vector<Ns> costs, gaps;
  std::vector<bool> graph(g.items.size(), false);
  for (size_t j = 0; j < g.items.size(); ++j)
    if ((graph[j] = graph_launch(m, g.items[j]))) costs.push_back((g.items[j].e - g.items[j].s) / g.items[j].tasks);
  if (!costs.empty())
    for (size_t k = 0; k + 1 < g.stream_begin.size(); ++k)
      for (uint32_t i = g.stream_begin[k] + 1; i < g.stream_begin[k + 1]; ++i) {
        const DeviceTask &a = g.tasks[i - 1], &b = g.tasks[i];
        if (a.launched && b.launched && a.launcher == b.launcher && graph[a.launcher])
          gaps.push_back(std::max<Ns>(0, b.s - a.end()));
      }
  *measured = !costs.empty() && !gaps.empty();
  // A graph launches no slower per node than an eager launch, and runs kernel after kernel no
  // slower than an eager queue does (a graph's own gaps include its cross-stream waits: the
  // lower quartile is its back-to-back gap).
  *node_cost = stats::nearest_rank_of(std::move(costs), 0.5, kGraphNodeHostNs);
  if (g.launch_cost > 0) *node_cost = std::min(*node_cost, g.launch_cost);
  *gap = stats::nearest_rank_of(std::move(gaps), 0.25, kGraphGapNs);
  if (g.stream_gap > 0) *gap = std::min(*gap, g.stream_gap);
}

uint64_t graph_runs(const Graph& g, const Intervals& fetches, const std::vector<uint8_t>* only, Ns node_cost, Ns gap,
                    Edit& e, uint64_t* launches) {
  auto in_fetch = [&](const HostItem& it) {
    auto x =
        std::upper_bound(fetches.begin(), fetches.end(), it.s, [](Ns v, const Interval& f) { return v < f.start; });
    return x != fetches.begin() && std::prev(x)->end > it.s;
  };
  // Runs of launches inside one step, cut at every host wait, fetch and step boundary, and at a
  // pause of over 1 ms between two launches or a launch call of over 1 ms (host work of its own,
  // such as a lazy module load, not an operator's overhead).
  std::vector<std::vector<uint32_t>> runs(1);
  int32_t step = -1;
  for (uint32_t j = 0; j < g.items.size(); ++j) {
    const HostItem& it = g.items[j];
    if (it.kind == ItemKind::Queue) continue;  // the task queue's own slices: no launch, no wait
    const bool launch = it.kind == ItemKind::Launch && it.tasks > 0 && it.step >= 0 &&
                        (!only || (*only)[static_cast<size_t>(it.step)]) && !in_fetch(it) && it.e - it.s <= kRunPauseNs;
    const bool pause = !runs.back().empty() && it.s - g.items[runs.back().back()].e > kRunPauseNs;
    const bool other_lane = !runs.back().empty() && g.lane_of(runs.back().back()) != g.lane_of(j);
    if (!launch || it.step != step || pause || other_lane) {
      if (!runs.back().empty()) runs.emplace_back();
      step = it.step;
    }
    if (launch) runs.back().push_back(j);
  }
  std::vector<uint32_t> first_of(g.items.size(), kNone32);
  uint64_t captured = 0;
  *launches = 0;
  for (const auto& r : runs) {
    if (r.size() < 2) continue;
    Ns tasks = 0;
    for (uint32_t j : r) tasks += g.items[j].tasks, first_of[j] = r.front();
    const Ns host = node_cost * tasks;
    const Ns from = g.items[r.front()].s + host, to = g.items[r.back()].e;
    if (to > from) (g.lane_of(r.front()) ? e.removed_queue : e.removed).push_back({from, to});
    ++captured;
    *launches += r.size();
  }
  for (uint32_t k = 0; k < g.tasks.size(); ++k) {
    const DeviceTask& d = g.tasks[k];
    if (d.launched && first_of[d.launcher] != kNone32) e.relaunch.push_back({k, first_of[d.launcher], gap});
  }
  return captured;
}

namespace {

// `fetches`: the union of the DataLoader fetches (a run of launches stops at one).
Transform graphs(const RunModel& m, const Graph& g, const Intervals& fetches) {
  Transform t;
  t.name = "graphs";
  // Where graph replays already run most of the steps' device work (a serving engine's captured
  // decode), what is left eager is not what the steps wait on: the replay could not say it.
  Ns in_graphs = 0, in_steps = 0;
  for (const DeviceTask& d : g.tasks) {
    if (d.step < 0) continue;
    in_steps += d.dur;
    if (d.launched && graph_launch(m, g.items[d.launcher])) in_graphs += d.dur;
  }
  if (in_steps > 0 && in_graphs >= kMostlyGraphed * static_cast<double>(in_steps)) {
    t.why = fmt::format("{:.1f}% of the steps' device time already runs in graph replays",
                        100.0 * static_cast<double>(in_graphs) / static_cast<double>(in_steps));
    return t;
  }
  Ns node_cost = 0, gap = 0;
  bool measured = false;
  graph_costs(m, g, &node_cost, &gap, &measured);
  uint64_t launches = 0;
  const uint64_t captured = graph_runs(g, fetches, nullptr, node_cost, gap, t.edit, &launches);
  if (captured == 0) {
    t.why = "no step launches two or more device tasks between host waits";
    return t;
  }
  t.applicable = true;
  t.formula = fmt::format(
      "{} runs of launches between host waits ({} launches, {:.1f} per step) each made one graph launch: host cost "
      "{:.2f} us per graph node, kernels {:.2f} us apart ({})",
      captured, launches, per_graph_step(g, static_cast<double>(launches)), static_cast<double>(node_cost) / 1e3,
      static_cast<double>(gap) / 1e3,
      measured ? "measured in the trace's graph replays" : "defaults: no graph replay in the trace");
  return t;
}

Transform syncs(const Graph& g) {
  Transform t;
  t.name = "syncs";
  std::vector<uint32_t> last(g.steps.size(), kNone32);
  for (uint32_t j = 0; j < g.items.size(); ++j) {
    const HostItem& it = g.items[j];
    if (it.step < 0 || (it.kind != ItemKind::Sync && it.kind != ItemKind::BlockingCopy)) continue;
    if (last[static_cast<size_t>(it.step)] != kNone32) {
      const HostItem& prev = g.items[last[static_cast<size_t>(it.step)]];
      t.edit.unblock.push_back({last[static_cast<size_t>(it.step)], prev.kind == ItemKind::Sync ? 0 : g.launch_cost});
    }
    last[static_cast<size_t>(it.step)] = j;
  }
  if (t.edit.unblock.empty()) {
    t.why = "no step waits for the device more than once";
    return t;
  }
  t.applicable = true;
  t.formula = fmt::format(
      "{} host waits for the device removed ({:.1f} per step; each step's last wait kept): the host "
      "runs ahead and the device's queue stays full",
      t.edit.unblock.size(), per_graph_step(g, static_cast<double>(t.edit.unblock.size())));
  return t;
}

Transform pinned(const RunModel& m, const Graph& g) {
  Transform t;
  t.name = "pinned";
  // Pinned bandwidth per direction, measured from the trace's pinned copies of 1 MiB or more.
  double bytes[2] = {0, 0}, ns[2] = {0, 0};
  std::vector<uint32_t> pageable;
  for (uint32_t k = 0; k < g.tasks.size(); ++k) {
    const DeviceTask& d = g.tasks[k];
    if (d.cls != TaskClass::Other) continue;
    const std::string_view n = m.str(m.slices[d.slice].name);
    if (n.find("Memcpy") == std::string_view::npos) continue;
    if (n.find("Pageable") != std::string_view::npos) {
      pageable.push_back(k);
      continue;
    }
    const int64_t b = m.copy_bytes_of(m.slices[d.slice]);
    if (n.find("Pinned") == std::string_view::npos || b < kMinBandwidthBytes || d.dur <= 0) continue;
    const int dir = n.find("DtoH") != std::string_view::npos ? 1 : 0;
    bytes[dir] += static_cast<double>(b);
    ns[dir] += static_cast<double>(d.dur);
  }
  if (pageable.empty()) {
    t.why = "no copy from or to pageable memory";
    return t;
  }
  auto it = m.meta.config.find("gpu_name");
  const std::string gpu = it != m.meta.config.end() ? it->second : "";
  bool gen5 = false;
  for (const char* g5 : {"H100", "H200", "H800", "H20", "GH200", "B100", "B200", "B300", "GB200", "GB300"})
    gen5 = gen5 || gpu.find(g5) != std::string::npos;
  const double fallback = gen5 ? 50.0 : 25.0;  // GB/s = bytes per ns
  double bw[2];
  std::string source[2];
  for (int dir = 0; dir < 2; ++dir) {
    bw[dir] = ns[dir] > 0 ? bytes[dir] / ns[dir] : fallback;
    source[dir] = ns[dir] > 0 ? "measured from the trace's pinned copies"
                              : fmt::format("{} default for {}", gen5 ? "PCIe Gen5 x16" : "PCIe Gen4 x16",
                                            gpu.empty() ? "an unnamed GPU" : gpu);
  }
  Ns before = 0, after = 0;
  bool dirs[2] = {false, false};
  for (uint32_t k : pageable) {
    const DeviceTask& d = g.tasks[k];
    const int64_t b = m.copy_bytes_of(m.slices[d.slice]);
    if (b < 0) {
      t.why = "the trace does not give the pageable copies' sizes (no \"bytes\" argument)";
      t.edit = {};
      return t;
    }
    const int dir = m.str(m.slices[d.slice].name).find("DtoH") != std::string_view::npos ? 1 : 0;
    dirs[dir] = true;
    const Ns dur = std::min(d.dur, static_cast<Ns>(static_cast<double>(b) / bw[dir]));
    before += d.dur;
    after += dur;
    t.edit.durations.push_back({k, dur});
    if (d.launched) t.edit.unblock.push_back({d.launcher, g.launch_cost});
  }
  t.applicable = true;
  std::string rates;
  for (int dir = 0; dir < 2; ++dir)
    if (dirs[dir])
      rates += fmt::format("{}{} at {:.1f} GB/s ({})", rates.empty() ? "" : ", ", dir ? "DtoH" : "HtoD", bw[dir],
                           source[dir]);
  t.formula = fmt::format(
      "{} pageable copies ({:.3f} ms per step) at pinned bandwidth ({:.3f} ms per step): {}; their "
      "calls no longer block the host (non_blocking=True)",
      pageable.size(), to_ms(per_graph_step(g, static_cast<double>(before))), to_ms(per_graph_step(g, static_cast<double>(after))),
      rates);
  return t;
}

// The fp32 matrix kernels on the CUDA cores (gpu_gemm_precision) long enough to be bound by
// their arithmetic (each kernel name classified once).
std::vector<uint32_t> fp32_gemm_tasks(const RunModel& m, const Graph& g) {
  std::vector<int8_t> fp32(m.strings.size(), -1);
  std::vector<uint32_t> out;
  for (uint32_t k = 0; k < g.tasks.size(); ++k) {
    const DeviceTask& d = g.tasks[k];
    if (d.cls != TaskClass::Compute || d.dur < kComputeBoundGemmNs) continue;
    int8_t& f = fp32[m.slices[d.slice].name];
    if (f < 0) f = gpu_gemm_precision(m.str(m.slices[d.slice].name)) == GemmPrecision::Fp32Simt;
    if (f) out.push_back(k);
  }
  return out;
}

// `gemms` (fp32_gemm_tasks) on the tensor cores at the durations the roofline gives them (`tc`,
// facts/roofline/tensor_cores.h); those without a model keep theirs.
// `bound`: what the replay saves per step with `gemms` taking no time at all (zero_time_saving).
// `gpu`: the run is a GPU's (elsewhere there are no CUDA cores; Ascend's HF32 is compute.hf32's).
Transform tensor_cores(const Graph& g, const std::vector<uint32_t>& gemms, const roofline::TensorCoreTimes& tc,
                       const char* how, Ns bound, bool gpu) {
  Transform t;
  t.name = tc.precision;
  if (!gpu || gemms.empty()) {
    t.why = gpu ? "no fp32 matrix kernel of 10 us or more on the CUDA cores"
                : "not a GPU run: no CUDA cores or tensor cores";
    return t;
  }
  t.detail["bound_ns"] = bound;
  if (!tc.why.empty()) {
    t.why = "no roofline to time them on the tensor cores: " + tc.why;
    return t;
  }
  Ns before = 0, after = 0, missed = 0;
  for (uint32_t k : gemms) {
    const DeviceTask& d = g.tasks[k];
    const Ns dur = tc.new_duration(d.slice);
    if (dur < 0) {
      if (d.step >= 0) missed += d.dur;
      continue;
    }
    t.edit.durations.push_back({k, dur});
    before += d.dur;
    after += dur;
  }
  auto step_ns = [&](Ns v) { return static_cast<Ns>(per_graph_step(g, static_cast<double>(v))); };
  t.detail["kernels_ns"] = step_ns(before);
  t.detail["kernels_after_ns"] = step_ns(after);
  t.detail["not_counted_ns"] = step_ns(missed);
  const std::string missing = tc.not_counted.empty() ? "" : " (over the run: " + tc.not_counted_text() + ")";
  if (t.edit.durations.empty()) {
    t.why = "no fp32 matrix kernel has a roofline model" + missing;
    return t;
  }
  t.applicable = true;
  t.formula = fmt::format(
      "{} fp32 matrix kernels ({:.3f} ms per step) {}, each operator group (op, shapes) at the roofline's "
      "max(FLOPs / ({:.2f} x {:.1f} TFLOP/s), {} / ({:.2f} x {:.2f} TB/s)) of the {} ({} groups{}): {:.3f} ms per "
      "step; not counted (no model), left as they are: {:.3f} ms per step{}",
      t.edit.durations.size(), to_ms(per_graph_step(g, static_cast<double>(before))), how, tc.target,
      tc.peak_flops_per_s / 1e12, tc.precision == "bf16" ? "bytes in 2-byte operands" : "bytes", tc.target,
      tc.bytes_per_s / 1e12, tc.device, tc.groups,
      tc.held ? fmt::format(", {} held at the time a group of the same shapes already in {} takes", tc.held,
                            tc.precision)
              : "",
      to_ms(per_graph_step(g, static_cast<double>(after))), to_ms(per_graph_step(g, static_cast<double>(missed))), missing);
  return t;
}

// What the replay saves per step if `gemms` took no time: no precision saves more (a bound for
// the kernels the roofline has no model of).
Ns zero_time_saving(const Graph& g, const std::vector<uint32_t>& gemms) {
  if (gemms.empty()) return 0;
  Edit e;
  for (uint32_t k : gemms) e.durations.push_back({k, 0});
  const Replay base = simulate(g), without = simulate(g, &e);
  return static_cast<Ns>(per_graph_step(g, static_cast<double>(base.total_ns - without.total_ns)));
}

}  // namespace

const std::vector<std::string>& transform_names() {
  static const std::vector<std::string> names = {
      "dataloader", "graphs",  "syncs",      "pinned",      "tf32",           "bf16",
      "gc",         "compile", "task_queue", "cpu_binding", "async_scheduling", "capture_sizes"};
  return names;
}

bool two_stage_transform(const std::string& name) { return name == "task_queue" || name == "cpu_binding"; }

std::vector<Transform> make_transforms(const RunModel& m, const Graph& g, const Graph& host, const HostCauseSlices& causes,
                                       const std::array<roofline::TensorCoreTimes, 2>& tensor_core_times) {
  std::vector<Transform> out;
  const auto& loader = causes.by_cause[static_cast<int>(HostCause::Dataloader)];
  const Intervals fetches = slices_of(m, loader);
  out.push_back(dataloader(m, g, loader));
  out.push_back(graphs(m, g, fetches));
  out.push_back(syncs(g));
  out.push_back(pinned(m, g));
  const std::vector<uint32_t> gemms = fp32_gemm_tasks(m, g);
  const Ns bound = zero_time_saving(g, gemms);
  const bool gpu = run_platform(m) == "gpu";
  out.push_back(tensor_cores(g, gemms, tensor_core_times[0], "in TF32 on the tensor cores", bound, gpu));
  out.push_back(tensor_cores(g, gemms, tensor_core_times[1], "in bf16 (autocast) on the tensor cores", bound, gpu));
  out.push_back(
      host_time_removed("gc", m, causes.by_cause[static_cast<int>(HostCause::GC)], "Python garbage collection", g));
  out.push_back(host_time_removed("compile", m, causes.by_cause[static_cast<int>(HostCause::Compile)],
                                  "online operator compilation", g));
  out.push_back(task_queue(m, host));
  out.push_back(cpu_binding(m, host, causes));
  out[out.size() - 2].two_stage = out.back().two_stage = true;
  out.push_back(async_scheduling(g));
  out.push_back(capture_sizes(m, g, fetches));
  return out;
}

}  // namespace npu::whatif
