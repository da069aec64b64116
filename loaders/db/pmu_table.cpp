// TASK_PMU_INFO, the hardware counters of each compute task in long format (one row per task
// and metric), into the kernels' row-major PMU table (RunModel::pmu_values). It is the biggest
// table of an export and the last one the load waits for, so it is read on connections of its
// own while the other tables load (loaders/db/db_export.cpp).
#include "loaders/db/pmu_table.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

namespace npu {

void PmuTableReader::read() {
  try {
    if (!cx_.db.has_table("TASK_PMU_INFO") || cx_.model.kernels.empty()) return;
    SqliteDb db(cx_.db.path());
    ColumnPicker p(db, "TASK_PMU_INFO");
    int gid = p.add({"globalTaskId"}), name = p.add({"name"}), value = p.add({"value"});
    if (!p.has(gid) || !p.has(name) || !p.has(value)) {
      note_ = "TASK_PMU_INFO without globalTaskId/name/value";
      return;
    }
    cols_ = {gid, name, value};
    select_ = "SELECT " + p.select_list() + " FROM TASK_PMU_INFO";
    // Rows of the kernels' row-major table: the compute kernels, then room for the HCCL
    // rows that the end of the load appends (NaN). The width is the number of metrics in
    // the first rows (every task has them all, in practice); a metric found later widens
    // the table (a copy), and unused width is squeezed out at the end.
    rows_ = cx_.model.kernels.size() + cx_.rows.comm_ops;
    {
      SqliteStmt head(db, select_ + " LIMIT 4096", "TASK_PMU_INFO");
      std::set<std::string> seen;
      while (head.step()) {
        std::string metric(head.is_integer(name) ? "#" : "");  // an id and a text never collide
        metric += head.text(name);
        seen.insert(std::move(metric));
      }
      stride_ = std::max<size_t>(1, seen.size());
    }
    if (!read_in_chunks(db)) {
      // A metric that was not in the first rows (or a failed chunk): read it all in order.
      names_.clear();
      values_.clear();
      col_of_text_.clear();
      col_of_id_.clear();
      col_of_big_id_.clear();
      SqliteStmt st(db, select_, "TASK_PMU_INFO");
      read_rows(st, true);
    }
    // Squeeze the unused width out: row r moves down from r * stride to r * w.
    const size_t w = names_.size();
    if (w > 0 && w < stride_) {
      for (size_t r = 0; r < rows_; ++r)
        std::copy_n(values_.begin() + static_cast<ptrdiff_t>(r * stride_), w,
                    values_.begin() + static_cast<ptrdiff_t>(r * w));
      values_.resize(rows_ * w);
      stride_ = w;
    }
  } catch (...) {
    error_ = std::current_exception();
  }
}

// Reads rows of TASK_PMU_INFO into the table. With `add_columns`, a metric seen for the first
// time gets the next column (the sequential read); without, the columns are fixed and an
// unknown metric stops the read and returns false (a chunk read on two threads).
bool PmuTableReader::read_rows(SqliteStmt& st, bool add_columns) {
  const int gid = cols_[0], name = cols_[1], value = cols_[2];
  auto new_column = [&](StrId id, std::string text) {
    if (names_.size() == stride_ || values_.empty()) widen(values_.empty() ? stride_ : stride_ * 2);
    names_.push_back({id, std::move(text)});
    return static_cast<uint32_t>(names_.size() - 1);
  };
  while (st.step()) {
    const uint32_t kernel = cx_.kernel_of(st.i64(gid));
    if (kernel == kNone32) continue;
    uint32_t col = kNone32;
    if (st.is_integer(name)) {
      const int64_t id = st.i64(name);
      if (id >= 0 && id < (int64_t{1} << 20)) {
        if (static_cast<size_t>(id) < col_of_id_.size()) col = col_of_id_[static_cast<size_t>(id)];
        if (col == kNone32 && add_columns) {
          if (static_cast<size_t>(id) >= col_of_id_.size()) col_of_id_.resize(static_cast<size_t>(id) + 1, kNone32);
          col = col_of_id_[static_cast<size_t>(id)] = new_column(cx_.string_id(id), "");
        }
      } else {
        auto it = col_of_big_id_.find(id);
        if (it != col_of_big_id_.end()) col = it->second;
        else if (add_columns) col = col_of_big_id_.emplace(id, new_column(cx_.string_id(id), "")).first->second;
      }
    } else {
      std::string text(st.text(name));
      auto it = col_of_text_.find(text);
      if (it != col_of_text_.end()) col = it->second;
      else if (add_columns) col = col_of_text_.emplace(text, new_column(kNone32, text)).first->second;
    }
    if (col == kNone32) return false;
    values_[size_t{kernel} * stride_ + col] = st.null(value) ? std::nan("") : st.f64(value);
  }
  return true;
}

// TASK_PMU_INFO is the biggest table (one row per task and metric) and the last reader the
// load waits for. Its columns are fixed from the first rows (in the order a sequential read
// gives them), then the table is read in rowid ranges that this thread and, once it has
// finished the other tables, the main thread (help_read) take in turn. Each range writes
// its own tasks' cells. False when a range met a metric the first rows did not have.
bool PmuTableReader::read_in_chunks(SqliteDb& db) {
  {
    SqliteStmt head(db, select_ + " LIMIT 4096", "TASK_PMU_INFO");
    if (!read_rows(head, true)) return false;
  }
  if (values_.empty()) widen(stride_);
  SqliteStmt span(db, "SELECT (SELECT min(rowid) FROM TASK_PMU_INFO), (SELECT max(rowid) FROM TASK_PMU_INFO)",
                  "TASK_PMU_INFO");
  if (!span.step() || span.null(0)) return true;
  first_rowid_ = span.i64(0);
  const int64_t last = span.i64(1);
  chunk_rows_ = std::max<int64_t>(4096, (last - first_rowid_ + 1) / 64 + 1);
  chunks_ = static_cast<int>((last - first_rowid_) / chunk_rows_ + 1);
  ready_.store(true);
  read_chunks(db);
  // Wait for a range the main thread may still be reading.
  while (chunks_done_.load() < chunks_) std::this_thread::yield();
  return !chunk_failed_.load();
}

void PmuTableReader::read_chunks(SqliteDb& db) {
  for (int c; (c = next_chunk_.fetch_add(1)) < chunks_;) {
    try {
      const int64_t lo = first_rowid_ + c * chunk_rows_;
      SqliteStmt st(
          db, select_ + " WHERE rowid >= " + std::to_string(lo) + " AND rowid < " + std::to_string(lo + chunk_rows_),
          "TASK_PMU_INFO");
      if (!read_rows(st, false)) chunk_failed_.store(true);
    } catch (...) {
      chunk_failed_.store(true);  // read again in order, where the error is reported
    }
    chunks_done_.fetch_add(1);
  }
}

// The main thread, done with the other tables, reads PMU ranges too instead of waiting.
void PmuTableReader::help_read() {
  if (!ready_.load() || next_chunk_.load() >= chunks_) return;
  try {
    SqliteDb db(cx_.db.path());
    read_chunks(db);
  } catch (...) {
    // Opening failed: the PMU thread reads the remaining ranges itself.
  }
}

// The PMU table with room for `stride` metrics per row (NaN where a kernel has no value).
void PmuTableReader::widen(size_t stride) {
  std::vector<double> wider;
  wider.reserve(rows_ * stride);
  wider.assign(rows_ * stride, std::nan(""));
  const size_t w = names_.size();
  if (!values_.empty())
    for (size_t r = 0; r < rows_; ++r)
      std::copy_n(values_.begin() + static_cast<ptrdiff_t>(r * stride_), w,
                  wider.begin() + static_cast<ptrdiff_t>(r * stride));
  values_.swap(wider);
  stride_ = stride;
}

// Back on the loading thread, once read() has returned: the metric names into the model and
// the values with them (the kernel sort at the end of the load drops the HCCL rows not used).
void PmuTableReader::take_into_model(DbLoadContext& cx) {
  if (error_) std::rethrow_exception(error_);
  if (!note_.empty()) cx.schema_notes.push_back(note_);
  for (const auto& [id, text] : names_)
    cx.model.pmu_columns.push_back(id != kNone32 ? id : cx.model.strings.intern(text));
  if (!cx.model.pmu_columns.empty()) cx.model.pmu_values.swap(values_);
}

}  // namespace npu
