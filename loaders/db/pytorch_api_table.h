// The PYTORCH_API reader (loaders/db/pytorch_api_table.cpp), in two halves: read() runs on its
// own thread and connection from the start of the load and does the SQLite work (PYTORCH_API
// and CONNECTION_IDS, the second-biggest tables); apply() runs on the loading thread once the
// tasks are in and turns the rows into slices and flows in row order, as a single thread would.
#pragma once
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "loaders/db/db_load_context.h"

namespace npu {

class PytorchApiReader {
 public:
  explicit PytorchApiReader(const DbLoadContext& cx) : cx_(cx) {}

  // Touches nothing of the model; STRING_IDS ids are resolved through the string tables that
  // read_string_ids() filled before the thread started, text names are kept for apply().
  // Errors are kept for apply() to rethrow.
  void read();
  // After read() has returned and TASK is in: slices, steps and flows into the model.
  void apply(DbLoadContext& cx);

 private:
  // One PYTORCH_API row as read by the thread: the SQLite work done, the model untouched.
  struct ApiRow {
    int64_t rowid, start, end, gtid, conn;
    StrId name;  // a STRING_IDS string, or kTextName | index into texts_
    enum Kind : uint8_t { Op, Queue, Trace, Mstx } kind;
  };
  static constexpr StrId kTextName = 0x80000000u;

  const DbLoadContext& cx_;
  bool columns_ok_ = false;
  std::vector<ApiRow> rows_;
  std::vector<std::string> texts_;  // names written as text (older schemas), each once
  IdMultiIndex<int64_t> conn_ids_;  // CONNECTION_IDS: id -> connectionIds
  std::exception_ptr error_;
};

}  // namespace npu
