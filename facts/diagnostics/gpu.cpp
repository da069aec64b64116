// "gpu": what only a GPU (Kineto) trace shows. Kernel sizes (many small kernels make a run
// launch-bound), host synchronisations (cudaDeviceSynchronize, cudaStreamSynchronize,
// cudaEventSynchronize and their HIP twins), device-to-host copies the host waited for (the
// `.item()` / `.cpu()` pattern), pageable host memory in copies (no pin_memory), and memcpy /
// memset time, allocator peaks, collectives by name. See docs/facts-gpu.md.
//
// Kernels are those of the device the device timeline covers (DeviceTimeline::device); a
// kernel, copy or sync belongs to the step in which it starts (host ProfilerStep#N spans).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <fmt/format.h>

#include "base/stats.h"
#include "base/text.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/diagnostics/gpu_memory.h"
#include "facts/diagnostics/gpu_step_counts.h"
#include "facts/harness.h"

namespace npu {
namespace {

using nlohmann::json;

// A kernel shorter than this costs less than launching it (a CUDA launch is ~3-10 us of host
// time), so a step made of such kernels cannot keep the GPU busy from a Python host.
constexpr Ns kSmallKernelNs = 10'000;
// Items listed per list (the longest / the first); all are counted.
constexpr size_t kListed = 5;

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

struct Copy {
  uint32_t slice = 0;       // the device memcpy
  uint32_t host = kNone32;  // the runtime call that launched it
  uint32_t wait = kNone32;  // the call the host blocked in until the copy ended (launch or sync)
};

class GpuFacts {
 public:
  GpuFacts(const DiagnosticContext& ctx, Facts& facts)
      : m_(ctx.model), d_(ctx.device), frame_(ctx.frame), py_(ctx.python), harness_(ctx.frame, ctx.python),
        facts_(facts) {}

  void run() {
    // Without ProfilerStep#N the whole trace is the frame's one pseudo-step (id null), as in "steps".
    per_step_.resize(std::max<size_t>(1, frame_.steps().size()));
    scan_device();
    scan_syncs();
    json out = json::object();
    out["device"] = d_.device;
    out["runtime"] = m_.meta.gpu_runtime.empty() ? json(nullptr) : json(m_.meta.gpu_runtime);
    out["thresholds"] = {{"small_kernel_ns", kSmallKernelNs}};
    out["kernels"] = kernels_json();
    out["graph_replay"] = graph_replay_json();
    out["gemm"] = gemm_json();
    out["syncs"] = syncs_json();
    out["blocking_d2h"] = copies_json(blocking_, "device-to-host copy the host waited for", true);
    out["pageable_copies"] = copies_json(pageable_, "copy from/to pageable host memory", false);
    out["memcpy"] = memcpy_json();
    out["memset"] = {{"count", memset_n_}, {"total_ns", memset_ns_}};
    if (json memory = gpu_allocator_peaks(frame_, d_.device, facts_); !memory.is_null())
      out["memory"] = std::move(memory);
    out["collectives"] = collectives_json();
    json steps = json::array();
    for (size_t i = 0; i < per_step_.size() && i < kMaxStepDetail; ++i) {
      steps.push_back(step_counts_json(
          per_step_[i], frame_.pseudo() || i >= frame_.steps().size() ? json(nullptr) : json(m_.steps[i].id)));
    }
    out["steps"] = std::move(steps);
    facts_.doc["gpu"] = std::move(out);
  }

 private:
  // The Kineto category of a cat string, looked up once per distinct string (host tracks
  // hold millions of slices and a handful of categories).
  KinetoCat cat(StrId c) const {
    if (cat_cache_.empty()) cat_cache_.assign(m_.strings.size(), -1);
    int8_t& v = cat_cache_[c];
    if (v < 0) v = static_cast<int8_t>(kineto_category(m_.str(c)));
    return static_cast<KinetoCat>(v);
  }

  // A host event's step: the host span that holds it; a device event's: the step on the device
  // (GPU steps last until the work they launched ends: docs/overlap.md). The frame decides both.
  StepCounts* step_at(Ns ts) { return counts_of(frame_.step_of_host(ts)); }
  StepCounts* device_step_at(Ns ts) { return counts_of(frame_.step_of_device(ts)); }
  json step_at_host(Ns ts) const { return step_json(frame_.step_id_of_host(ts)); }  // its id, or null
  StepCounts* counts_of(int i) { return i >= 0 ? &per_step_[static_cast<size_t>(i)] : nullptr; }

