// An inference run's iterations and start-up captures (docs/facts-inference.md): a function from
// the model and its frame to what the engine ran, with no diagnostic's branching in it, so that
// the frame can later take the iterations as its steps. The facts section "inference"
// (facts/diagnostics/inference.cpp) writes it out.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "facts/frame/run_frame.h"
#include "facts/inference/op_classes.h"
#include "model/engine_patterns.h"
#include "model/model.h"

namespace npu {

// One engine iteration: its host annotation (or, for HF generate(), its ProfilerStep) and the
// device work the runtime calls inside it launched (the frame's launch pairing).
struct InferenceIteration {
  uint32_t slice = kNone32;  // the annotation (or the step's slice where known)
  StrId name = kEmptyStr;
  int pattern = -1;  // engine_patterns() index; -1: a ProfilerStep of a generate() loop
  InferencePhase phase = InferencePhase::Unknown;
  int64_t requests = -1, tokens = -1;
  Ns start = 0, end = 0;  // host span
  // Own window: from the first launched op's start (after the last hole) to the last one's end.
  Ns device_start = -1, device_end = -1;
  Ns hole = 0;                  // device idle while launched work waited on work the trace does not hold
  Ns busy = 0, graph_busy = 0;  // union of the launched ops; of those a graph launch ran
  // A generate() call: when its first token was chosen on the host (the first argmax/multinomial:
  // the prompt's forward before it is the prefill), and the end of the device work launched
  // before that (-1: none).
  Ns first_token_at = -1, prefill_end = -1;
  uint32_t ops = 0, graph_ops = 0;
  // The ops a graph replay ran that were paired with their captured launch (model/graph_capture.h).
  uint32_t paired_ops = 0;
  Ns eager_busy = 0;                     // union of the ops no graph replay ran
  std::array<Ns, kOpClasses> class_ns{};  // op time (sum of durations) per OpClass
  std::array<Ns, kOpClasses> eager_class_ns{};  // the same, of the ops no graph replay ran
  uint64_t loc = 0;
};

// One start-up capture annotation (capture_32_FULL) and the runtime capture calls inside it.
struct InferenceCapture {
  StrId name = kEmptyStr;
  int64_t batch = -1;
  std::string mode;
  Ns start = 0, end = 0;
  uint32_t stream_captures = 0, instantiations = 0;
  uint64_t loc = 0;
};

struct InferenceRun {
  const char* kind = "unknown";    // serving, graph_capture, generate_loop, unknown
  const char* engine = "unknown";  // vllm, sglang, hf_generate, diffusers, unknown
  bool engine_known = false;
  uint64_t engine_loc = 0;                     // the event that says which engine
  std::string engine_what;                     // what it is, in words
  std::vector<InferenceIteration> iterations;  // by start
  std::vector<InferenceCapture> captures;      // by start
  uint32_t stream_captures = 0, instantiations = 0, graph_launches = 0;
  // Over the iterations' device ops: op time per (class, the op it is named by: the outermost
  // host operator around its launch, as its capture recorded it for a replayed kernel).
  std::map<std::pair<OpClass, StrId>, Ns> class_ops;
};

// `training`: the job is known to train (facts.job.training): no generate loop is looked for.
InferenceRun find_inference(const RunModel& m, const RunFrame& frame, bool training);

}  // namespace npu
