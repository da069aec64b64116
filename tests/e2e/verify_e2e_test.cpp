// End to end: `npu-advisor verify -o DIR ... -- /usr/bin/python3 testdata/verify/loader_job.py` with
// Debian's python3-torch (CPU; skipped when /usr/bin/python3 cannot import torch), docs/verify.md.
// One verify runs the baseline (a single-process DataLoader: 120 ms of fetch, 60 ms of other work a
// step) and three fixes: 2 workers (--after: confirmed, the prediction inside the band), a variable
// the job ignores (--env: no effect) and a deeper model (--after: different work, not judged).
// The realised saving is checked against the step spans read from the raw traces.
#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <signal.h>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "python_torch.h"
#include "test_support.h"

namespace fs = std::filesystem;
using nlohmann::json;
using npu::test::kPython;
using npu::test::slurp;
using npu::test::TempDir;

namespace {

const std::string kJob = std::string(NPU_SOURCE_DIR) + "/testdata/verify/loader_job.py";

int run(const std::string& args, const fs::path& err) {
  int status = std::system(("'" + std::string(NPU_ADVISOR_BIN) + "' " + args + " >/dev/null 2>'" + err.string() +
                            "' </dev/null")
                               .c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// ProfilerStep#N -> its duration (ns), read from the raw trace of a capture folder.
std::map<int64_t, double> step_spans(const fs::path& folder) {
  std::map<int64_t, double> out;
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.path().string().find(".pt.trace.json") == std::string::npos) continue;
    const json trace = json::parse(slurp(e.path()));  // Debian's torch 1.13 writes a bare event array
    for (const json& ev : trace.is_array() ? trace : trace["traceEvents"]) {
      const std::string name = ev.value("name", "");
      if (ev.value("ph", "") == "X" && name.rfind("ProfilerStep#", 0) == 0)
        out[std::stoll(name.substr(13))] = ev["dur"].get<double>() * 1000;
    }
  }
  return out;
}

TEST(VerifyE2E, WorkersConfirmedIgnoredVariableNoEffectDeeperModelNotJudged) {
  REQUIRE_TORCH();
  TempDir dir;
  const fs::path out = dir.path() / "v", err = dir.path() / "err.txt";
  const std::string job = kPython + " " + kJob;
  int rc = run("verify -o '" + out.string() + "' --env NPU_ADVISOR_TEST_IGNORED=1 --after '" + job +
                   " --workers 2' --after '" + job + " --layers 3' -- " + job,
               err);
  ASSERT_EQ(rc, 0) << slurp(err);
  const json doc = json::parse(slurp(out / "verify.json"));
  EXPECT_EQ(doc["schema"], "npu-advisor.verify");
  ASSERT_EQ(doc["fixes"].size(), 3u) << doc.dump(1);
  const json &ignored = doc["fixes"][0], &workers = doc["fixes"][1], &deeper = doc["fixes"][2];
  EXPECT_EQ(ignored["verdict"], "no effect") << ignored.dump(1);
  EXPECT_TRUE(ignored["prediction"].is_null());
  EXPECT_EQ(workers["verdict"], "confirmed") << workers.dump(1);
  EXPECT_EQ(workers["prediction"]["rule"], "schedule.dataloader");
  const double off = workers["prediction_off_ratio"].get<double>();
  EXPECT_TRUE(off >= -0.25 && off <= 0.33) << off;
  EXPECT_EQ(deeper["verdict"], "inconclusive");
  EXPECT_NE(deeper["why"].get<std::string>().find("backward operators per optimizer step: 11 -> 21"),
            std::string::npos)
      << deeper["why"];
  // The realised saving from the raw traces: the median (upper middle) of the per-step differences,
  // the first of the 8 recorded steps left out as warm-up.
  auto base = step_spans(out / "baseline"), fixed = step_spans(out / "after-1");
  ASSERT_EQ(base.size(), 8u);
  std::vector<double> d;
  for (auto it = std::next(base.begin()); it != base.end(); ++it) d.push_back(it->second - fixed.at(it->first));
  std::sort(d.begin(), d.end());
  EXPECT_NEAR(workers["realised"]["saving_ns"].get<double>(), d[d.size() / 2], 1000);
  // Each run kept its folder and exit code; the user's job file is untouched.
  for (const char* f : {"baseline", "env-NPU_ADVISOR_TEST_IGNORED=1", "after-1", "after-2"})
    EXPECT_TRUE(fs::is_directory(out / f)) << f;
  EXPECT_EQ(workers["run"]["exit_code"], 0);
  // The document against its schema (docs/verify.schema.json), where python3-jsonschema is installed.
  const std::string check = kPython + " -c 'import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), "
                            "json.load(open(sys.argv[2])))' '" + (out / "verify.json").string() + "' '" +
                            NPU_SOURCE_DIR + "/docs/verify.schema.json'";
  if (std::system((kPython + " -c 'import jsonschema' 2>/dev/null").c_str()) == 0)
    EXPECT_EQ(std::system(check.c_str()), 0);
  // --require in BASE NEW mode, on the same captures.
  EXPECT_EQ(run("verify '" + (out / "baseline").string() + "' '" + (out / "after-1").string() +
                    "' --require confirmed -q",
                err),
            0)
      << slurp(err);
  EXPECT_EQ(run("verify '" + (out / "baseline").string() + "' '" + (out / "env-NPU_ADVISOR_TEST_IGNORED=1").string() +
                    "' --require confirmed -q",
                err),
            1)
      << slurp(err);
  // BASE NEW refuses runs that did different work, naming the difference.
  EXPECT_EQ(run("verify '" + (out / "baseline").string() + "' '" + (out / "after-2").string() + "' -q", err), 2);
  EXPECT_NE(slurp(err).find("did different work: backward operators per optimizer step: 11 -> 21"), std::string::npos)
      << slurp(err);
}

// --runs 2: the baseline and the fix are each captured twice, into run-1 and run-2, and judged on
// their pooled steps. The realised saving is the median of the 14 paired per-step differences of
// both captures (each capture's first step left out as warm-up; an even count: the lower middle,
// the project's median), read from the raw traces.
TEST(VerifyE2E, RunsPoolTheStepsOfRepeatedCaptures) {
  REQUIRE_TORCH();
  TempDir dir;
  const fs::path out = dir.path() / "v", err = dir.path() / "err.txt";
  const std::string job = kPython + " " + kJob + " --fetch-ms 40 --work-ms 20";
  ASSERT_EQ(run("verify -o '" + out.string() + "' --runs 2 --env NPU_ADVISOR_TEST_IGNORED=1 -- " + job, err), 0)
      << slurp(err);
  const json doc = json::parse(slurp(out / "verify.json"));
  ASSERT_EQ(doc["baseline"]["run"]["runs"].size(), 2u) << doc["baseline"].dump(1);
  ASSERT_EQ(doc["fixes"].size(), 1u);
  const json& fix = doc["fixes"][0];
  ASSERT_EQ(fix["run"]["runs"].size(), 2u) << fix.dump(1);
  std::vector<double> d;
  for (const char* k : {"run-1", "run-2"}) {
    auto base = step_spans(out / "baseline" / k), fixed = step_spans(out / "env-NPU_ADVISOR_TEST_IGNORED=1" / k);
    ASSERT_EQ(base.size(), 8u) << k;
    for (auto it = std::next(base.begin()); it != base.end(); ++it) d.push_back(it->second - fixed.at(it->first));
  }
  std::sort(d.begin(), d.end());
  ASSERT_EQ(d.size(), 14u);
  EXPECT_NEAR(fix["realised"]["saving_ns"].get<double>(), d[(d.size() - 1) / 2], 1000) << fix.dump(1);
  // BASE NEW reads two runs; --runs is refused there.
  EXPECT_EQ(run("verify '" + (out / "baseline" / "run-1").string() + "' '" + (out / "baseline" / "run-2").string() +
                    "' --runs 2 -q",
                err),
            2);
}

// --runs 2 where the fix's second capture runs a deeper model (the job creates a flag file on its
// first run and finds it on the second): the pooled steps would mix two jobs, so the fix is not
// judged and the difference names the capture.
TEST(VerifyE2E, RunsWhoseCapturesDidDifferentWorkAreNotJudged) {
  REQUIRE_TORCH();
  TempDir dir;
  const fs::path out = dir.path() / "v", err = dir.path() / "err.txt", flag = dir.path() / "second";
  const std::string job = kPython + " " + kJob + " --fetch-ms 10 --work-ms 10";
  ASSERT_EQ(run("verify -o '" + out.string() + "' --runs 2 --after '" + job + " --deeper-after-first " +
                    flag.string() + "' -- " + job,
                err),
            0)
      << slurp(err);
  const json doc = json::parse(slurp(out / "verify.json"));
  ASSERT_EQ(doc["fixes"].size(), 1u);
  const json& fix = doc["fixes"][0];
  EXPECT_EQ(fix["verdict"], "inconclusive") << fix.dump(1);
  EXPECT_EQ(fix["same_work"]["same"], false);
  EXPECT_NE(fix["why"].get<std::string>().find("run-2 against run-1 of after"), std::string::npos) << fix["why"];
  EXPECT_NE(fix["why"].get<std::string>().find("11 -> 21"), std::string::npos) << fix["why"];
}

TEST(VerifyE2E, InterruptStopsTheRunAndReportsWhatWasMeasured) {
  REQUIRE_TORCH();
  TempDir dir;
  const fs::path out = dir.path() / "v", marker = dir.path() / "hanging", se = dir.path() / "err.txt";
  const std::string job = kPython + " " + kJob;
  std::vector<std::string> args = {NPU_ADVISOR_BIN, "verify", "-q", "-o", out.string(), "--after",
                                   job + " --hang-after 6 --steps 100", "--", kPython, kJob};
  pid_t pid = npu::test::spawn(args, "JOB_MARKER", marker.string(), "/dev/null", se.string());
  ASSERT_GE(pid, 0);
  for (int i = 0; i < 1200 && !fs::exists(marker); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(marker)) << slurp(se);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 4) << slurp(se);
  const json doc = json::parse(slurp(out / "verify.json"));
  EXPECT_EQ(doc["baseline"]["run"]["status"], "ok");
  ASSERT_EQ(doc["fixes"].size(), 1u);
  EXPECT_EQ(doc["fixes"][0]["verdict"], "not compared");
  EXPECT_EQ(doc["fixes"][0]["run"]["status"], "interrupted");
}

}  // namespace
