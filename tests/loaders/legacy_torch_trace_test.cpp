// The legacy autograd-profiler trace (torch.profiler without Kineto, Debian 12's python3-torch):
// string pid "CPU functions", no categories. Its events are host operators of a CPU-only run.
#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace {

const char* kLegacy = R"([
{"name": "ProfilerStep#2", "ph": "X", "ts": 100, "dur": 1000, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::linear", "ph": "X", "ts": 110, "dur": 300, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::addmm", "ph": "X", "ts": 120, "dur": 200, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "ProfilerStep#3", "ph": "X", "ts": 1200, "dur": 800, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::linear", "ph": "X", "ts": 1210, "dur": 500, "tid": 1, "pid": "CPU functions", "args": {}}
])";

TEST(LegacyTorchTrace, IsACpuRunWithHostOperatorsAndSteps) {
  npu::RunModel m = npu::test::load_trace_text(kLegacy);
  EXPECT_EQ(m.meta.platform, "cpu");
  EXPECT_EQ(m.meta.framework, "pytorch");
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[0].id, 2);
  EXPECT_EQ(m.steps[1].end - m.steps[1].start, 800'000);
  npu::Facts f = npu::compute_facts(m);
  const auto& host = f.doc["operators"]["host"]["by_name"];
  ASSERT_EQ(host.size(), 2u);  // ProfilerStep# excluded
  EXPECT_EQ(host[0]["name"], "aten::linear");
  EXPECT_EQ(host[0]["count"], 2);
  EXPECT_EQ(host[0]["total_ns"], 800'000);
  EXPECT_EQ(host[1]["name"], "aten::addmm");
  EXPECT_EQ(host[1]["total_ns"], 200'000);
}

}  // namespace
