// step_trace_time.csv: the profiler's own per-step breakdown (values in us).
#include "base/decimal.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "loaders/common/csv_table.h"

namespace npu {

uint64_t load_step_trace_time(const std::string& path, RunModel& model) {
  CsvTable t(path);
  if (t.header().empty()) return 0;
  const int c_dev = t.col({"Device_id", "Device Id"});
  const int c_step = t.col({"Step", "Step Id", "Step ID"});
  const int c_comp = t.require({"Computing"});
  const int c_cno = t.require({"Communication(Not Overlapped)"});
  const int c_ovl = t.col({"Overlapped"});
  const int c_comm = t.col({"Communication"});
  const int c_free = t.require({"Free"});
  const int c_stage = t.col({"Stage"});
  const int c_bubble = t.col({"Bubble"});
  const int c_cnox = t.col({"Communication(Not Overlapped and Exclude Receive)"});
  const int c_prep = t.col({"Preparing"});
  uint64_t n = 0;
  t.for_each_row([&](const CsvTable::Row& r) {
    StepTraceRow s;
    s.line = r.line();
    s.device = static_cast<int32_t>(r.integer(c_dev).value_or(-1));
    s.step = r.integer(c_step).value_or(kNoId);
    s.computing = r.us_to_ns(c_comp).value_or(0);
    s.comm_not_overlapped = r.us_to_ns(c_cno).value_or(0);
    s.overlapped = r.us_to_ns(c_ovl).value_or(0);
    s.communication = r.us_to_ns(c_comm).value_or(0);
    s.free = r.us_to_ns(c_free).value_or(0);
    s.stage = r.us_to_ns(c_stage).value_or(kNoId);
    s.bubble = r.us_to_ns(c_bubble).value_or(kNoId);
    s.comm_not_overlapped_excl_receive = r.us_to_ns(c_cnox).value_or(kNoId);
    s.preparing = r.us_to_ns(c_prep).value_or(kNoId);
    // A negative time is corrupt: the row is skipped (with a warning), not summed.
    if (s.computing < 0 || s.comm_not_overlapped < 0 || s.overlapped < 0 || s.communication < 0 || s.free < 0) {
      t.skip_row(r.line());
      return;
    }
    model.step_trace.push_back(s);
    ++n;
  });
  t.report_skipped("with a negative time");
  for (const auto& w : t.warnings()) model.stats.reject(w);  // rows skipped
  return n;
}

}  // namespace npu