  // The first runtime call on the launching thread after `launch`, when it is a sync that
  // ends at or after `until`: the host blocked there for the copy (`.item()` is a
  // cudaMemcpyAsync followed by cudaStreamSynchronize).
  uint32_t blocking_sync_after(uint32_t launch, Ns until) const {
    const Slice& l = m_.slices[launch];
    auto r = m_.track_slices[l.track];
    int budget = 64;  // cpu_op slices may sit between the two calls; stay local
    for (uint32_t i = launch + 1; i < r.end && budget-- > 0; ++i) {
      const Slice& s = m_.slices[i];
      if (s.ts < l.end() || cat(s.cat) != KinetoCat::HostRuntime) continue;
      if (gpu_sync_kind(m_.str(s.name)) == GpuSync::None) return kNone32;
      return s.end() >= until ? i : kNone32;
    }
    return kNone32;
  }

  void scan_device() {
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      const Track& tr = m_.tracks[t];
      if (tr.kind != TrackKind::Device || tr.device != d_.device) continue;
      for (uint32_t i = m_.track_slices[t].begin; i < m_.track_slices[t].end; ++i) {
        const Slice& s = m_.slices[i];
        KinetoCat k = cat(s.cat);
        StepCounts* st = device_step_at(s.ts);
        if (k == KinetoCat::GpuKernel) {
          kernel_durs_.push_back(s.dur);
          kernel_ns_ += s.dur;
          if (is_nccl_kernel_name(m_.str(s.name))) {
            ++nccl_n_;
            Collective& c = collectives_[s.task_type];
            ++c.kernels;
            c.kernel_ns += s.dur;
            if (s.dur > c.longest_ns) {
              c.longest_ns = s.dur;
              c.longest = i;
            }
          }
          bool small = s.dur < kSmallKernelNs;
          if (small) {
            ++small_n_;
            small_ns_ += s.dur;
          }
          count_graph_kernel(s, small);
          count_gemm(s, i, st);
          if (st) {
            ++st->kernels;
            st->kernel_ns += s.dur;
            st->small_kernels += small;
            if (small) st->small_kernel_ns += s.dur;
          }
        } else if (k == KinetoCat::GpuMemset) {
          ++memset_n_;
          memset_ns_ += s.dur;
        } else if (k == KinetoCat::GpuMemcpy) {
          scan_copy(i, st);
        }
      }
    }
  }

  void scan_copy(uint32_t i, StepCounts* st) {
    const Slice& s = m_.slices[i];
    std::string_view n = m_.str(s.name);
    const char* dir = contains(n, "HtoD")   ? "htod"
                      : contains(n, "DtoH") ? "dtoh"
                      : contains(n, "DtoD") ? "dtod"
                                            : "other";
    auto& bucket = memcpy_by_dir_[dir];
    ++bucket.first;
    bucket.second += s.dur;
    ++memcpy_n_;
    memcpy_ns_ += s.dur;
    Copy c{i};
    auto h = m_.correlation.by_id.find(s.corr);
    if (s.corr != kNoId && h != m_.correlation.by_id.end()) c.host = h->second;
    if (contains(n, "Pageable")) {
      pageable_.push_back(c);
      if (st) {
        ++st->pageable_copies;
        st->pageable_ns += s.dur;
      }
    }
    if (std::string_view(dir) == "dtoh" && c.host != kNone32) {
      const Slice& launch = m_.slices[c.host];
      if (launch.end() >= s.end()) c.wait = c.host;  // a synchronous copy call
      else c.wait = blocking_sync_after(c.host, s.end());
      if (c.wait != kNone32) {
        blocking_.push_back(c);
        StepCounts* hs = step_at(launch.ts);
        if (hs) {
          ++hs->blocking_d2h;
          hs->blocking_d2h_wait_ns += wait_ns(c);
          // One sync point each: the sync call the copy waited in (counted with the syncs,
          // which add its duration), or the copy call itself when it waited and no sync call
          // follows it at once (a `.cpu()` of pageable memory blocks in the copy and then syncs:
          // one point). The point's host time starts at the copy's launch.
          const uint32_t sync = c.wait != c.host ? c.wait : blocking_sync_after(c.host, s.end());
          if (sync != kNone32) {
            hs->sync_wait_ns += m_.slices[sync].ts - launch.ts;
          } else {
            ++hs->sync_points;
            hs->sync_wait_ns += launch.dur;
          }
        }
      }
    }
  }

