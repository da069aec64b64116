// `npu-advisor capture -o OUT -- CMD`: runs CMD under the profiler that is present and leaves
// the profiler's output in OUT (docs/collector.md).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "collector/child_process.h"
#include "collector/profiler_choice.h"

namespace npu::collector {

struct CaptureOptions {
  std::string out_dir;
  std::vector<std::string> command;
  std::string profiler = "auto";  // auto | torch_npu | msprof | torch
  // The schedule, counted in training steps after the first one (which is never captured).
  int wait = 1, warmup = 1, active = 3;
  bool record_shapes = false, with_stack = false, profile_memory = false;
  std::string level;        // torch_npu ProfilerLevel name: Level0, Level1, Level2
  std::string aic_metrics;  // torch_npu AiCMetrics name: PipeUtilization, ArithmeticUtilization, ...
  double timeout_s = 0;
  double grace_s = 30;
  std::vector<std::string> env;  // "NAME=value" set in the command's environment (verify's fixes)
  bool quiet = false;  // no status lines of our own on stderr (the command's output is untouched)
};

struct CaptureResult {
  ChildResult child;
  Profiler profiler = Profiler::Auto;
  bool captured = false;    // OUT holds profiler output to analyze
  int recorded_steps = -1;  // steps the Python profiler recorded (-1: unknown, e.g. msprof)
  std::string message;      // when nothing was captured: why, in one paragraph
};

// Throws CaptureError for what makes the capture impossible before the command runs (bad
// options, OUT not empty, no profiler, the command cannot start). Returns once the command
// has exited.
struct CaptureError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
CaptureResult capture(const CaptureOptions& opt);

// The exit code of `capture` (analysis_rc < 0) or `analyze OUT -- CMD` (analysis_rc: the
// analysis's own code). Nothing captured: 2. The analysis failed: its code. Otherwise the
// command's own non-zero exit code, except after --timeout, which is a deliberate stop (0).
int final_exit_code(const CaptureResult& r, int analysis_rc);

// How many steps the command must make for the capture to complete: the first step, then
// wait + warmup + active.
inline int steps_needed(const CaptureOptions& o) { return 1 + o.wait + o.warmup + o.active; }

}  // namespace npu::collector
