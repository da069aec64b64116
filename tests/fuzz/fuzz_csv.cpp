// libFuzzer target: CsvTable (loaders/csv_table.h) and the CSV importers built on it.
//
// The input is written to a scratch file and read as a CsvTable: every row is visited and
// us_to_ns / integer / number are called on every cell (a LoadError for a cell that is not
// a number is expected). Then each real importer (kernel_details, step_trace_time,
// op_statistic, memory_record, operator_memory, npu_module_mem) reads the same file.
// A LoadError must be one line naming the file; anything else thrown, a crash, a hang or a
// sanitizer report is a bug.
#include <cstdint>
#include <string>

#include "base/load_error.h"
#include "fuzz_util.h"
#include "loaders/common/csv_table.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "model/model.h"

namespace {

using npu_fuzz::check_load_error;
using npu_fuzz::finding;

void read_generic(const std::string& path, uint64_t size) {
  try {
    npu::CsvTable t(path);
    if (t.bytes() != size) finding("CsvTable::bytes() differs from the file size");
    (void)t.col({"Start Time(us)", "Task Start Time(us)"});
    (void)t.col({"Name"});
    try {
      (void)t.require({"Duration(us)"});
    } catch (const npu::LoadError& e) {
      check_load_error(e, path, size);
    }
    const size_t columns = t.header().size();
    uint32_t last_line = 1;
    t.for_each_row([&](const npu::CsvTable::Row& r) {
      if (r.size() != columns) finding("row handed out with a field count other than the header's");
      if (r.line() <= last_line) finding("row line numbers do not increase");
      last_line = r.line();
      if (!r[-1].empty() || !r[static_cast<int>(r.size())].empty()) finding("absent column is not empty");
      for (int c = 0; c < static_cast<int>(r.size()); ++c) {
        std::string_view cell = r[c];
        if (cell.data() == nullptr && !cell.empty()) finding("null cell view");
        try {
          (void)r.us_to_ns(c);
        } catch (const npu::LoadError& e) {
          check_load_error(e, path, size);
        }
        try {
          (void)r.integer(c);
        } catch (const npu::LoadError& e) {
          check_load_error(e, path, size);
        }
        try {
          (void)r.number(c);
        } catch (const npu::LoadError& e) {
          check_load_error(e, path, size);
        }
      }
    });
  } catch (const npu::LoadError& e) {
    check_load_error(e, path, size);
  }
}

using Importer = uint64_t (*)(const std::string&, npu::RunModel&);

void import(Importer f, const std::string& path, uint64_t size) {
  npu::RunModel model;
  try {
    uint64_t n = f(path, model);
    (void)n;
    if (!model.pmu_columns.empty() && model.pmu_values.size() != model.kernels.size() * model.pmu_columns.size())
      finding("PMU value table is not kernels x columns");
  } catch (const npu::LoadError& e) {
    check_load_error(e, path, size);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static npu_fuzz::ScratchFile file(".csv");
  if (size > (1u << 20)) return 0;
  file.write(data, size);
  read_generic(file.path(), size);
  for (Importer f : {npu::load_kernel_details, npu::load_step_trace_time, npu::load_op_statistic,
                     npu::load_memory_record, npu::load_operator_memory, npu::load_npu_module_mem})
    import(f, file.path(), size);
  return 0;
}