  // A kernel replayed from a CUDA/HIP graph: its correlation id is the one of a
  // cudaGraphLaunch / hipGraphLaunch call, which launched the whole graph at once. Such kernels
  // cost no launch each, so launch-overhead advice (fewer, larger kernels; torch.compile) does
  // not apply to them; CUDA graphs are already the fix for it.
  void count_graph_kernel(const Slice& s, bool small) {
    if (s.corr == kNoId) return;
    auto h = m_.correlation.by_id.find(s.corr);
    if (h == m_.correlation.by_id.end() || !contains(m_.str(m_.slices[h->second].name), "GraphLaunch")) return;
    auto [it, first] = graph_launch_kernels_.try_emplace(h->second, 0);
    ++it->second;
    ++graph_kernels_;
    graph_kernel_ns_ += s.dur;
    graph_small_ += small;
  }

  // Matrix kernels by arithmetic (gpu_gemm_precision): fp32 on the CUDA cores, or tensor cores.
  // The trace totals count every kernel; the step's share only those in its window (a trace also
  // holds the tail of the step before the first one it records: the GPU ran behind the host).
  void count_gemm(const Slice& s, uint32_t i, StepCounts* st) {
    // Kernel names repeat millions of times: each is classified once.
    if (gemm_cache_.empty()) gemm_cache_.assign(m_.strings.size(), -1);
    int8_t& c = gemm_cache_[s.name];
    if (c < 0) c = static_cast<int8_t>(gpu_gemm_precision(m_.str(s.name)));
    const auto p = static_cast<GemmPrecision>(c);
    if (p == GemmPrecision::TensorCore) {
      ++tensor_n_;
      tensor_ns_ += s.dur;
      if (st) st->tensor_core_ns += s.dur;
    } else if (p == GemmPrecision::Fp32Simt && s.dur >= kComputeBoundGemmNs) {
      fp32_[s.name].add(s, i);
      if (st) st->fp32_simt_ns += s.dur;
    }
  }

  json gemm_json() const {
    const ByName fp32 = by_time(fp32_);
    json by = json::array();
    for (const auto& [name, g] : fp32.names) {
      if (by.size() == 3) break;
      by.push_back(
          {{"name", m_.str(name)},
           {"count", g.count},
           {"total_ns", g.total},
           {"evidence", json::array({evidence_event(m_, m_.slices[g.longest].loc,
                                                    "longest fp32 matrix kernel (" + text::us(g.max) + ")")})}});
    }
    return {{"fp32_simt_kernels", fp32.count},
            {"fp32_simt_ns", fp32.total},
            {"tensor_core_kernels", tensor_n_},
            {"tensor_core_ns", tensor_ns_},
            {"fp32_by_name", std::move(by)}};
  }

  json graph_replay_json() const {
    json j = {
        {"launches", graph_launch_kernels_.size()},
        {"kernels", graph_kernels_},
        {"kernel_ns", graph_kernel_ns_},
        {"small_kernels", graph_small_},
        {"share_of_kernels",
         kernel_durs_.empty() ? 0.0 : static_cast<double>(graph_kernels_) / static_cast<double>(kernel_durs_.size())}};
    json ev = json::array();
    for (const auto& [launch, kernels] : graph_launch_kernels_) {
      if (ev.size() == 3) break;
      ev.push_back(evidence_event(m_, m_.slices[launch].loc,
                                  "graph launch that replayed " + std::to_string(kernels) + " kernels"));
    }
    j["evidence"] = std::move(ev);
    return j;
  }

  // Host time spent waiting for the copy: from the launch call's start to the end of the
  // call it blocked in.
  Ns wait_ns(const Copy& c) const { return m_.slices[c.wait].end() - m_.slices[c.host].ts; }

  void scan_syncs() {
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      if (m_.tracks[t].kind == TrackKind::Device) continue;
      for (uint32_t i = m_.track_slices[t].begin; i < m_.track_slices[t].end; ++i) {
        const Slice& s = m_.slices[i];
        if (s.task_type != kEmptyStr && m_.str(s.name) == "record_param_comms") ++collectives_[s.task_type].host_calls;
        if (cat(s.cat) != KinetoCat::HostRuntime) continue;
        if (gpu_sync_kind(m_.str(s.name)) == GpuSync::None) continue;
        syncs_[s.name].add(s, i);
        const CallSite site = py_.available() ? py_.at(i) : CallSite{};
        const Harness h = harness_.of(i, site);
        sync_sites_.add(m_, site, s.dur, to_string(h));
        if (StepCounts* st = step_at(s.ts)) {
          if (h != Harness::None) ++st->harness_sync_points, st->harness_wait_ns += s.dur;
          ++st->sync_calls;
          st->sync_ns += s.dur;
          ++st->sync_points;
          st->sync_wait_ns += s.dur;
        }
      }
    }
  }

