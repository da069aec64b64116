// kernel_details.csv (torch_npu) and op_summary_*.csv (msprof): one row per device task.
#include <cmath>
#include <set>

#include "base/decimal.h"
#include "loaders/common/csv_table.h"
#include "loaders/common/duration_bound.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "loaders/torch_npu_text/csv_columns.h"

namespace npu {
namespace {
// A block dim: -1 when absent or outside 0..INT32_MAX (2^32 + 48 must not read as 48).
int32_t small_int(std::optional<int64_t> v) { return v && *v >= 0 && *v <= INT32_MAX ? static_cast<int32_t>(*v) : -1; }

// Where each known column is in this file's header (-1: absent); csv_columns.h names them.
struct KernelColumns {
  int step, device, model, task, stream, name, type, state, core, start, dur, wait, block, mix, hf32;
  int ishape, itype, ifmt, oshape, otype, ofmt, ctx;

  explicit KernelColumns(const CsvTable& t) {
    namespace cols = csv_columns::kernel_details;
    step = t.col(cols::kStep), device = t.col(cols::kDevice), model = t.col(cols::kModel);
    task = t.col(cols::kTask), stream = t.col(cols::kStream), name = t.require(cols::kName);
    type = t.col(cols::kType), state = t.col(cols::kState), core = t.col(cols::kCore);
    start = t.require(cols::kStart), dur = t.require(cols::kDuration), wait = t.col(cols::kWait);
    block = t.col(cols::kBlock), mix = t.col(cols::kMixBlock), hf32 = t.col(cols::kHf32);
    ishape = t.col(cols::kInputShapes), itype = t.col(cols::kInputTypes), ifmt = t.col(cols::kInputFormats);
    oshape = t.col(cols::kOutputShapes), otype = t.col(cols::kOutputTypes), ofmt = t.col(cols::kOutputFormats);
    ctx = t.col(cols::kContext);
  }
  std::set<int> known() const {
    return {step, device, model, task, stream, name,  type, state,  core,  start, dur,
            wait, block,  mix,   hf32, ishape, itype, ifmt, oshape, otype, ofmt,  ctx};
  }
};

// Every other column is a PMU metric (which ones depends on aic_metrics). They are taken from
// the first kernel table only: returns the columns to read, none for a second table.
std::vector<int> pmu_columns(const CsvTable& t, const KernelColumns& c, RunModel& model, const std::string& path) {
  std::vector<int> pmu_cols;
  if (!model.kernels.empty() && !model.pmu_columns.empty())
    model.stats.warnings.push_back(path + ": a second kernel table was loaded; PMU columns come from the first");
  if (!model.pmu_columns.empty() || !model.kernels.empty()) return pmu_cols;
  const std::set<int> known = c.known();
  for (int i = 0; i < static_cast<int>(t.header().size()); ++i) {
    if (known.count(i) || t.header()[static_cast<size_t>(i)].empty()) continue;
    pmu_cols.push_back(i);
    model.pmu_columns.push_back(model.strings.intern(t.header()[static_cast<size_t>(i)]));
  }
  return pmu_cols;
}

// One row into a Kernel; false: the row has no duration (skipped: no measurement is not 0 ns).
bool read_kernel(const CsvTable& t, const CsvTable::Row& r, const KernelColumns& c, RunModel& model, Kernel& k) {
  auto s = [&](int col) -> StrId {
    std::string_view v = r[col];
    return is_missing_cell(v) ? kEmptyStr : model.strings.intern(trim_cell(v));
  };
  k.line = r.line();
  auto start = r.us_to_ns(c.start);
  if (!start) t.fail(r.line(), "column \"" + t.header()[static_cast<size_t>(c.start)] + "\" is empty");
  k.start = *start;
  auto dur = r.us_to_ns(c.dur);
  if (!dur || *dur < 0) return false;
  k.dur = *dur;
  k.wait = r.us_to_ns(c.wait).value_or(kNoId);
  k.step_id = r.integer(c.step).value_or(kNoId);
  k.device = static_cast<int32_t>(r.integer(c.device).value_or(-1));
  k.model_id = r.integer(c.model).value_or(kNoId);
  k.task_id = r.integer(c.task).value_or(kNoId);
  k.stream_id = r.integer(c.stream).value_or(kNoId);
  k.block_dim = small_int(r.integer(c.block));
  k.mix_block_dim = small_int(r.integer(c.mix));
  k.name = s(c.name);
  k.type = s(c.type);
  k.op_state = s(c.state);
  k.accel_core = s(c.core);
  k.hf32 = s(c.hf32);
  k.input_shapes = s(c.ishape);
  k.input_dtypes = s(c.itype);
  k.input_formats = s(c.ifmt);
  k.output_shapes = s(c.oshape);
  k.output_dtypes = s(c.otype);
  k.output_formats = s(c.ofmt);
  return true;
}

// A duration is bounded by the table it is in (loaders/duration_bound.h): the kernels from
// `first` on that last impossibly long are dropped, with their PMU values, and the table is
// partial. Returns how many were dropped.
uint64_t drop_impossible(RunModel& model, size_t first, size_t width, const std::string& path) {
  auto& ks = model.kernels;
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
  if (dropped)
    model.stats.reject(path + ":" + std::to_string(first_line) + ": " + std::to_string(dropped) +
                       " rows lasting past the table's last row by more than 60 s were skipped (impossible durations)");
  return dropped;
}

}  // namespace

uint64_t load_kernel_details(const std::string& path, RunModel& model) {
  CsvTable t(path);
  if (t.header().empty()) return 0;
  const KernelColumns c(t);
  const bool take_pmu = model.pmu_columns.empty() && model.kernels.empty();
  const std::vector<int> pmu_cols = pmu_columns(t, c, model, path);
  uint64_t n = 0;
  const size_t first = model.kernels.size();
  t.for_each_row([&](const CsvTable::Row& r) {
    Kernel k;
    if (!read_kernel(t, r, c, model, k)) {
      t.skip_row(r.line());
      return;
    }
    model.kernels.push_back(k);
    for (int col : pmu_cols) model.pmu_values.push_back(r.number(col).value_or(std::nan("")));
    ++n;
  });
  n -= drop_impossible(model, first, pmu_cols.size(), path);
  t.report_skipped("with a missing or negative \"" + t.header()[static_cast<size_t>(c.dur)] + "\"");
  for (const auto& w : t.warnings()) model.stats.reject(w);  // rows skipped
  if (!take_pmu) model.pmu_values.resize(model.kernels.size() * model.pmu_columns.size(), std::nan(""));
  return n;
}

}  // namespace npu
