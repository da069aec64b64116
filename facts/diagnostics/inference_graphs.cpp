#include "facts/diagnostics/inference_graphs.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/stats.h"
#include "model/graph_capture.h"

namespace npu {

nlohmann::json class_shares(const std::array<Ns, kOpClasses>& ns) {
  Ns total = 0;
  for (Ns v : ns) total += v;
  if (total <= 0) return nullptr;
  nlohmann::json out = nlohmann::json::object();
  for (size_t c = 0; c < kOpClasses; ++c)
    if (ns[c] > 0) out[to_string(static_cast<OpClass>(c))] = static_cast<double>(ns[c]) / static_cast<double>(total);
  return out;
}

namespace {

nlohmann::json captures_json(const RunModel& m) {
  nlohmann::json out = nlohmann::json::array();
  for (const GraphCapture& c : m.graph_replays.captures) {
    uint32_t launches = 0;
    for (const CapturedGraph& g : c.graphs) launches += g.end - g.begin;
    const bool beside = c.file >= 0 && static_cast<size_t>(c.file) < m.files.size();
    out.push_back({{"batch_size", c.batch < 0 ? nlohmann::json(nullptr) : nlohmann::json(c.batch)},
                   {"mode", c.mode.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.mode)},
                   {"graphs", c.graphs.size()},
                   {"launches", launches},
                   {"source", beside ? m.files[static_cast<size_t>(c.file)].path : std::string("the trace itself")}});
  }
  return out;
}

// The pairing of replays with captures: how many, and why those left unpaired were.
nlohmann::json pairing_json(const RunModel& m) {
  const GraphReplays& g = m.graph_replays;
  uint32_t paired = 0, ops = 0, paired_ops = 0;
  std::map<std::string, uint32_t> why;
  for (const GraphReplays::Replay& r : g.replays) {
    paired += r.capture >= 0, ops += r.ops, paired_ops += r.paired_ops;
    if (*r.why) ++why[r.why];
  }
  nlohmann::json unpaired = nlohmann::json::array();
  for (const auto& [w, n] : why) unpaired.push_back({{"why", w}, {"replays", n}});
  return {{"replays", g.replays.size()},
          {"paired_replays", paired},
          {"replayed_ops", ops},
          {"paired_ops", paired_ops},
          {"not_paired", unpaired}};
}

// Iterations that ran no graph replay at all, by phase and batch size.
nlohmann::json eager_iterations_json(const InferenceRun& run, const std::vector<bool>& warm) {
  std::map<std::pair<int, int64_t>, std::vector<Ns>> groups;
  for (size_t i = 0; i < run.iterations.size(); ++i) {
    const InferenceIteration& it = run.iterations[i];
    if (warm[i] || it.ops == 0 || it.graph_ops > 0) continue;
    groups[{static_cast<int>(it.phase), it.requests}].push_back(it.device_end - it.device_start);
  }
  nlohmann::json out = nlohmann::json::array();
  for (auto& [key, own] : groups) {
    const size_t n = own.size();
    out.push_back({{"phase", to_string(static_cast<InferencePhase>(key.first))},
                   {"requests", key.second < 0 ? nlohmann::json(nullptr) : nlohmann::json(key.second)},
                   {"iterations", n},
                   {"own_window_median_ns", stats::nearest_rank_of(std::move(own), 0.5, Ns{0})}});
  }
  return out;
}

// The run's op time per class, each with the ops that took most of it.
nlohmann::json classes_json(const RunModel& m, const InferenceRun& run) {
  std::array<Ns, kOpClasses> total{};
  std::array<std::vector<std::pair<Ns, StrId>>, kOpClasses> top;
  for (const auto& [key, ns] : run.class_ops) {
    total[static_cast<size_t>(key.first)] += ns;
    top[static_cast<size_t>(key.first)].push_back({ns, key.second});
  }
  Ns all = 0;
  for (Ns v : total) all += v;
  std::vector<size_t> order;
  for (size_t c = 0; c < kOpClasses; ++c)
    if (total[c] > 0) order.push_back(c);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return total[a] > total[b]; });
  nlohmann::json out = nlohmann::json::array();
  for (size_t c : order) {
    auto& v = top[c];
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    nlohmann::json ops = nlohmann::json::array();
    for (size_t k = 0; k < v.size() && k < 3; ++k) ops.push_back({{"op", std::string(m.str(v[k].second))}, {"ns", v[k].first}});
    out.push_back({{"class", to_string(static_cast<OpClass>(c))},
                   {"ns", total[c]},
                   {"share", static_cast<double>(total[c]) / static_cast<double>(all)},
                   {"top_ops", ops}});
  }
  return out;
}

}  // namespace

nlohmann::json graphs_json(const RunModel& m, const InferenceRun& run, const std::vector<bool>& warm) {
  Ns busy = 0, graph = 0, eager_in = 0, busy_graphed = 0;
  uint32_t graphed = 0, eager_ops = 0;
  std::array<Ns, kOpClasses> eager_classes{};
  for (size_t i = 0; i < run.iterations.size(); ++i) {
    const InferenceIteration& it = run.iterations[i];
    if (warm[i]) continue;
    busy += it.busy, graph += it.graph_busy;
    if (it.graph_ops == 0) continue;
    ++graphed, eager_ops += it.ops - it.graph_ops, eager_in += it.eager_busy, busy_graphed += it.busy;
    for (size_t c = 0; c < kOpClasses; ++c) eager_classes[c] += it.eager_class_ns[c];
  }
  std::set<int64_t> sizes;
  for (const GraphCapture& c : m.graph_replays.captures)
    if (c.batch >= 0) sizes.insert(c.batch);
  for (const InferenceCapture& c : run.captures)
    if (c.batch >= 0) sizes.insert(c.batch);
  const auto share = [](Ns a, Ns b) { return b > 0 ? nlohmann::json(static_cast<double>(a) / static_cast<double>(b)) : nlohmann::json(nullptr); };
  return {{"replay_share", share(graph, busy)},
          {"captured_sizes", std::vector<int64_t>(sizes.begin(), sizes.end())},
          {"captures", captures_json(m)},
          {"pairing", pairing_json(m)},
          {"eager_iterations", eager_iterations_json(run, warm)},
          {"eager_in_graphed",
           {{"iterations", graphed}, {"ops", eager_ops}, {"busy_ns", eager_in}, {"share", share(eager_in, busy_graphed)},
            {"classes", class_shares(eager_classes)}}},
          {"classes", classes_json(m, run)}};
}

}  // namespace npu
