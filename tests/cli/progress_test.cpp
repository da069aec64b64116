// Load progress: the trace loader reports bytes read up to the file size, and the CLI's
// progress line says how far it got.
#include <filesystem>

#include <gtest/gtest.h>

#include "cli/progress_line.h"
#include "loaders/common/trace_json_loader.h"
#include "test_support.h"

namespace {

TEST(LoadProgress, ReportsBytesReadUpToTheFileSize) {
  std::string path = npu::test::sample_run() + "/ASCEND_PROFILER_OUTPUT/trace_view.json";
  uint64_t size = std::filesystem::file_size(path);
  for (int threads : {1, 2}) {
    npu::TraceLoadOptions opt;
    opt.threads = threads;
    opt.chunk_bytes = 64 << 10;  // several chunks, so several reports
    std::vector<std::pair<uint64_t, uint64_t>> seen;
    opt.progress = [&](uint64_t done, uint64_t total) { seen.emplace_back(done, total); };
    npu::RunModel m;
    npu::load_trace_json(path, 0, m, opt);
    ASSERT_GE(seen.size(), 3u) << "threads " << threads;
    for (size_t i = 0; i < seen.size(); ++i) {
      EXPECT_EQ(seen[i].second, size);
      if (i > 0) {
        EXPECT_GE(seen[i].first, seen[i - 1].first);
      }
    }
    EXPECT_EQ(seen.back().first, size);
  }
}

TEST(LoadProgress, LineSaysHowFar) {
  using npu::cli::ProgressLine;
  EXPECT_EQ(ProgressLine::format("run", 430'000'000, 1'000'000'000), "loading run: 430 MB of 1000 MB (43%)");
  EXPECT_EQ(ProgressLine::format("t.json.gz", 12'000'000, 0), "loading t.json.gz: 12 MB");
  EXPECT_EQ(ProgressLine::format("run", 1'000'000'000, 1'000'000'000), "loading run: 1000 MB read, indexing events...");
}

}  // namespace
