// End to end: `npu-advisor analyze OUT -- /usr/bin/python3 testdata/collector/train.py` with
// Debian's python3-torch (CPU; skipped when /usr/bin/python3 cannot import torch). Checks the
// capture, the analysis of what it wrote, the exit-code policy, Ctrl-C and --timeout, and that
// the bootstrap leaves the user's own sitecustomize working (docs/collector.md).
#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "python_torch.h"
#include "test_support.h"

namespace fs = std::filesystem;
using npu::test::kPython;
using npu::test::TempDir;

namespace {

const std::string kTrain = std::string(NPU_SOURCE_DIR) + "/testdata/collector/train.py";
const std::string kNoOptimizer = std::string(NPU_SOURCE_DIR) + "/testdata/collector/no_optimizer.py";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

CliRun run_cli(const TempDir& dir, const std::string& args, const std::string& env = "") {
  std::string out = (dir.path() / "cli.out").string(), err = (dir.path() / "cli.err").string();
  std::string cmd = env + " '" + NPU_ADVISOR_BIN + "' " + args + " >'" + out + "' 2>'" + err + "' </dev/null";
  int status = std::system(cmd.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The trace files the capture wrote, and how many ProfilerStep#N events they hold, counted
// from the raw text (independently of the tool's loader).
std::vector<fs::path> traces_in(const fs::path& out) {
  std::vector<fs::path> v;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out, ec))
    if (e.path().string().find(".pt.trace.json") != std::string::npos) v.push_back(e.path());
  return v;
}
size_t count_profiler_steps(const fs::path& trace) {
  std::string t = slurp(trace);
  size_t n = 0;
  for (size_t at = t.find("\"ProfilerStep#"); at != std::string::npos; at = t.find("\"ProfilerStep#", at + 1)) ++n;
  return n;
}

nlohmann::json read_report(const fs::path& p) { return nlohmann::json::parse(slurp(p)); }

}  // namespace

TEST(CollectorE2E, AnalyzeCapturesTheActiveStepsAndReportsThem) {
  REQUIRE_TORCH();
  TempDir dir;
  fs::path out = dir.path() / "prof", report = dir.path() / "report.json";
  CliRun r =
      run_cli(dir, "analyze '" + out.string() + "' -q -o '" + report.string() + "' -- " + kPython + " " + kTrain);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("trained 8 steps"), std::string::npos) << "the command's stdout is inherited: " << r.out;
  auto traces = traces_in(out);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(count_profiler_steps(traces[0]), 3u);  // --steps 3 (default)
  nlohmann::json rep = read_report(report);
  ASSERT_TRUE(rep["summary"]["steps"].is_array()) << rep.dump(1).substr(0, 2000);
  EXPECT_EQ(rep["summary"]["steps"].size(), 3u);
}

TEST(CollectorE2E, SaysWhichProfilerAndWhy) {
  REQUIRE_TORCH();
  TempDir dir;
  fs::path out = dir.path() / "prof";
  CliRun r = run_cli(dir, "capture -o '" + out.string() + "' --steps 2 --wait 0 -- " + kPython + " " + kTrain);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("npu-advisor: profiler: torch.profiler (python3 is a Python interpreter; " + kPython +
                       " can import torch but not torch_npu)"),
            std::string::npos)
      << r.err;
  // Iteration 1 skipped, warm-up iteration 2; the trace's ProfilerStep#N are the profiler's own
  // count (torch 1.13 writes #1-#2 here, torch 2.11 #2-#3), so the message promises no N.
  EXPECT_NE(r.err.find("profiling iterations 3-4 of the script"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("captured 2 steps into"), std::string::npos) << r.err;
  auto traces = traces_in(out);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(count_profiler_steps(traces[0]), 2u);
  EXPECT_EQ(r.out.rfind("trained 8 steps, loss ", 0), 0u) << "capture prints no report: " << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
}

