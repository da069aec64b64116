// model.h correlation_launches(): the host launch of each Kineto correlation id. Calls of one id
// that nest are one launch; an id on calls that do not nest (reused across steps) is ambiguous and
// left unpaired (issue 47: reused ids made a 30 % slower run read as "1.000 -> 0.000 ms").
#include <string>

#include <gtest/gtest.h>

#include "model/model.h"
#include "test_support.h"

namespace {

std::string call(const char* cat, const char* name, int ts, int dur, int corr) {
  return std::string(R"({"ph": "X", "cat": ")") + cat + R"(", "name": ")" + name +
         R"(", "pid": 100, "tid": 100, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) +
         R"(, "args": {"correlation": )" + std::to_string(corr) + "}}";
}

}  // namespace

TEST(CorrelationLaunches, NestedCallsAreOneLaunchAndReusedIdsAreAmbiguous) {
  const std::string trace = "[" + call("cuda_runtime", "cudaLaunchKernel", 10, 20, 1) + ", " +
                            call("cuda_driver", "cuLaunchKernel", 12, 5, 1) + ", " +
                            call("cuda_runtime", "cudaLaunchKernel", 40, 5, 2) + ", " +
                            call("cuda_runtime", "cudaLaunchKernel", 100, 5, 2) + ", " +
                            call("cuda_runtime", "cudaLaunchKernel", 50, 5, 3) + "]";
  const npu::RunModel m = npu::test::load_trace_text(trace);
  const npu::CorrelationLaunches c = npu::correlation_launches(m);
  ASSERT_EQ(c.ambiguous, std::vector<int64_t>{2});
  ASSERT_EQ(c.by_id.size(), 2u);
  ASSERT_TRUE(c.by_id.count(1));
  EXPECT_EQ(m.str(m.slices[c.by_id.at(1)].name), "cudaLaunchKernel");  // the outer call
  EXPECT_EQ(m.slices[c.by_id.at(3)].ts, 50'000);
}