  json kernels_json() {
    json j = json::object();
    j["count"] = kernel_durs_.size();
    j["nccl"] = nccl_n_;
    j["total_ns"] = kernel_ns_;
    j["small"] = small_n_;
    j["small_ns"] = small_ns_;
    j["small_share_of_count"] =
        kernel_durs_.empty() ? 0.0 : static_cast<double>(small_n_) / static_cast<double>(kernel_durs_.size());
    j["small_share_of_time"] = kernel_ns_ > 0 ? static_cast<double>(small_ns_) / static_cast<double>(kernel_ns_) : 0.0;
    if (kernel_durs_.empty()) {
      j["median_ns"] = nullptr;
      j["p90_ns"] = nullptr;
      return j;
    }
    std::sort(kernel_durs_.begin(), kernel_durs_.end());
    auto q = [&](double p) { return stats::nearest_rank(kernel_durs_, p); };
    j["median_ns"] = q(0.5);
    j["p90_ns"] = q(0.9);
    return j;
  }

  json syncs_json() const {
    json j = json::object();
    const ByName syncs = by_time(syncs_);
    json by = json::array();
    for (const auto& [name, g] : syncs.names) {
      by.push_back({{"name", m_.str(name)},
                    {"count", g.count},
                    {"total_ns", g.total},
                    {"max_ns", g.max},
                    {"evidence", json::array({evidence_event(
                                     m_, m_.slices[g.longest].loc,
                                     "longest " + std::string(m_.str(name)) + " (" + text::us(g.max) + ")")})}});
    }
    j["count"] = syncs.count;
    j["total_ns"] = syncs.total;
    j["by_name"] = std::move(by);
    j["call_sites"] = sync_sites_.json(m_, py_);
    return j;
  }

  json copies_json(std::vector<Copy> v, const std::string& what, bool with_wait) const {
    json j = json::object();
    Ns total = 0, wait = 0;
    for (const Copy& c : v) {
      total += m_.slices[c.slice].dur;
      if (c.wait != kNone32) wait += wait_ns(c);
    }
    j["count"] = v.size();
    j["device_ns"] = total;
    if (with_wait) j["host_wait_ns"] = wait;
    std::sort(v.begin(), v.end(),
              [&](const Copy& a, const Copy& b) { return m_.slices[a.slice].dur > m_.slices[b.slice].dur; });
    json items = json::array();
    for (size_t k = 0; k < v.size() && k < kListed; ++k) {
      const Copy& c = v[k];
      const Slice& s = m_.slices[c.slice];
      json it = {{"name", m_.str(s.name)}, {"step", step_at_host(s.ts)}, {"start_ns", s.ts}, {"dur_ns", s.dur}};
      json ev = json::array({evidence_event(m_, s.loc, what + " (" + text::us(s.dur) + ")")});
      if (c.host != kNone32) {
        const Slice& h = m_.slices[c.host];
        it["host_call"] = m_.str(h.name);
        ev.push_back(evidence_event(m_, h.loc, "host call that launched it (" + std::string(m_.str(h.name)) + ")"));
      }
      if (c.wait != kNone32) {
        it["host_wait_ns"] = wait_ns(c);
        if (c.wait != c.host)
          ev.push_back(
              evidence_event(m_, m_.slices[c.wait].loc,
                             "host call that waited for it (" + std::string(m_.str(m_.slices[c.wait].name)) + ")"));
      }
      it["evidence"] = std::move(ev);
      items.push_back(std::move(it));
    }
    j["longest"] = std::move(items);
    // Where the user's code made them (with_stack runs): by the host call that launched each.
    CallSiteTally sites;
    if (py_.available())
      for (const Copy& c : v)
        if (c.host != kNone32) sites.add(m_, py_.at(c.host), m_.slices[c.slice].dur);
    j["call_sites"] = sites.json(m_, py_);
    return j;
  }

