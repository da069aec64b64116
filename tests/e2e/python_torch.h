// The end-to-end tests that run PyTorch jobs under the collector (collector_e2e_test.cpp,
// verify_e2e_test.cpp): Debian's python3-torch (CPU), or the test is skipped.
#pragma once
#include <cstdlib>
#include <string>

namespace npu::test {

inline const std::string kPython = "/usr/bin/python3";

inline bool have_torch() {
  static const bool ok = std::system((kPython + " -c 'import torch' > /dev/null 2>&1").c_str()) == 0;
  return ok;
}

}  // namespace npu::test

#define REQUIRE_TORCH()               \
  if (!npu::test::have_torch())       \
  GTEST_SKIP() << npu::test::kPython << " cannot import torch (apt-get install python3-torch)"
