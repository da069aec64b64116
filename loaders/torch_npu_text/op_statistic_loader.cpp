// op_statistic.csv: the profiler's per-operator-type totals.
#include "base/decimal.h"
#include "loaders/common/csv_table.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "loaders/torch_npu_text/csv_columns.h"

namespace npu {

uint64_t load_op_statistic(const std::string& path, RunModel& model) {
  CsvTable t(path);
  if (t.header().empty()) return 0;
  namespace cols = csv_columns::op_statistic;
  const int c_type = t.require(cols::kType);
  const int c_core = t.col(cols::kCore);
  const int c_count = t.require(cols::kCount);
  const int c_total = t.require(cols::kTotal);
  const int c_min = t.col(cols::kMin);
  const int c_avg = t.col(cols::kAvg);
  const int c_max = t.col(cols::kMax);
  const int c_ratio = t.col(cols::kRatio);
  const int c_dev = t.col(cols::kDevice);
  uint64_t n = 0;
  t.for_each_row([&](const CsvTable::Row& r) {
    OpStatistic o;
    o.line = r.line();
    o.op_type = model.strings.intern(trim_cell(r[c_type]));
    o.core_type = model.strings.intern(trim_cell(r[c_core]));
    o.count = r.integer(c_count).value_or(0);
    o.total = r.us_to_ns(c_total).value_or(0);
    o.min = r.us_to_ns(c_min).value_or(0);
    o.avg = r.us_to_ns(c_avg).value_or(0);
    o.max = r.us_to_ns(c_max).value_or(0);
    o.ratio_percent = r.number(c_ratio).value_or(0);
    o.device = static_cast<int32_t>(r.integer(c_dev).value_or(-1));
    model.op_statistics.push_back(o);
    ++n;
  });
  for (const auto& w : t.warnings()) model.stats.reject(w);  // rows skipped
  return n;
}

}  // namespace npu
