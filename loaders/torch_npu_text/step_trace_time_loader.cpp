// step_trace_time.csv: the profiler's own per-step breakdown (values in us; its columns:
// loaders/common/step_trace_columns.h).
#include <vector>

#include "base/decimal.h"
#include "loaders/common/csv_table.h"
#include "loaders/common/duration_bound.h"
#include "loaders/common/step_trace_columns.h"
#include "loaders/torch_npu_text/ascend_files.h"

namespace npu {

uint64_t load_step_trace_time(const std::string& path, RunModel& model) {
  namespace cols = step_trace_columns;
  CsvTable t(path);
  if (t.header().empty()) return 0;
  const int c_dev = t.col(cols::kCsvDevice);
  const int c_step = t.col(cols::kCsvStep);
  std::vector<int> c_time;
  for (const auto& c : cols::kTimes) c_time.push_back(c.required ? t.require({c.csv}) : t.col({c.csv}));
  uint64_t n = 0;
  std::vector<uint32_t> too_long;  // rows with an impossible time (loaders/common/duration_bound.h)
  t.for_each_row([&](const CsvTable::Row& r) {
    StepTraceRow s;
    s.line = r.line();
    s.device = static_cast<int32_t>(r.integer(c_dev).value_or(-1));
    s.step = r.integer(c_step).value_or(kNoId);
    bool negative = false, impossible = false;
    for (size_t i = 0; i < cols::kTimes.size(); ++i) {
      const auto& c = cols::kTimes[i];
      s.*c.field = r.us_to_ns(c_time[i]).value_or(c.missing);
      // A negative or impossibly long time is corrupt: the row is skipped (with a warning), not summed.
      negative |= c.missing == 0 && s.*c.field < 0;
      impossible |= impossibly_long(s.*c.field);
    }
    if (negative) t.skip_row(r.line());
    else if (impossible) too_long.push_back(r.line());
    if (negative || impossible) return;
    model.step_trace.push_back(s);
    ++n;
  });
  t.report_skipped("with a negative time");
  for (uint32_t line : too_long) t.skip_row(line);
  t.report_skipped(kImpossiblyLongRow);
  for (const auto& w : t.warnings()) model.stats.reject(w);  // rows skipped
  return n;
}

}  // namespace npu
