// kernel_details.csv (torch_npu) and op_summary_*.csv (msprof): one row per device task.
#include <cmath>
#include <set>

#include "base/decimal.h"
#include "loaders/common/csv_table.h"
#include "loaders/common/duration_bound.h"
#include "loaders/torch_npu_text/ascend_files.h"

namespace npu {
namespace {
// A block dim: -1 when absent or outside 0..INT32_MAX (2^32 + 48 must not read as 48).
int32_t small_int(std::optional<int64_t> v) { return v && *v >= 0 && *v <= INT32_MAX ? static_cast<int32_t>(*v) : -1; }
}  // namespace

uint64_t load_kernel_details(const std::string& path, RunModel& model) {
  CsvTable t(path);
  if (t.header().empty()) return 0;
  // Column names drift between versions; every alias we know is listed here and only here.
  const int c_step = t.col({"Step Id", "Step ID"});
  const int c_device = t.col({"Device_id", "Device Id"});
  const int c_model = t.col({"Model ID"});
  const int c_task = t.col({"Task ID"});
  const int c_stream = t.col({"Stream ID"});
  const int c_name = t.require({"Name", "Op Name"});
  const int c_type = t.col({"Type", "OP Type"});
  const int c_state = t.col({"OP State"});
  const int c_core = t.col({"Accelerator Core", "Task Type"});
  const int c_start = t.require({"Start Time(us)", "Task Start Time(us)"});
  const int c_dur = t.require({"Duration(us)", "Task Duration(us)"});
  const int c_wait = t.col({"Wait Time(us)", "Task Wait Time(us)"});
  const int c_block = t.col({"Block Dim", "Block Num"});
  const int c_mix = t.col({"Mix Block Dim", "Mix Block Num"});
  const int c_hf32 = t.col({"HF32 Eligible"});
  const int c_ishape = t.col({"Input Shapes"});
  const int c_itype = t.col({"Input Data Types"});
  const int c_ifmt = t.col({"Input Formats"});
  const int c_oshape = t.col({"Output Shapes"});
  const int c_otype = t.col({"Output Data Types"});
  const int c_ofmt = t.col({"Output Formats"});
  const int c_ctx = t.col({"Context ID"});

  // Every other column is a PMU metric (which ones depends on aic_metrics).
  std::set<int> known = {c_step,  c_device, c_model,  c_task,  c_stream, c_name, c_type, c_state,
                         c_core,  c_start,  c_dur,    c_wait,  c_block,  c_mix,  c_hf32, c_ishape,
                         c_itype, c_ifmt,   c_oshape, c_otype, c_ofmt,   c_ctx};
  std::vector<int> pmu_cols;
  if (!model.kernels.empty() && !model.pmu_columns.empty())
    model.stats.warnings.push_back(path + ": a second kernel table was loaded; PMU columns come from the first");
  const bool take_pmu = model.pmu_columns.empty() && model.kernels.empty();
  for (int i = 0; i < static_cast<int>(t.header().size()); ++i) {
    if (known.count(i) || t.header()[static_cast<size_t>(i)].empty()) continue;
    if (take_pmu) {
      pmu_cols.push_back(i);
      model.pmu_columns.push_back(model.strings.intern(t.header()[static_cast<size_t>(i)]));
    }
  }

  auto s = [&](const CsvTable::Row& r, int c) -> StrId {
    std::string_view v = r[c];
    return is_missing_cell(v) ? kEmptyStr : model.strings.intern(trim_cell(v));
  };
  uint64_t n = 0;
  const size_t first = model.kernels.size();
  t.for_each_row([&](const CsvTable::Row& r) {
    Kernel k;
    k.line = r.line();
    auto start = r.us_to_ns(c_start);
    if (!start) t.fail(r.line(), "column \"" + t.header()[static_cast<size_t>(c_start)] + "\" is empty");
    k.start = *start;
    auto dur = r.us_to_ns(c_dur);
    if (!dur || *dur < 0) {  // no duration is no measurement: not a 0 ns kernel
      t.skip_row(r.line());
      return;
    }
    k.dur = *dur;
    k.wait = r.us_to_ns(c_wait).value_or(kNoId);
    k.step_id = r.integer(c_step).value_or(kNoId);
    k.device = static_cast<int32_t>(r.integer(c_device).value_or(-1));
    k.model_id = r.integer(c_model).value_or(kNoId);
    k.task_id = r.integer(c_task).value_or(kNoId);
    k.stream_id = r.integer(c_stream).value_or(kNoId);
    k.block_dim = small_int(r.integer(c_block));
    k.mix_block_dim = small_int(r.integer(c_mix));
    k.name = s(r, c_name);
    k.type = s(r, c_type);
    k.op_state = s(r, c_state);
    k.accel_core = s(r, c_core);
    k.hf32 = s(r, c_hf32);
    k.input_shapes = s(r, c_ishape);
    k.input_dtypes = s(r, c_itype);
    k.input_formats = s(r, c_ifmt);
    k.output_shapes = s(r, c_oshape);
    k.output_dtypes = s(r, c_otype);
    k.output_formats = s(r, c_ofmt);
    model.kernels.push_back(k);
    for (int c : pmu_cols) model.pmu_values.push_back(r.number(c).value_or(std::nan("")));
    ++n;
  });
  // A duration is bounded by the table it is in (loaders/duration_bound.h): such rows are
  // dropped, with their PMU values, and the table is partial.
  {
    auto& ks = model.kernels;
    const size_t width = pmu_cols.size();
    Ns last_start = first < ks.size() ? ks[first].start : 0;
    for (size_t i = first; i < ks.size(); ++i) last_start = std::max(last_start, ks[i].start);
    size_t out = first;
    uint64_t dropped = 0;
    uint32_t first_line = 0;
    for (size_t i = first; i < ks.size(); ++i) {
      const Kernel& k = ks[i];
      if (lasts_impossibly_long(k.start, k.dur, last_start)) {
        if (dropped++ == 0) first_line = k.line;
        continue;
      }
      if (width)
        std::copy_n(model.pmu_values.begin() + static_cast<std::ptrdiff_t>(i * width), width,
                    model.pmu_values.begin() + static_cast<std::ptrdiff_t>(out * width));
      ks[out++] = k;
    }
    ks.resize(out);
    if (width) model.pmu_values.resize(out * width);
    n -= dropped;
    if (dropped)
      model.stats.reject(
          path + ":" + std::to_string(first_line) + ": " + std::to_string(dropped) +
          " rows lasting past the table's last row by more than 60 s were skipped (impossible durations)");
  }
  t.report_skipped("with a missing or negative \"" + t.header()[static_cast<size_t>(c_dur)] + "\"");
  for (const auto& w : t.warnings()) model.stats.reject(w);  // rows skipped
  if (!take_pmu) model.pmu_values.resize(model.kernels.size() * model.pmu_columns.size(), std::nan(""));
  return n;
}

}  // namespace npu
