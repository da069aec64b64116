// Runs the user's command as a child process that inherits stdin, stdout and stderr (its output
// is never captured), forwards signals to it, and stops it on --timeout.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace npu::collector {

struct ChildOptions {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // the whole environment, "NAME=value"
  double timeout_s = 0;          // 0: none. Then SIGINT, after grace_s SIGTERM, after grace_s SIGKILL
  double grace_s = 30;
};

struct ChildResult {
  std::string spawn_error;   // non-empty: the command could not be started (then nothing else is set)
  int exit_code = 0;         // the child's exit code, or 128 + signal when a signal ended it
  int term_signal = 0;       // the signal that ended it, 0 when it exited
  bool timed_out = false;    // stopped because of --timeout
  bool interrupted = false;  // a SIGINT/SIGTERM/SIGHUP reached us while it ran
  double seconds = 0;        // wall time it ran
};

// Signals while the child runs: SIGINT, SIGTERM and SIGHUP sent to us with kill() are forwarded
// to the child; the same signals from the terminal (Ctrl-C) already reached the child, which is
// in our process group, and are not sent twice (a second SIGINT would cut short the profiler's
// export). We do not die of them: the caller still analyzes what was captured.
ChildResult run_child(const ChildOptions& opt);

// Runs argv with stdout captured, stdin and stderr to /dev/null; kills it after timeout_s.
// Returns nullopt when it could not run or did not exit with 0.
std::optional<std::string> run_for_output(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                                          double timeout_s);

// The current environment as "NAME=value" strings.
std::vector<std::string> current_environment();
// Sets NAME in env (replacing it) to value.
void set_env(std::vector<std::string>& env, const std::string& name, const std::string& value);
// The value of NAME in env, or nullopt.
std::optional<std::string> get_env(const std::vector<std::string>& env, const std::string& name);

}  // namespace npu::collector
