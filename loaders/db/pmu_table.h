// The TASK_PMU_INFO reader (loaders/db/pmu_table.cpp): started on its own thread once the
// kernels are in (read), helped by the loading thread when it has finished the other tables
// (help_read), and handed over to the model after both have returned (take_into_model).
#pragma once
#include <array>
#include <atomic>
#include <exception>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "loaders/db/db_load_context.h"

namespace npu {

class PmuTableReader {
 public:
  explicit PmuTableReader(const DbLoadContext& cx) : cx_(cx) {}

  // Runs on the PMU thread: touches nothing of the model but reads (kernel ids, strings);
  // metric names written as text are kept as text and interned by take_into_model().
  // Errors are kept for take_into_model() to rethrow.
  void read();
  // The loading thread reads the rowid ranges read() has not started yet.
  void help_read();
  // After read() has returned: the metric names and values into the model.
  void take_into_model(DbLoadContext& cx);

 private:
  bool read_rows(SqliteStmt& st, bool add_columns);
  bool read_in_chunks(SqliteDb& db);
  void read_chunks(SqliteDb& db);
  void widen(size_t stride);

  const DbLoadContext& cx_;
  std::vector<std::pair<StrId, std::string>> names_;  // interned id, or the text to intern
  std::vector<double> values_;                        // rows x stride, row-major (kernel order as read)
  size_t rows_ = 0, stride_ = 0;
  std::string note_;
  std::exception_ptr error_;
  // Metric -> column (fixed while ranges are read on two threads).
  std::map<std::string, uint32_t> col_of_text_;
  std::vector<uint32_t> col_of_id_;  // STRING_IDS id -> column; ids are small
  std::unordered_map<int64_t, uint32_t> col_of_big_id_;
  std::array<int, 3> cols_{};  // globalTaskId, name, value in `select_`
  std::string select_;
  // Rowid ranges shared by the PMU thread and the main thread.
  std::atomic<bool> ready_{false}, chunk_failed_{false};
  std::atomic<int> next_chunk_{0}, chunks_done_{0};
  int chunks_ = 0;
  int64_t first_rowid_ = 0, chunk_rows_ = 1;
};

}  // namespace npu
