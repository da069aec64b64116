// "inference": what an inference run's engine ran (docs/facts-inference.md): the kind of run, the
// engine with the event that says so, its iterations with their own device windows, and a
// start-up graph capture's graphs. Written only for a run the engines' patterns recognise
// (facts/inference/iterations.h); other runs get no section.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "base/stats.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/diagnostics/inference_graphs.h"
#include "facts/inference/iterations.h"

namespace npu {
namespace {

nlohmann::json or_null(int64_t v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); }

nlohmann::json iteration_json(const RunModel& m, const InferenceIteration& it) {
  nlohmann::json j;
  j["name"] = it.pattern >= 0 ? std::string(m.str(it.name)) : "ProfilerStep";
  j["pattern"] = it.pattern >= 0 ? engine_patterns()[static_cast<size_t>(it.pattern)].id : "hf_generate_step";
  j["phase"] = to_string(it.phase);
  j["requests"] = or_null(it.requests);
  j["tokens"] = or_null(it.tokens);
  j["start_ns"] = it.start;
  j["end_ns"] = it.end;
  j["device_ops"] = it.ops;
  j["device_start_ns"] = or_null(it.device_start);
  j["device_end_ns"] = or_null(it.device_end);
  j["own_window_ns"] = it.device_start < 0 ? nlohmann::json(nullptr) : nlohmann::json(it.device_end - it.device_start);
  // Tokens over the own window: a decode iteration makes one token per request; a prefill
  // iteration's tokens are the prompts'; a generate() call's, the tokens it generated.
  const Ns own = it.device_start < 0 ? 0 : it.device_end - it.device_start;
  j["tokens_per_s"] = it.tokens > 0 && own > 0
                          ? nlohmann::json(static_cast<double>(it.tokens) * 1e9 / static_cast<double>(own))
                          : nlohmann::json(nullptr);
  // A generate() call: the prompt's forward (to the first token) and the tokens after it.
  const bool split = it.prefill_end > it.device_start && it.device_start >= 0 && it.tokens > 1;
  j["prefill_ns"] = split ? nlohmann::json(it.prefill_end - it.device_start) : nlohmann::json(nullptr);
  j["decode_ns_per_token"] =
      split ? nlohmann::json(static_cast<double>(it.device_end - it.prefill_end) / static_cast<double>(it.tokens - 1))
            : nlohmann::json(nullptr);
  j["hole_ns"] = it.hole;
  j["busy_ns"] = it.busy;
  j["graph_share"] = it.busy > 0 ? nlohmann::json(static_cast<double>(it.graph_busy) / static_cast<double>(it.busy))
                                 : nlohmann::json(nullptr);
  j["graph_ops"] = it.graph_ops;
  j["paired_ops"] = it.paired_ops;
  j["eager_in_graph_ns"] = it.graph_ops > 0 ? nlohmann::json(it.eager_busy) : nlohmann::json(nullptr);
  j["classes"] = class_shares(it.class_ns);
  j["evidence"] = nlohmann::json::array(
      {evidence_event(m, it.loc, it.pattern >= 0 ? "the iteration's annotation" : "the step (one generate() call)")});
  return j;
}

nlohmann::json capture_json(const RunModel& m, const InferenceRun& run) {
  nlohmann::json graphs = nlohmann::json::array();
  for (const InferenceCapture& c : run.captures)
    graphs.push_back({{"name", std::string(m.str(c.name))},
                      {"batch_size", c.batch},
                      {"mode", c.mode},
                      {"start_ns", c.start},
                      {"end_ns", c.end},
                      {"stream_captures", c.stream_captures},
                      {"instantiations", c.instantiations},
                      {"evidence", nlohmann::json::array({evidence_event(m, c.loc, "the capture's annotation")})}});
  return {{"graphs", graphs},
          {"stream_captures", run.stream_captures},
          {"instantiations", run.instantiations},
          {"graph_launches", run.graph_launches}};
}

Ns own_of(const InferenceIteration& it) { return it.device_start < 0 ? 0 : it.device_end - it.device_start; }

// The project's median (base/stats.h: nearest rank, a real iteration's time); 0 for none.
Ns median_of(std::vector<Ns> v) { return stats::nearest_rank_of(std::move(v), 0.5, Ns{0}); }

// The steady state: the iterations after the warm-up, a leading run of iterations whose own window
// is over kWarmupFactor times the median of their phase (first-time allocation, compilation,
// cache misses). Phases with fewer than 3 iterations have no warm-up to tell apart.
constexpr double kWarmupFactor = 1.5;
std::vector<bool> warmup_of(const InferenceRun& run, nlohmann::json& excluded) {
  const auto& its = run.iterations;
  std::vector<bool> warm(its.size(), false);
  for (size_t i = 0; i < its.size(); ++i) {
    std::vector<Ns> same;
    for (const InferenceIteration& o : its)
      if (o.phase == its[i].phase && o.device_start >= 0) same.push_back(own_of(o));
    const Ns med = median_of(same);
    if (same.size() < 3 || its[i].device_start < 0 || static_cast<double>(own_of(its[i])) <= kWarmupFactor * med) break;
    warm[i] = true;
    excluded.push_back({{"iteration", i + 1},
                        {"why", fmt::format("warm-up: its own window is {:.1f}x the median of its phase",
                                            static_cast<double>(own_of(its[i])) / static_cast<double>(med))}});
  }
  return warm;
}

// Per phase over the steady state: iterations, own window median, per batch size, tokens/s.
nlohmann::json phases_json(const InferenceRun& run, const std::vector<bool>& warm) {
  nlohmann::json out = nlohmann::json::array();
  for (InferencePhase ph : {InferencePhase::Prefill, InferencePhase::Decode, InferencePhase::Mixed,
                            InferencePhase::Unknown}) {
    std::vector<Ns> own;
    std::map<int64_t, std::vector<Ns>> by_batch;
    Ns window = 0, busy = 0, graph = 0;
    int64_t tokens = 0;
    std::array<Ns, kOpClasses> classes{};
    for (size_t i = 0; i < run.iterations.size(); ++i) {
      const InferenceIteration& it = run.iterations[i];
      if (it.phase != ph || warm[i] || it.device_start < 0) continue;
      own.push_back(own_of(it));
      by_batch[it.requests].push_back(own_of(it));
      window += own_of(it), busy += it.busy, graph += it.graph_busy;
      tokens += std::max<int64_t>(0, it.tokens);
      for (size_t c = 0; c < kOpClasses; ++c) classes[c] += it.class_ns[c];
    }
    if (own.empty()) continue;
    nlohmann::json batches = nlohmann::json::array();
    for (const auto& [reqs, v] : by_batch)
      batches.push_back({{"requests", reqs < 0 ? nlohmann::json(nullptr) : nlohmann::json(reqs)},
                         {"iterations", v.size()},
                         {"own_window_median_ns", median_of(v)}});
    const double w = static_cast<double>(window);
    out.push_back(
        {{"phase", to_string(ph)},
         {"iterations", own.size()},
         {"own_window_median_ns", median_of(own)},
         {"by_batch_size", batches},
         {"tokens", tokens},
         {"tokens_per_s", tokens > 0 ? nlohmann::json(static_cast<double>(tokens) * 1e9 / w) : nlohmann::json(nullptr)},
         {"ns_per_1k_tokens",
          tokens > 0 ? nlohmann::json(w * 1000.0 / static_cast<double>(tokens)) : nlohmann::json(nullptr)},
         {"busy_share", busy / w},
         {"graph_share", busy > 0 ? nlohmann::json(static_cast<double>(graph) / static_cast<double>(busy))
                                  : nlohmann::json(nullptr)},
         {"classes", class_shares(classes)}});
  }
  return out;
}

// Between two iterations: the device idle that is not a hole, and the host's time outside both.
nlohmann::json gaps_json(const InferenceRun& run) {
  nlohmann::json out = nlohmann::json::array();
  const auto& its = run.iterations;
  for (size_t i = 0; i + 1 < its.size(); ++i) {
    const InferenceIteration &a = its[i], &b = its[i + 1];
    if (a.device_start < 0 || b.device_start < 0) continue;
    out.push_back({{"after", i + 1},
                   {"device_idle_ns", turn_between(a.device_end, b.device_start, b.hole)},
                   {"host_ns", std::max<Ns>(0, b.start - a.end)}});
  }
  return out;
}

std::string summary(const InferenceRun& run) {
  const std::string kind = run.kind;
  if (kind == "graph_capture") return "graph capture: start-up, not serving";
  const size_t n = run.iterations.size();
  std::string s = kind == "serving" ? "serving: " : kind == "diffusion" ? "diffusion: " : "generate() loop: ";
  s += std::to_string(n) + (n == 1 ? " iteration" : " iterations");
  if (n == 1 && run.iterations[0].phase != InferencePhase::Unknown)
    s += std::string(" (") + to_string(run.iterations[0].phase);
  else s += " (";
  int64_t lo = -1, hi = -1;
  for (const InferenceIteration& it : run.iterations)
    if (it.requests >= 0) lo = lo < 0 ? it.requests : std::min(lo, it.requests), hi = std::max(hi, it.requests);
  if (lo >= 0) {
    if (s.back() != '(') s += ", ";
    s += (lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi)) + " requests";
  }
  if (s.back() == '(') s.resize(s.size() - 2);
  else s += ")";
  return s;
}

}  // namespace