  // NCCL kernels and record_param_comms host ops by their "Collective name" arg (kernels of
  // traces that do not write it are grouped under "(unnamed)"); largest kernel time first.
  json collectives_json() const {
    std::vector<std::pair<StrId, Collective>> v(collectives_.begin(), collectives_.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.second.kernel_ns != b.second.kernel_ns ? a.second.kernel_ns > b.second.kernel_ns : a.first < b.first;
    });
    json a = json::array();
    for (const auto& [name, c] : v) {
      json j = {{"name", name == kEmptyStr ? "(unnamed)" : std::string(m_.str(name))},
                {"kernels", c.kernels},
                {"kernel_ns", c.kernel_ns},
                {"host_calls", c.host_calls}};
      if (c.kernels)
        j["evidence"] = json::array(
            {evidence_event(m_, m_.slices[c.longest].loc, "longest NCCL kernel (" + text::us(c.longest_ns) + ")")});
      a.push_back(std::move(j));
    }
    return a;
  }

  json memcpy_json() const {
    json j = {{"count", memcpy_n_}, {"total_ns", memcpy_ns_}};
    for (const auto& [dir, v] : memcpy_by_dir_) j[dir] = {{"count", v.first}, {"total_ns", v.second}};
    return j;
  }

  struct Collective {
    uint64_t kernels = 0, host_calls = 0;
    Ns kernel_ns = 0, longest_ns = -1;
    uint32_t longest = 0;
  };

  // Calls or kernels of one name: how many, their time, the longest.
  struct Sync {
    uint64_t count = 0;
    Ns total = 0, max = -1;
    uint32_t longest = 0;
    void add(const Slice& s, uint32_t i) {
      ++count;
      total += s.dur;
      if (s.dur > max) max = s.dur, longest = i;
    }
  };
  // The names by time, most first, with the count and the time of them all.
  struct ByName {
    std::vector<std::pair<StrId, Sync>> names;
    uint64_t count = 0;
    Ns total = 0;
  };
  static ByName by_time(const std::map<StrId, Sync>& m) {
    ByName b{{m.begin(), m.end()}};
    std::sort(b.names.begin(), b.names.end(),
              [](const auto& x, const auto& y) { return x.second.total > y.second.total; });
    for (const auto& [name, g] : b.names) b.count += g.count, b.total += g.total;
    return b;
  }

  const RunModel& m_;
  const DeviceTimeline& d_;
  const RunFrame& frame_;  // which step holds what
  const PythonStacks& py_;
  const HarnessSyncs harness_;  // syncs a runner or the profiler made (facts/harness.h)
  Facts& facts_;
  std::vector<StepCounts> per_step_;
  mutable std::vector<int8_t> cat_cache_;
  std::vector<Ns> kernel_durs_;
  Ns kernel_ns_ = 0, small_ns_ = 0, memcpy_ns_ = 0, memset_ns_ = 0;
  uint64_t nccl_n_ = 0, small_n_ = 0, memcpy_n_ = 0, memset_n_ = 0;
  std::map<std::string, std::pair<uint64_t, Ns>> memcpy_by_dir_;
  std::vector<Copy> pageable_, blocking_;
  std::map<uint32_t, uint64_t> graph_launch_kernels_;  // graph launch call -> kernels it replayed
  uint64_t graph_kernels_ = 0, graph_small_ = 0;
  Ns graph_kernel_ns_ = 0;
  std::map<StrId, Sync> syncs_;
  std::map<StrId, Sync> fp32_;      // fp32 matrix kernels on the CUDA cores, by name
  std::vector<int8_t> gemm_cache_;  // per name: -1 unseen, else its GemmPrecision
  CallSiteTally sync_sites_;        // synchronize calls by the user's call site (with_stack runs)
  uint64_t tensor_n_ = 0;
  Ns tensor_ns_ = 0;
  std::map<StrId, Collective> collectives_;
};

}  // namespace

void diagnose_gpu(const DiagnosticContext& ctx, Facts& facts) {
  const std::string platform = run_platform(ctx.model);
  if (platform != "gpu") {
    facts.unavailable("gpu", platform == "cpu"    ? "CPU-only trace: no GPU kernels, copies or syncs to examine"
                             : platform == "mtia" ? "MTIA accelerator events (mtia_*) are not read"
                                                  : "not a GPU (Kineto) run");
    return;
  }
  GpuFacts(ctx, facts).run();
}

}  // namespace npu
