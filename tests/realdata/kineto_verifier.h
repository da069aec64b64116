// Runs tests/realdata/verify_kineto.py (an independent Python reimplementation of the GPU step
// rule and breakdown, docs/overlap.md) on a trace and compares every step it prints with the
// tool's facts, to the nanosecond.
#pragma once
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

// Runs the verifier itself and compares every step it prints with the tool's facts, so the
// numbers above cannot drift from what the script computes.
// The verifier's output on `path` ("" when it could not run).
inline std::string run_verifier(const std::string& path) {
  std::string cmd = "/usr/bin/python3 " + npu::test::source_dir() + "/tests/realdata/verify_kineto.py '" + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  return pclose(p) == 0 ? out : "";
}

// The step times (ns) the verifier prints, in step order.
inline std::vector<long long> verifier_step_times(const std::string& path) {
  std::istringstream lines(run_verifier(path));
  std::string line;
  std::vector<long long> out;
  long long id, step;
  while (std::getline(lines, line))
    if (std::sscanf(line.c_str(), "  step %lld: step %lld", &id, &step) == 2) out.push_back(step);
  return out;
}

inline void expect_matches_verifier(const std::string& path) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const std::string out = run_verifier(path);
  ASSERT_FALSE(out.empty()) << "verify_kineto.py failed on " << path;
  npu::Facts f = npu::compute_facts(npu::test::load_path(path));
  std::istringstream lines(out);
  std::string line;
  size_t i = 0;
  while (std::getline(lines, line)) {
    long long id, step, comp, comm, cno, copies, free, launches;
    char lag[32] = {};
    if (std::sscanf(line.c_str(),
                    "  step %lld: step %lld computing %lld communication %lld not_overlapped %lld copies %lld free "
                    "%lld launches %lld lag_p50 %31s",
                    &id, &step, &comp, &comm, &cno, &copies, &free, &launches, lag) != 9)
      continue;
    ASSERT_LT(i, f.doc["steps"].size()) << line;
    const auto& s = f.doc["steps"][i];
    const auto& d = f.doc["dispatch"]["steps"][i];
    EXPECT_EQ(s["id"], id) << line;
    EXPECT_EQ(s["device_time_ns"], step) << line;
    EXPECT_EQ(s.value("copies_ns", 0), copies) << line;
    EXPECT_EQ(s["computing_ns"], comp) << line;
    EXPECT_EQ(s["communication_ns"], comm) << line;
    EXPECT_EQ(s["comm_not_overlapped_ns"], cno) << line;
    EXPECT_EQ(s["free_ns"], free) << line;
    EXPECT_EQ(d["count"], launches) << line;
    if (std::string(lag) != "None") EXPECT_EQ(d["lag_p50_ns"], std::stoll(lag)) << line;
    ++i;
  }
  EXPECT_EQ(i, f.doc["steps"].size()) << out;
}
