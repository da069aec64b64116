// The end-to-end tests that run PyTorch jobs under the collector (collector_e2e_test.cpp,
// verify_e2e_test.cpp): Debian's python3-torch (CPU), or the test is skipped.
#pragma once
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace npu::test {

inline const std::string kPython = "/usr/bin/python3";

inline bool have_torch() {
  static const bool ok = std::system((kPython + " -c 'import torch' > /dev/null 2>&1").c_str()) == 0;
  return ok;
}

// Starts args[0] with `name`=`value` in its environment and stdout, stderr to those files: a
// command a test interrupts while it runs. The child's pid.
inline pid_t spawn(std::vector<std::string> args, const char* name, const std::string& value, const std::string& out,
                   const std::string& err) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  setenv(name, value.c_str(), 1);
  int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(o, 1);
  dup2(e, 2);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  _exit(127);
}

}  // namespace npu::test

#define REQUIRE_TORCH()               \
  if (!npu::test::have_torch())       \
  GTEST_SKIP() << npu::test::kPython << " cannot import torch (apt-get install python3-torch)"
