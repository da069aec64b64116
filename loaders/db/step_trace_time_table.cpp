// StepTraceTime of analysis.db / communication_analyzer.db: the profiler's own per-step
// breakdown (step_trace_time.csv in a text export; the columns: loaders/common/step_trace_columns.h), kept as a
// cross-check of the breakdown computed from the tasks. The CommAnalyzer* tables beside it are only noted here.
#include <filesystem>
#include <string>
#include <vector>

#include "base/decimal.h"
#include "base/load_error.h"
#include "loaders/common/duration_bound.h"
#include "loaders/common/step_trace_columns.h"
#include "loaders/db/db_readers.h"

namespace npu {

void read_analysis_step_trace(const std::string& path, RunModel& model) {
  SqliteDb db(path);
  InputFile f;
  f.role_id = Role::StepTraceTime;
  f.role = role_name(Role::StepTraceTime);
  f.path = path;
  std::error_code ec;
  f.bytes = std::filesystem::file_size(path, ec);
  if (!db.has_table("StepTraceTime")) {
    f.path.clear();
    f.status = InputFile::Status::Missing;
    f.note = "no StepTraceTime table in " + std::filesystem::path(path).filename().string() +
             ": the profiler's own per-step breakdown (cross-check)";
    model.add_file(std::move(f));
    return;
  }
  f.status = InputFile::Status::Loaded;
  f.table = "StepTraceTime";
  uint16_t id = model.add_file(std::move(f));
  namespace cols = step_trace_columns;
  ColumnPicker c(db, "StepTraceTime");
  const int dev = c.add({cols::kDbDevice}), step = c.add({cols::kDbStep});
  std::vector<int> time;
  bool required = true;
  for (const auto& col : cols::kTimes) {
    time.push_back(c.add({col.db}));
    if (col.required) required = required && c.has(time.back());
  }
  if (!required)
    throw LoadError::whole_file(path, "table StepTraceTime has no computing/free/communication_not_overlapped columns");
  SqliteStmt st(db, "SELECT rowid, " + c.select_list() + " FROM StepTraceTime", "StepTraceTime");
  // Values are microseconds (as step_trace_time.csv), stored as NUMERIC: read the text and
  // convert exactly, never through a double.
  auto us = [&](int col, Ns dflt) -> Ns {
    if (!c.has(col) || st.null(1 + col)) return dflt;
    auto v = parse_us_to_ns(st.text(1 + col));
    if (!v)
      throw LoadError::whole_file(path, "StepTraceTime rowid " + std::to_string(st.i64(0)) + ": not a number: \"" +
                                            std::string(st.text(1 + col)) + "\"");
    return *v;
  };
  uint64_t n = 0, impossible = 0;
  int64_t first_impossible = 0;
  while (st.step()) {
    StepTraceRow r;
    r.line = static_cast<uint32_t>(st.i64(0));
    r.device = c.has(dev) && !st.null(1 + dev) ? static_cast<int32_t>(st.i64(1 + dev)) : -1;
    if (c.has(step) && !st.null(1 + step)) r.step = parse_int(st.text(1 + step)).value_or(kNoId);
    bool too_long = false;
    for (size_t i = 0; i < cols::kTimes.size(); ++i) {
      r.*cols::kTimes[i].field = us(time[i], cols::kTimes[i].missing);
      too_long |= impossibly_long(r.*cols::kTimes[i].field);  // loaders/common/duration_bound.h
    }
    if (too_long) {
      if (impossible++ == 0) first_impossible = st.i64(0);
      continue;
    }
    model.step_trace.push_back(r);
    ++n;
  }
  model.files[id].records = n;
  if (impossible)
    model.stats.reject(path + ": StepTraceTime: " + std::to_string(impossible) + (impossible == 1 ? " row" : " rows") +
                       " " + kImpossiblyLongRow + " " + (impossible == 1 ? "was" : "were") + " skipped (first: rowid " +
                       std::to_string(first_impossible) + ")");
  for (const auto& t : db.tables())
    if (t.rfind("CommAnalyzer", 0) == 0) {
      model.files[id].note = "also holds " + t + " (communication analysis: read by the planned cluster path)";
      break;
    }
}

}  // namespace npu