TEST(CollectorE2E, KeepsTheCommandsExitCodeAndOutput) {
  REQUIRE_TORCH();
  TempDir dir;
  fs::path out = dir.path() / "prof";
  CliRun r = run_cli(dir, "analyze '" + out.string() + "' -- " + kPython + " " + kTrain + " 8 --exit-code 3");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("trained 8 steps"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("the command exited with code 3"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("steps"), std::string::npos) << "the report is still printed: " << r.out;
}

TEST(CollectorE2E, NoOptimizerStepIsAClearErrorNotAnEmptyReport) {
  REQUIRE_TORCH();
  TempDir dir;
  fs::path out = dir.path() / "prof";
  CliRun r = run_cli(dir, "analyze '" + out.string() + "' -- " + kPython + " " + kNoOptimizer);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("done"), std::string::npos);
  EXPECT_NE(r.err.find("but never called optimizer.step(); nothing captured"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("Findings"), std::string::npos) << "no report: " << r.out;
}

TEST(CollectorE2E, StepApiMarksStepsWithoutAnOptimizer) {
  REQUIRE_TORCH();
  TempDir dir;
  fs::path out = dir.path() / "prof";
  CliRun r = run_cli(dir, "capture -o '" + out.string() + "' -- " + kPython + " " + kNoOptimizer + " --mark");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = traces_in(out);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(count_profiler_steps(traces[0]), 3u);
}

TEST(CollectorE2E, TooFewStepsSaysHowManyAreNeeded) {
  REQUIRE_TORCH();
  TempDir dir;
  CliRun r = run_cli(dir, "capture -o '" + (dir.path() / "prof").string() + "' -- " + kPython + " " + kTrain + " 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("made 3 steps; nothing captured: the capture needs 6"), std::string::npos) << r.err;
}

TEST(CollectorE2E, TimeoutStopsTheCommandAndStillReports) {
  REQUIRE_TORCH();
  TempDir dir;
  fs::path out = dir.path() / "prof", report = dir.path() / "report.json";
  // Steps 2..6 are recorded; the script sleeps for good after step 4, inside the window. The
  // timeout leaves time for a slow start (importing torch on a loaded machine).
  auto t0 = std::chrono::steady_clock::now();
  CliRun r = run_cli(dir, "analyze '" + out.string() + "' -q -o '" + report.string() +
                              "' --wait 0 --warmup 0 --steps 5 --timeout 15 --kill-grace 20 -- " + kPython + " " +
                              kTrain + " 100 --sleep-after 4");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;  // a deliberate stop
  EXPECT_LT(secs, 60);
  EXPECT_NE(r.out.find("sleeping"), std::string::npos);
  EXPECT_NE(r.err.find("after --timeout (not an error)"), std::string::npos) << r.err;
  auto traces = traces_in(out);
  ASSERT_EQ(traces.size(), 1u) << r.err;
  // Steps 2, 3 and 4 complete, and step 5 until the interrupt.
  EXPECT_EQ(count_profiler_steps(traces[0]), 4u);
  EXPECT_EQ(read_report(report)["summary"]["steps"].size(), 4u);
}

TEST(CollectorE2E, SigintIsForwardedAndWhatWasRecordedIsAnalyzed) {
  REQUIRE_TORCH();
  TempDir dir;
  fs::path out = dir.path() / "prof", report = dir.path() / "report.json", marker = dir.path() / "sleeping";
  std::string so = (dir.path() / "out.txt").string(), se = (dir.path() / "err.txt").string();
  std::vector<std::string> args = {
      NPU_ADVISOR_BIN, "analyze", out.string(), "-q",    "-o",   report.string(), "--wait",        "0", "--warmup", "0",
      "--steps",       "5",       "--",         kPython, kTrain, "100",           "--sleep-after", "4"};
  pid_t pid = npu::test::spawn(args, "TRAIN_MARKER", marker.string(), so, se);
  ASSERT_GE(pid, 0);
  for (int i = 0; i < 600 && !fs::exists(marker); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(marker)) << slurp(se);
  kill(pid, SIGINT);  // as `kill -INT` or a CI runner would: npu-advisor forwards it
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "npu-advisor itself must not die of SIGINT";
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(se);  // python died of SIGINT: 128 + 2
  std::string err = slurp(se);
  EXPECT_NE(err.find("KeyboardInterrupt"), std::string::npos) << err;
  EXPECT_NE(err.find("the command was ended by signal 2"), std::string::npos) << err;
  auto traces = traces_in(out);
  ASSERT_EQ(traces.size(), 1u) << err;
  EXPECT_EQ(count_profiler_steps(traces[0]), 4u);
  EXPECT_EQ(read_report(report)["summary"]["steps"].size(), 4u);
}

TEST(CollectorE2E, ChainsToTheUsersSitecustomize) {
  REQUIRE_TORCH();
  TempDir dir;
  dir.write("site/sitecustomize.py", "import sys\nprint('user sitecustomize ran', file=sys.stderr)\nVALUE = 42\n");
  dir.write("check.py",
            "import runpy, sys, sitecustomize\n"
            "assert sitecustomize.VALUE == 42, 'import sitecustomize gives the user module'\n"
            "sys.argv = [sys.argv[1]]\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n");
  fs::path out = dir.path() / "prof";
  CliRun r = run_cli(
      dir, "capture -o '" + out.string() + "' -- " + kPython + " " + (dir.path() / "check.py").string() + " " + kTrain,
      "PYTHONPATH='" + (dir.path() / "site").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("user sitecustomize ran"), std::string::npos) << r.err;
  EXPECT_EQ(traces_in(out).size(), 1u);
}

TEST(CollectorE2E, NonPythonCommandWithoutMsprofIsRefused) {
  TempDir dir;
  CliRun r = run_cli(dir, "capture -o '" + (dir.path() / "prof").string() + "' -- /bin/true", "PATH=/usr/bin:/bin");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("true is not a Python command; not a Python command, and msprof is not on PATH"),
            std::string::npos)
      << r.err;
}

TEST(CollectorE2E, MsprofIsRunWithOutputAndApplication) {
  // A stand-in msprof on PATH records how it was called and writes a PROF_ folder.
  TempDir dir;
  std::string fake = dir.write("bin/msprof",
                               "#!/bin/sh\n"
                               "for a in \"$@\"; do echo \"$a\"; done > \"$MSPROF_ARGS\"\n"
                               "out=${1#--output=}\nmkdir -p \"$out/PROF_000001_20260101000000000_ABC/host\"\n");
  chmod(fake.c_str(), 0755);
  fs::path out = dir.path() / "prof";
  std::string args_file = (dir.path() / "args.txt").string();
  CliRun r = run_cli(dir, "capture -o '" + out.string() + "' -- /bin/echo 'a b'",
                     "MSPROF_ARGS='" + args_file + "' PATH='" + (dir.path() / "bin").string() + ":/usr/bin:/bin'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(args_file), "--output=" + out.string() + "\n--application=/bin/echo 'a b'\n");
  EXPECT_NE(r.err.find("profiler: msprof (echo is not a Python command; not a Python command; msprof is on PATH)"),
            std::string::npos)
      << r.err;
}

TEST(CollectorCli, UsageErrors) {
  TempDir dir;
  EXPECT_EQ(run_cli(dir, "capture -o x").exit_code, 2);         // no command
  EXPECT_EQ(run_cli(dir, "analyze x --steps 3").exit_code, 2);  // capture option without command
  EXPECT_EQ(run_cli(dir, "analyze x --").exit_code, 2);         // empty command
  CliRun r = run_cli(dir, "capture -o x --profiler nsys -- python3 t.py");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nsys"), std::string::npos) << r.err;
}

TEST(CollectorE2E, KilledBeforeTheTraceIsWrittenSaysSo) {
  REQUIRE_TORCH();
  TempDir dir;
  // --kill-grace 0: SIGINT, SIGTERM and SIGKILL within a few ms, so the profiler's export at
  // exit may or may not finish. Either way the tool must not claim that the bootstrap never
  // loaded, and must exit 0 (a timeout, with a trace) or 2 (nothing captured, and why).
  CliRun r = run_cli(dir, "capture -o '" + (dir.path() / "prof").string() + "' --timeout 10 --kill-grace 0 -- " +
                              kPython + " " + kTrain + " 100 --sleep-after 4");
  EXPECT_EQ(r.err.find("never loaded"), std::string::npos) << r.err;
  if (r.exit_code == 2) EXPECT_NE(r.err.find(" and was ended by signal "), std::string::npos) << r.err;
  else EXPECT_EQ(r.exit_code, 0) << r.err;
}
