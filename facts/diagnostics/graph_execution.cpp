// "graph_execution" (Ascend runs): does the run execute whole graphs (CANN model execution for
// MindSpore graph / sink mode and GE; the ACL graph replay of torch_npu NPUGraph, torch.npu.graph
// and torchair reduce-overhead) and how much of the device work they launched, against the tasks
// launched one operator at a time. Launch advice (task queue, graph mode, torch.compile) is about
// the second kind only. See docs/facts-dispatch.md.
//
// Which device tasks a graph execution launched is graph_launched_tasks' (facts/graph_calls.h),
// found once by the run's frame.
#include <algorithm>
#include <map>
#include <string>

#include "facts/diagnostics/diagnostics.h"
#include "facts/graph_calls.h"

namespace npu {
namespace {

using nlohmann::json;

constexpr size_t kEvidenceCalls = 3;  // executions listed in evidence (those that launched most tasks)

class GraphExecution {
 public:
  GraphExecution(const RunModel& m, const RunFrame& frame, Facts& facts)
      : m_(m), frame_(frame), facts_(facts), calls_(m) {}

  void run() {
    scan_device();
    facts_.doc["graph_execution"] = to_json();
  }

 private:
  void scan_device() {
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      if (m_.tracks[t].kind != TrackKind::Device) continue;
      for (uint32_t i = m_.track_slices[t].begin; i < m_.track_slices[t].end; ++i) {
        const Slice& s = m_.slices[i];
        if (classify_device_task(m_, s) == TaskClass::Marker) continue;
        ++tasks_;
        task_ns_ += s.dur;
      }
    }
    for (const GraphLaunchedTask& g : frame_.graph_launched()) {
      ++graph_tasks_;
      graph_task_ns_ += m_.slices[g.task].dur;
      ++tasks_by_call_[g.call];
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
  const RunFrame& frame_;
  Facts& facts_;
  GraphCalls calls_;
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
  GraphExecution(ctx.model, ctx.frame, facts).run();
}

}  // namespace npu
