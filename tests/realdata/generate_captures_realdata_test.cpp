// Hugging Face generate() on an H200, captured without a profiler schedule (no ProfilerStep#N):
// testdata/captured/h200_generate/generate_static, a compiled static-cache Llama, one request of
// batch 8 and one of batch 32, each a prefill and 22 decode tokens, every forward a
// record_function "## Call CompiledFxGraph ... ##" whose decode calls replay a CUDA graph (a
// 0.3 ms host call, 1 ms of device work). The forwards are the steps (docs/overlap.md, "Steps
// without ProfilerStep"): each decode step lasts until the next token's forward starts, and its
// median per request lands within 5% of the decode time per token measured without the profiler
// (times_static.json: 1.8193 ms at batch 8, 2.1042 ms at batch 32). Skipped without the capture.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string capture() { return npu::test::source_dir() + "/testdata/captured/h200_generate"; }

double median_ms(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

TEST(GenerateCaptures, DecodeStepsMatchTheUnprofiledTimePerToken) {
  if (!fs::exists(capture() + "/times_static.json")) GTEST_SKIP() << "no " << capture();
  std::ifstream in(capture() + "/times_static.json");
  const json times = json::parse(in);
  const npu::RunModel m = npu::test::load_path(capture() + "/generate_static");
  EXPECT_EQ(m.meta.step_source.rfind("record_function '## Call CompiledFxGraph", 0), 0u) << m.meta.step_source;
  ASSERT_EQ(m.steps.size(), 46u);
  // Per request: the prefill (a break of over 10 ms follows it: its own span), 21 decode steps
  // that last until the next forward, and the last decode (the next request follows a break).
  for (const auto& [first, batch] : {std::pair<size_t, const char*>{0, "8"}, {23, "32"}}) {
    SCOPED_TRACE(batch);
    std::vector<double> decode;
    for (size_t k = first + 1; k < first + 22; ++k)
      decode.push_back(static_cast<double>(m.steps[k].end - m.steps[k].start) / 1e6);
    const double want = times["batches"][batch]["decode_ms_per_token"].get<double>();
    EXPECT_NEAR(median_ms(decode), want, 0.05 * want);
  }
}

}  // namespace
