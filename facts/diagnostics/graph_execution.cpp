// "graph_execution" (Ascend runs): does the run execute whole graphs (CANN model execution for
// MindSpore graph / sink mode and GE; the ACL graph replay of torch_npu NPUGraph, torch.npu.graph
// and torchair reduce-overhead) and how much of the device work they launched, against the tasks
// launched one operator at a time. Launch advice (task queue, graph mode, torch.compile) is about
// the second kind only. See docs/facts-dispatch.md.
//
// A device task counts as graph-launched when no per-operator launch flow ends at it and it
// starts inside a graph execution's window: the call's own span for a call that waits for the
// graph (Model@ModelExecute, aclmdlExecute), up to the next graph call on the same thread for an
// asynchronous one (aclmdlRIExecuteAsync, aclmdlExecuteAsync), whose tasks run after it returns.
#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "facts/diagnostics/diagnostics.h"
#include "facts/graph_calls.h"

namespace npu {
namespace {

using nlohmann::json;

constexpr size_t kEvidenceCalls = 3;  // executions listed in evidence (those that launched most tasks)

struct Window {
  Ns start = 0, end = 0;
  uint32_t call = 0;  // slice index of the execution call
};

class GraphExecution {
 public:
  GraphExecution(const RunModel& m, Facts& facts) : m_(m), facts_(facts), calls_(m) {}

  void run() {
    make_windows();
    mark_per_op_launches();
    scan_device();
    facts_.doc["graph_execution"] = to_json();
  }

 private:
  void make_windows() {
    const auto& c = calls_.calls();
    for (size_t k = 0; k < c.size(); ++k) {
      const Slice& s = m_.slices[c[k]];
      Ns end = s.end();
      if (graph_call_is_async(m_.str(s.name))) {
        bool next_on_track = k + 1 < c.size() && m_.slices[c[k + 1]].track == s.track;
        end = next_on_track ? std::max(end, m_.slices[c[k + 1]].ts - 1) : std::numeric_limits<Ns>::max();
      }
      windows_.push_back({s.ts, end, c[k]});
    }
    std::stable_sort(windows_.begin(), windows_.end(),
                     [](const Window& a, const Window& b) { return a.start < b.start; });
    Ns run_max = std::numeric_limits<Ns>::min();
    for (const Window& w : windows_) max_end_.push_back(run_max = std::max(run_max, w.end));
  }

  // Device tasks at the end of a launch arrow not drawn from a graph call: launched one by one.
  void mark_per_op_launches() {
    per_op_.assign(m_.slices.size(), false);
    for (const Flow& f : m_.flows) {
      bool launch = f.kind == FlowKind::HostToDevice || f.kind == FlowKind::AsyncNpu || f.kind == FlowKind::Ac2g;
      if (!launch || f.end_slice == kNone32) continue;
      if (calls_.launched_by(f) == kNone32) per_op_[f.end_slice] = true;
    }
  }

  // The window holding ts (the latest-starting one), or nullptr.
  const Window* window_at(Ns ts) const {
    auto it = std::upper_bound(windows_.begin(), windows_.end(), ts, [](Ns v, const Window& w) { return v < w.start; });
    size_t i = static_cast<size_t>(it - windows_.begin());
    if (i == 0 || max_end_[i - 1] < ts) return nullptr;
    for (size_t budget = 64; i > 0 && budget > 0; --i, --budget)
      if (windows_[i - 1].end >= ts) return &windows_[i - 1];
    // An earlier window holds ts (max_end_ says so) but lies deeper than the bounded walk: the
    // task is graph-launched, and is credited to the last window looked at.
    return &windows_[i];
  }

  void scan_device() {
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      if (m_.tracks[t].kind != TrackKind::Device) continue;
      for (uint32_t i = m_.track_slices[t].begin; i < m_.track_slices[t].end; ++i) {
        const Slice& s = m_.slices[i];
        if (classify_device_task(m_, s) == TaskClass::Marker) continue;
        ++tasks_;
        task_ns_ += s.dur;
        const Window* w = per_op_[i] ? nullptr : window_at(s.ts);
        if (!w) continue;
        ++graph_tasks_;
        graph_task_ns_ += s.dur;
        ++tasks_by_call_[w->call];
      }
    }
  }

