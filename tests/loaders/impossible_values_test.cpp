// Values no measurement has, refused where the SQLite exports are read (issue 47): a StepTraceTime
// row with a time over 24 hours (a Computing of 1e15 us was a 31-year step) and a memory size
// that is no finite number (an inf total became a null peak). Both rows are skipped and named, so
// the run is partial; the CSV side is tested through the binary (tests/e2e/hostile_round4_*).
#include <string>

#include <gtest/gtest.h>

#include "base/load_error.h"
#include "loaders/communication/communication_files.h"
#include "loaders/db/db_export.h"
#include "loaders/db/format.h"
#include "test_support.h"

using npu::test::make_db;
using npu::test::TempDir;

namespace {

bool rejected(const npu::RunModel& m, const std::string& text) {
  for (const auto& r : m.stats.rejected)
    if (r.find(text) != std::string::npos) return true;
  return false;
}

std::string all(const npu::RunModel& m) {
  std::string s;
  for (const auto& r : m.stats.rejected) s += r + "\n";
  return s;
}

}  // namespace

TEST(ImpossibleDbValues, AStepTraceTimeRowOverADayIsSkipped) {
  TempDir dir;
  const std::string p = (dir.path() / "analysis.db").string();
  make_db(p,
          "CREATE TABLE StepTraceTime (deviceId INTEGER, step TEXT, computing NUMERIC, "
          "communication_not_overlapped NUMERIC, free NUMERIC);"
          "INSERT INTO StepTraceTime VALUES (0, '1', 6728.029, 217.544, 345.278), (0, '2', 1e15, 217.544, 345.278);");
  npu::RunModel m;
  npu::load_analysis_db(p, m);
  ASSERT_EQ(m.step_trace.size(), 1u);
  EXPECT_EQ(m.step_trace[0].step, 1);
  EXPECT_TRUE(rejected(m, p + ": StepTraceTime: 1 row with a time over 24 hours (impossible for one step) was "
                              "skipped (first: rowid 2)"))
      << all(m);
}

TEST(ImpossibleDbValues, AMemorySizeThatIsNoFiniteNumberIsSkipped) {
  TempDir dir;
  const std::string p = (dir.path() / "ascend_pytorch_profiler_0.db").string();
  make_db(p,
          "CREATE TABLE STRING_IDS (id INTEGER, value TEXT); INSERT INTO STRING_IDS VALUES (21, 'PTA');"
          "CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, "
          "totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);"
          "INSERT INTO MEMORY_RECORD VALUES (21, 1000000, 1048576, 3145728, NULL, 1, 3),"
          " (21, 2000000, 1048576, 1e999, NULL, 1, 3), (21, 3000000, 1048576, 2097152, NULL, 1, 3);");
  npu::RunModel m;
  npu::load_profiler_db(p, m, npu::db_producer(p));
  ASSERT_EQ(m.memory_records.size(), 2u);
  EXPECT_DOUBLE_EQ(m.memory_records[1].reserved_mb, 2.0);
  EXPECT_TRUE(rejected(m, "MEMORY_RECORD: 1 row with a size that is not a finite number was skipped (first: rowid 2)"))
      << all(m);
}

// The profiler's cluster_step_trace_time.csv is read as the rank's own rows: an impossible time is
// an error naming the line, as its bad cells are.
TEST(ImpossibleCsvValues, AClusterRankRowOverADayIsAnError) {
  TempDir dir;
  const std::string p = dir.write("cluster_step_trace_time.csv",
                                  "Step,Type,Index,Computing,Communication(Not Overlapped),Free\n"
                                  ",rank,0,80309.68,683731.28,990605.10\n"
                                  ",rank,1,1e15,683731.28,990605.10\n");
  try {
    npu::load_cluster_step_trace_time(p);
    FAIL() << "no error";
  } catch (const npu::LoadError& e) {
    EXPECT_EQ(std::string(e.what()), p + ":3: rank row with a time over 24 hours (impossible for one step)");
  }
}
