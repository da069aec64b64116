// "inference": what an inference run's engine ran (docs/facts-inference.md): the kind of run, the
// engine with the event that says so, its iterations with their own device windows, and a
// start-up graph capture's graphs. Written only for a run the engines' patterns recognise
// (facts/inference/iterations.h); other runs get no section.
#include "facts/diagnostics/diagnostics.h"
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
  j["hole_ns"] = it.hole;
  j["busy_ns"] = it.busy;
  j["graph_share"] = it.busy > 0 ? nlohmann::json(static_cast<double>(it.graph_busy) / static_cast<double>(it.busy))
                                 : nlohmann::json(nullptr);
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

std::string summary(const InferenceRun& run) {
  const std::string kind = run.kind;
  if (kind == "graph_capture") return "graph capture: start-up, not serving";
  const size_t n = run.iterations.size();
  std::string s = kind == "serving" ? "serving: " : "generate() loop: ";
  s += std::to_string(n) + (n == 1 ? " iteration" : " iterations");
  if (n == 1 && run.iterations[0].phase != InferencePhase::Unknown)
    s += std::string(" (") + to_string(run.iterations[0].phase);
  else s += " (";
  if (n == 1 && run.iterations[0].requests >= 0) {
    if (s.back() != '(') s += ", ";
    s += std::to_string(run.iterations[0].requests) + " requests";
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
  if (std::string_view(run.kind) == "unknown") return;
  nlohmann::json j;
  j["kind"] = run.kind;
  j["engine"] = run.engine;
  j["summary"] = summary(run);
  j["evidence"] = run.engine_known ? nlohmann::json::array({evidence_event(m, run.engine_loc, run.engine_what)})
                                   : nlohmann::json::array();
  nlohmann::json its = nlohmann::json::array();
  for (const InferenceIteration& it : run.iterations) its.push_back(iteration_json(m, it));
  j["iterations"] = std::move(its);
  j["capture"] = run.captures.empty() && run.stream_captures == 0 ? nlohmann::json(nullptr) : capture_json(m, run);
  f.doc["inference"] = std::move(j);
}

}  // namespace npu
