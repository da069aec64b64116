// The collector's pure logic: which commands are Python, which profiler is chosen and why, the
// msprof command line, and the exit-code policy (docs/collector.md).
#include <signal.h>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "collector/capture.h"
#include "collector/child_process.h"
#include "collector/command_line.h"
#include "collector/profiler_choice.h"
#include "test_support.h"

using namespace npu::collector;

TEST(CollectorCommand, PythonInterpreterNames) {
  for (const char* n : {"python", "python3", "python3.11", "python3.11-dbg", "python2.7", "python3.7m"})
    EXPECT_TRUE(is_python_name(n)) << n;
  for (const char* n : {"pythonw.exe", "python-config", "python3-config", "ipython", "torchrun", "py", "bash"})
    EXPECT_FALSE(is_python_name(n)) << n;
}

TEST(CollectorCommand, ShebangInterpreter) {
  EXPECT_EQ(shebang_interpreter("#!/usr/bin/python3"), "/usr/bin/python3");
  EXPECT_EQ(shebang_interpreter("#! /usr/bin/python3 -u"), "/usr/bin/python3");
  EXPECT_EQ(shebang_interpreter("#!/usr/bin/env python3"), "python3");
  EXPECT_EQ(shebang_interpreter("#!/usr/bin/env -S PYTHONHASHSEED=0 python3 -u"), "python3");
  EXPECT_EQ(shebang_interpreter("#!/bin/sh"), "/bin/sh");
  EXPECT_EQ(shebang_interpreter("import torch"), "");
  EXPECT_EQ(shebang_interpreter(""), "");
}

TEST(CollectorCommand, Classify) {
  npu::test::TempDir dir;
  auto exe = [&](const std::string& name, const std::string& text) {
    std::string p = dir.write(name, text);
    chmod(p.c_str(), 0755);
    return p;
  };
  exe("python3", "#!/bin/sh\n");
  exe("torchrun", "#!/usr/bin/env python3\nimport sys\n");
  exe("run.sh", "#!/bin/bash\necho\n");
  exe("tool.py", "#!/usr/bin/python3\nprint(1)\n");
  dir.write("plain.py", "print(1)\n");  // not executable
  std::string path = dir.path().string() + ":/nonexistent";
  std::string py = dir.path().string() + "/python3";

  ClassifiedCommand c = classify_command({"python3", "train.py", "--lr", "1"}, path);
  EXPECT_TRUE(c.is_python);
  EXPECT_EQ(c.interpreter, py);
  EXPECT_EQ(c.argv, (std::vector<std::string>{"python3", "train.py", "--lr", "1"}));

  c = classify_command({"torchrun", "--nproc-per-node=2", "train.py"}, path);
  EXPECT_TRUE(c.is_python);
  EXPECT_EQ(c.interpreter, py);  // python3 of the shebang, found on PATH
  EXPECT_NE(c.why.find("#! python3"), std::string::npos) << c.why;

  c = classify_command({"run.sh"}, path);
  EXPECT_FALSE(c.is_python);
  EXPECT_EQ(c.argv, std::vector<std::string>{"run.sh"});

  c = classify_command({"tool.py", "x"}, path);
  EXPECT_TRUE(c.is_python);
  EXPECT_EQ(c.interpreter, "/usr/bin/python3");
  EXPECT_EQ(c.argv, (std::vector<std::string>{"tool.py", "x"}));

  // A script that cannot run by itself gets the python3 on PATH in front of it.
  std::string plain = dir.path().string() + "/plain.py";
  c = classify_command({plain, "x"}, path);
  EXPECT_TRUE(c.is_python);
  EXPECT_EQ(c.argv, (std::vector<std::string>{py, plain, "x"}));

  c = classify_command({"/bin/true"}, path);
  EXPECT_FALSE(c.is_python);
}

TEST(CollectorCommand, ShellJoinQuotesForMsprofApplication) {
  EXPECT_EQ(shell_join({"python3", "train.py", "--lr=0.1"}), "python3 train.py --lr=0.1");
  EXPECT_EQ(shell_join({"echo", "a b", "it's", ""}), "echo 'a b' 'it'\\''s' ''");
}

TEST(CollectorProfiler, AutoOrder) {
  Probe all{true, true, true, "/usr/bin/python3"};
  EXPECT_EQ(choose_profiler(Profiler::Auto, true, all).profiler, Profiler::TorchNpu);
  Probe torch_only{false, true, true, "/usr/bin/python3"};
  ProfilerChoice c = choose_profiler(Profiler::Auto, true, torch_only);
  EXPECT_EQ(c.profiler, Profiler::Torch);
  EXPECT_EQ(c.why, "/usr/bin/python3 can import torch but not torch_npu");
  Probe msprof_only{false, false, true, "py"};
  EXPECT_EQ(choose_profiler(Profiler::Auto, true, msprof_only).profiler, Profiler::Msprof);
  // Non-Python commands: msprof or nothing, whatever Python could import.
  EXPECT_EQ(choose_profiler(Profiler::Auto, false, all).profiler, Profiler::Msprof);
  c = choose_profiler(Profiler::Auto, false, Probe{true, true, false, ""});
  EXPECT_EQ(c.profiler, Profiler::Auto);
  EXPECT_NE(c.error.find("msprof is not on PATH"), std::string::npos);
  c = choose_profiler(Profiler::Auto, true, Probe{false, false, false, "py"});
  EXPECT_NE(c.error.find("py can import neither torch_npu nor torch"), std::string::npos) << c.error;
}