void diagnose_inference(const DiagnosticContext& ctx, Facts& f) {
  const RunModel& m = ctx.model;
  const bool training = f.has("job") && f.doc["job"].value("training", nlohmann::json()) == true;
  const InferenceRun run = find_inference(m, ctx.frame, training);
  if (std::string_view(run.kind) == "unknown") {
    // A serving engine's own frames, but nothing that marks its iterations: say how to get them.
    const std::string_view e = run.engine;
    if (run.engine_known && (e == "vllm" || e == "vllm_ascend" || e == "sglang" || e == "mindie"))
      f.unavailable("inference",
                    fmt::format("the {} engine ran ({}), but the trace marks none of its iterations "
                                "(no iteration annotation or model-runner stage){}",
                                e, run.engine_what,
                                e == "vllm" || e == "vllm_ascend"
                                    ? ": profile with VLLM_CUSTOM_SCOPES_FOR_PROFILING=1 for the model runner's stages"
                                    : ""));
    return;
  }
  nlohmann::json j;
  j["kind"] = run.kind;
  j["engine"] = run.engine;
  j["summary"] = summary(run);
  j["evidence"] = run.engine_known ? nlohmann::json::array({evidence_event(m, run.engine_loc, run.engine_what)})
                                   : nlohmann::json::array();
  nlohmann::json its = nlohmann::json::array();
  for (const InferenceIteration& it : run.iterations) its.push_back(iteration_json(m, it));
  j["iterations"] = std::move(its);
  nlohmann::json excluded = nlohmann::json::array();
  const std::vector<bool> warm = warmup_of(run, excluded);
  const size_t first = static_cast<size_t>(std::find(warm.begin(), warm.end(), false) - warm.begin());
  j["steady_state"] = run.iterations.empty() || first == warm.size()
                          ? nlohmann::json(nullptr)
                          : nlohmann::json({{"first", first + 1}, {"last", warm.size()}, {"excluded", excluded}});
  j["phases"] = phases_json(run, warm);
  j["gaps"] = gaps_json(run);
  j["graphs"] = run.iterations.empty() ? nlohmann::json(nullptr) : graphs_json(m, run, warm);
  j["capture"] = run.captures.empty() && run.stream_captures == 0 ? nlohmann::json(nullptr) : capture_json(m, run);
  f.doc["inference"] = std::move(j);
}

}  // namespace npu