  json apis_json() const {
    std::map<StrId, std::pair<uint64_t, Ns>> by_name;
    for (uint32_t i : calls_.all_calls()) {
      auto& [n, ns] = by_name[m_.slices[i].name];
      ++n;
      ns += m_.slices[i].dur;
    }
    std::vector<std::pair<StrId, std::pair<uint64_t, Ns>>> v(by_name.begin(), by_name.end());
    std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      return a.second.first != b.second.first ? a.second.first > b.second.first : m_.str(a.first) < m_.str(b.first);
    });
    json out = json::array();
    for (const auto& [name, c] : v)
      out.push_back({{"name", m_.str(name)},
                     {"kind", to_string(graph_call_kind(m_.str(name)))},
                     {"calls", c.first},
                     {"host_ns", c.second}});
    return out;
  }

  json to_json() const {
    uint64_t captures = 0;
    std::map<GraphCallKind, uint64_t> by_kind;
    for (uint32_t i : calls_.all_calls())
      if (graph_call_kind(m_.str(m_.slices[i].name)) == GraphCallKind::Capture) ++captures;
    for (uint32_t i : calls_.calls()) ++by_kind[graph_call_kind(m_.str(m_.slices[i].name))];
    auto main_kind = std::max_element(by_kind.begin(), by_kind.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    json j = {{"executes_graphs", !calls_.empty()},
              {"kind", main_kind == by_kind.end() ? json(nullptr) : json(to_string(main_kind->first))},
              {"executions", calls_.calls().size()},
              {"captures", captures},
              {"apis", apis_json()},
              {"tasks", tasks_},
              {"task_ns", task_ns_},
              {"graph_tasks", graph_tasks_},
              {"graph_task_ns", graph_task_ns_},
              {"other_tasks", tasks_ - graph_tasks_},
              {"other_task_ns", task_ns_ - graph_task_ns_},
              {"graph_share_of_tasks", ratio(static_cast<double>(graph_tasks_), static_cast<double>(tasks_))},
              {"graph_share_of_time", ratio(static_cast<double>(graph_task_ns_), static_cast<double>(task_ns_))}};
    std::vector<std::pair<uint32_t, uint64_t>> top(tasks_by_call_.begin(), tasks_by_call_.end());
    std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    json ev = json::array();
    for (size_t k = 0; k < top.size() && k < kEvidenceCalls; ++k) {
      const Slice& s = m_.slices[top[k].first];
      ev.push_back(evidence_event(m_, s.loc,
                                  "graph execution (" + std::string(m_.str(s.name)) + ") that launched " +
                                      std::to_string(top[k].second) + " device tasks"));
    }
    j["evidence"] = std::move(ev);
    return j;
  }

  const RunModel& m_;
  Facts& facts_;
  GraphCalls calls_;
  std::vector<Window> windows_;  // by start
  std::vector<Ns> max_end_;      // max_end_[i]: the latest end among windows_[0..i]
  std::vector<bool> per_op_;     // by slice index
  std::map<uint32_t, uint64_t> tasks_by_call_;
  uint64_t tasks_ = 0, graph_tasks_ = 0;
  Ns task_ns_ = 0, graph_task_ns_ = 0;
};

}  // namespace

void diagnose_graph_execution(const DiagnosticContext& ctx, Facts& facts) {
  const std::string platform = run_platform(ctx.model);
  if (platform != "ascend") {
    facts.unavailable("graph_execution", platform == "gpu" ? "GPU run: CUDA/HIP graph replays are gpu.graph_replay"
                                                           : "not an Ascend run: no CANN graph executions to look for");
    return;
  }
  GraphExecution(ctx.model, facts).run();
}

}  // namespace npu
