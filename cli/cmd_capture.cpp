// `npu-advisor capture -o OUT -- CMD` and `npu-advisor analyze OUT -- CMD`: run the command under
// a profiler (collector/), then, for analyze, the usual analysis of what it wrote.
#include <cstdio>
#include <string>

#include "base/load_error.h"
#include "cli/commands.h"

namespace npu::cli {
namespace {

void note(bool quiet, const std::string& line) {
  if (!quiet) std::fprintf(stderr, "npu-advisor: %s\n", line.c_str());
}

// Runs the capture; returns false (after saying why) when there is nothing to analyze.
bool run_capture(const collector::CaptureOptions& opt, collector::CaptureResult* r) {
  try {
    *r = collector::capture(opt);
  } catch (const collector::CaptureError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return false;
  }
  if (!r->captured) {
    std::fprintf(stderr, "npu-advisor: %s\n", r->message.c_str());
    return false;
  }
  std::string steps;
  if (r->recorded_steps >= 0) {
    steps = std::to_string(r->recorded_steps) + " step" + (r->recorded_steps == 1 ? "" : "s");
    if (r->recorded_steps < opt.active) steps += " of the " + std::to_string(opt.active) + " asked for";
    steps += " ";
  }
  note(opt.quiet, "captured " + steps + "into " + opt.out_dir);
  return true;
}

void report_child_exit(const collector::CaptureResult& r) {
  const auto& c = r.child;
  if (c.exit_code == 0) return;
  std::string how = c.term_signal != 0 ? "was ended by signal " + std::to_string(c.term_signal) + " (exit code " +
                                             std::to_string(c.exit_code) + ")"
                                       : "exited with code " + std::to_string(c.exit_code);
  // Always said, even with --quiet: the exit code of the tool depends on it.
  std::fprintf(stderr, "npu-advisor: the command %s%s\n", how.c_str(),
               c.timed_out ? " after --timeout (not an error)" : "");
}

}  // namespace

int cmd_capture(const collector::CaptureOptions& opt) {
  collector::CaptureResult r;
  if (!run_capture(opt, &r)) return kBadInput;
  report_child_exit(r);
  return collector::final_exit_code(r, -1);
}

int cmd_analyze_command(const collector::CaptureOptions& opt, const CommonOptions& common, const OutputOptions& out,
                        const RuleOptions& rules) {
  collector::CaptureResult r;
  if (!run_capture(opt, &r)) return kBadInput;
  int rc;
  try {
    rc = cmd_analyze(opt.out_dir, common, out, rules);
  } catch (const LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    rc = kBadInput;
  }
  report_child_exit(r);
  return collector::final_exit_code(r, rc);
}

}  // namespace npu::cli
