// The three memory CSVs of a profile_memory=True run.
#include "base/decimal.h"
#include "loaders/common/csv_table.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "loaders/torch_npu_text/csv_columns.h"

namespace npu {
namespace {

// Megabytes from a column that may be written in MB (torch_npu) or KB (msprof).
double mb(const CsvTable::Row& r, int c_mb, int c_kb) {
  if (c_mb >= 0) return r.number(c_mb).value_or(0);
  if (c_kb >= 0) return r.number(c_kb).value_or(0) / 1024.0;
  return 0;
}

}  // namespace

uint64_t load_memory_record(const std::string& path, RunModel& model) {
  CsvTable t(path);
  if (t.header().empty()) return 0;
  namespace cols = csv_columns::memory_record;
  using csv_columns::kb_of, csv_columns::mb_of;
  const int c_comp = t.col(cols::kComponent);
  const int c_ts = t.require(cols::kTimestamp);
  const int c_alloc = t.col(mb_of(cols::kAllocated)), c_alloc_kb = t.col(kb_of(cols::kAllocated));
  const int c_res = t.col(mb_of(cols::kReserved)), c_res_kb = t.col(kb_of(cols::kReserved));
  const int c_act = t.col(mb_of(cols::kActive)), c_act_kb = t.col(kb_of(cols::kActive));
  const int c_dev = t.col(cols::kDevice);
  uint64_t n = 0, lossy = 0;
  t.for_each_row([&](const CsvTable::Row& r) {
    MemoryRecord m;
    m.line = r.line();
    m.component = model.strings.intern(trim_cell(r[c_comp]));
    m.ts = r.us_to_ns(c_ts).value_or(0);
    if (r[c_ts].find_first_of("eE") != std::string_view::npos) ++lossy;
    m.allocated_mb = mb(r, c_alloc, c_alloc_kb);
    m.reserved_mb = mb(r, c_res, c_res_kb);
    m.active_mb = (c_act >= 0 || c_act_kb >= 0) ? mb(r, c_act, c_act_kb) : -1;
    m.device_type = model.strings.intern(trim_cell(r[c_dev]));
    model.memory_records.push_back(m);
    ++n;
  });
  for (const auto& w : t.warnings()) model.stats.reject(w);  // rows skipped
  if (lossy)
    model.stats.warnings.push_back(path + ": " + std::to_string(lossy) +
                                   " timestamps are in scientific notation (saved through a spreadsheet?): "
                                   "their precision is lost, so memory samples cannot be placed in steps exactly");
  return n;
}

uint64_t load_operator_memory(const std::string& path, RunModel& model) {
  CsvTable t(path);
  if (t.header().empty()) return 0;
  namespace cols = csv_columns::operator_memory;
  const int c_name = t.require(cols::kName);
  const int c_size = t.col(cols::kSize);
  const int c_alloc = t.col(cols::kAllocated);
  const int c_rel = t.col(cols::kReleased);
  const int c_dur = t.col(cols::kDuration);
  const int c_aa = t.col(cols::kAllocationAllocated);
  const int c_ar = t.col(cols::kAllocationReserved);
  const int c_dev = t.col(cols::kDevice);
  uint64_t n = 0;
  t.for_each_row([&](const CsvTable::Row& r) {
    OperatorMemory m;
    m.line = r.line();
    m.name = model.strings.intern(trim_cell(r[c_name]));
    m.size_kb = r.number(c_size).value_or(0);
    m.alloc_ts = r.us_to_ns(c_alloc).value_or(kNoId);
    m.release_ts = r.us_to_ns(c_rel).value_or(kNoId);
    m.duration = r.us_to_ns(c_dur).value_or(kNoId);
    m.alloc_total_allocated_mb = r.number(c_aa).value_or(-1);
    m.alloc_total_reserved_mb = r.number(c_ar).value_or(-1);
    m.device_type = model.strings.intern(trim_cell(r[c_dev]));
    model.operator_memory.push_back(m);
    ++n;
  });
  for (const auto& w : t.warnings()) model.stats.reject(w);  // rows skipped
  return n;
}

uint64_t load_npu_module_mem(const std::string& path, RunModel& model) {
  CsvTable t(path);
  if (t.header().empty()) return 0;
  const int c_dev = t.col({"Device_id", "Device Id"});
  const int c_comp = t.col({"Component"});
  const int c_ts = t.require({"Timestamp(us)"});
  const int c_mb = t.col({"Total Reserved(MB)"}), c_kb = t.col({"Total Reserved(KB)"});
  uint64_t n = 0;
  t.for_each_row([&](const CsvTable::Row& r) {
    ModuleMemory m;
    m.line = r.line();
    m.device = static_cast<int32_t>(r.integer(c_dev).value_or(-1));
    m.component = model.strings.intern(trim_cell(r[c_comp]));
    m.ts = r.us_to_ns(c_ts).value_or(0);
    m.reserved_kb = c_kb >= 0 ? r.number(c_kb).value_or(0) : r.number(c_mb).value_or(0) * 1024.0;
    model.module_memory.push_back(m);
    ++n;
  });
  for (const auto& w : t.warnings()) model.stats.reject(w);  // rows skipped
  return n;
}

}  // namespace npu
