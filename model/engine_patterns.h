// The serving engines' annotations (docs/facts-inference.md): one data-driven table of the names
// an engine writes around an iteration or a start-up graph capture, and of the host names that
// say which engine ran. Each entry is a pattern id, the engine it names and a parser that reads
// phase, requests and tokens off the name (names that carry the batch, `bs=32`, `bs=31`, all
// match one entry: an iteration kind, not one name). tests/model/engine_patterns_test.cpp has a
// test per entry.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace npu {

// run.step_source (RunMeta::step_source) of a run whose steps are an engine's iterations.
constexpr const char* kEngineIterationSource = "engine iteration";

enum class InferencePhase : uint8_t { Unknown, Prefill, Decode, Mixed };
const char* to_string(InferencePhase p);

// What a name says. -1: the name does not say.
struct PatternMatch {
  // Iteration: one annotation around an iteration. Capture: a start-up graph capture. Stage: one
  // of the ranges an engine's model runner writes in each iteration, one after the other (vLLM
  // V1's "gpu_model_runner: preprocess", ..., vLLM-Ascend's "prepare input", "forward", ...); an
  // iteration is an opening stage and the stages after it (engine_iterations).
  enum class Kind : uint8_t { Iteration, Capture, Stage } kind = Kind::Iteration;
  bool opens = false;  // a Stage that starts each iteration (the model runner's input preparation)
  int8_t stage = -1;   // a Stage: which of its entry's stages (0 opens)
  InferencePhase phase = InferencePhase::Unknown;
  int64_t requests = -1;  // requests in the batch
  int64_t tokens = -1;    // tokens scheduled in the iteration
  int64_t batch = -1;     // a capture's batch size
  std::string_view mode;  // a capture's mode (FULL, PIECEWISE, DECODE), a view into the name
};

struct EnginePattern {
  const char* id;      // "sglang_step", ...
  const char* engine;  // "sglang", "vllm", "unknown" (the name alone does not say)
  const char* example;
  bool (*parse)(std::string_view name, PatternMatch& out);
};

// The annotation patterns, in order of precedence: where annotations of several entries nest
// (TraceLens's execute_* around SGLang's step[...]), the engine is the first entry's.
const std::vector<EnginePattern>& engine_patterns();
// The index in engine_patterns() of the entry `name` matches (out filled), or -1.
int match_engine_pattern(std::string_view name, PatternMatch& out);

// Host names (Python frames of with_stack traces) that say which engine ran: a path fragment and
// its engine, in order of precedence.
struct EngineSource {
  const char* fragment;  // "sglang/srt/", "vllm/", ...
  const char* engine;
};
const std::vector<EngineSource>& engine_sources();
// The index in engine_sources() of the first fragment `name` holds, or -1.
int match_engine_source(std::string_view name);

// One annotation an engine pattern matched.
struct PatternHit {
  uint32_t slice = kNone32;
  int pattern = -1;  // engine_patterns() index
  PatternMatch match;
  // An iteration of engine_iterations(): its host span (an annotation's own span; an iteration of
  // stages runs from its opening stage's start to its last stage's end).
  Ns start = 0, end = 0;
};
// Orders hits by start, the longer first at one start (an annotation before those it holds).
void sort_hits(const RunModel& m, std::vector<PatternHit>& hits);
// The engine's iterations among `hits` (sorted by sort_hits): the outermost iteration annotations,
// each filled in by those nested in it (TraceLens's execute_* around SGLang's step[...]) with the
// phase, requests and tokens its own name does not say. A capture is not an iteration. Without
// any iteration annotation, the iterations of stages: on each host track, an opening stage and
// the stages of the same entry after it, up to the next opening one, when they are at least two
// different stages (a lone "forward" range says nothing); the phase and batch stay unknown.
std::vector<PatternHit> engine_iterations(const RunModel& m, const std::vector<PatternHit>& hits);
// The engine's iterations on the model's host operator tracks (the steps of a serving trace
// without ProfilerStep: RunModel::derive_iteration_steps).
std::vector<PatternHit> engine_iterations(const RunModel& m);

// Runtime calls of graph capture and replay (CUDA and HIP names).
enum class GraphCall : uint8_t { None, BeginCapture, EndCapture, Instantiate, Launch };
GraphCall graph_call(std::string_view name);

}  // namespace npu