TEST(CollectorProfiler, ForcedMustBeUsable) {
  Probe torch_only{false, true, false, "py"};
  EXPECT_EQ(choose_profiler(Profiler::Torch, true, torch_only).profiler, Profiler::Torch);
  EXPECT_NE(choose_profiler(Profiler::TorchNpu, true, torch_only).error.find("cannot import torch_npu"),
            std::string::npos);
  EXPECT_NE(choose_profiler(Profiler::Msprof, true, torch_only).error.find("msprof is not on PATH"), std::string::npos);
  EXPECT_NE(choose_profiler(Profiler::Torch, false, torch_only).error.find("needs a Python command"),
            std::string::npos);
  // msprof when asked, even though torch_npu is there.
  EXPECT_EQ(choose_profiler(Profiler::Msprof, true, Probe{true, true, true, "py"}).profiler, Profiler::Msprof);
  EXPECT_EQ(parse_profiler("torch_npu"), Profiler::TorchNpu);
  EXPECT_FALSE(parse_profiler("nsys").has_value());
}

TEST(CollectorExitCode, Policy) {
  CaptureResult r;
  r.captured = false;
  EXPECT_EQ(final_exit_code(r, -1), 2);  // nothing captured, whatever the command did
  r.captured = true;
  r.child.exit_code = 0;
  EXPECT_EQ(final_exit_code(r, -1), 0);
  EXPECT_EQ(final_exit_code(r, 0), 0);
  r.child.exit_code = 3;
  EXPECT_EQ(final_exit_code(r, 0), 3);  // the command's own failure is passed on
  EXPECT_EQ(final_exit_code(r, 2), 2);  // ... unless the analysis itself failed
  r.child.exit_code = 130;
  r.child.timed_out = true;
  EXPECT_EQ(final_exit_code(r, 0), 0);  // --timeout is a deliberate stop
  EXPECT_EQ(steps_needed(CaptureOptions{}), 6);
}

TEST(CollectorCapture, RefusesBadOptionsBeforeRunning) {
  npu::test::TempDir dir;
  CaptureOptions o;
  o.out_dir = (dir.path() / "out").string();
  o.quiet = true;
  EXPECT_THROW(capture(o), CaptureError);  // no command
  o.command = {"/bin/true"};
  o.active = 0;
  EXPECT_THROW(capture(o), CaptureError);
  o.active = 3;
  o.level = "Level9";
  try {
    capture(o);
    FAIL() << "no error for --level Level9";
  } catch (const CaptureError& e) {
    EXPECT_NE(std::string(e.what()).find("Level0, Level1"), std::string::npos) << e.what();
  }
  o.level = "";
  dir.write("out/old.pt.trace.json", "[]");
  try {
    capture(o);
    FAIL() << "no error for a non-empty output folder";
  } catch (const CaptureError& e) {
    EXPECT_NE(std::string(e.what()).find("is not empty"), std::string::npos) << e.what();
  }
}

TEST(CollectorChild, ExitCodesSignalsAndSpawnErrors) {
  std::vector<std::string> env = current_environment();
  ChildOptions o;
  o.env = env;
  o.argv = {"/bin/sh", "-c", "exit 7"};
  ChildResult r = run_child(o);
  EXPECT_TRUE(r.spawn_error.empty());
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.term_signal, 0);

  o.argv = {"/bin/sh", "-c", "kill -TERM $$"};
  r = run_child(o);
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);

  o.argv = {"/nonexistent/program"};
  r = run_child(o);
  EXPECT_EQ(r.spawn_error, "cannot run /nonexistent/program: No such file or directory");

  // --timeout: SIGINT first, which ends `sleep`. The child inherits this process's SIGINT
  // disposition, and a background job of a non-interactive shell (`cmd &` in a script, as
  // scripts/arm64-check.sh runs its shards) starts with SIGINT ignored: set the default here.
  struct sigaction dfl {}, saved {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGINT, &dfl, &saved);
  o.argv = {"/bin/sh", "-c", "exec sleep 30"};
  o.timeout_s = 0.3;
  o.grace_s = 5;
  r = run_child(o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGINT);
  EXPECT_LT(r.seconds, 5);

  // Started with SIGINT ignored, the command keeps it ignored (as a background job would have
  // it), so the timeout goes on to SIGTERM after the grace period.
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ign, nullptr);
  o.grace_s = 0.3;
  r = run_child(o);
  sigaction(SIGINT, &saved, nullptr);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_GE(r.seconds, 0.5);
  EXPECT_LT(r.seconds, 5);

  // A command that ignores SIGINT and SIGTERM gets SIGKILL after two grace periods.
  o.argv = {"/bin/sh", "-c", "trap '' INT TERM; while :; do sleep 0.05; done"};
  r = run_child(o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_GE(r.seconds, 0.8);
  EXPECT_LT(r.seconds, 5);
}

TEST(CollectorChild, EnvironmentHelpersAndOutputCapture) {
  std::vector<std::string> env = {"A=1", "PYTHONPATH=/x"};
  set_env(env, "PYTHONPATH", "/boot:/x");
  set_env(env, "NEW", "v");
  EXPECT_EQ(env, (std::vector<std::string>{"A=1", "PYTHONPATH=/boot:/x", "NEW=v"}));
  EXPECT_EQ(get_env(env, "A"), "1");
  EXPECT_FALSE(get_env(env, "PYTHON").has_value());
  EXPECT_EQ(run_for_output({"/bin/sh", "-c", "echo $NEW"}, env, 10), "v\n");
  EXPECT_FALSE(run_for_output({"/bin/sh", "-c", "exit 1"}, env, 10).has_value());
  EXPECT_FALSE(run_for_output({"/nonexistent"}, env, 10).has_value());
}
