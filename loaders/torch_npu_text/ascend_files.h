// One importer per ASCEND_PROFILER_OUTPUT file. Each knows its file's syntax and schema
// drift and nothing about performance; each returns the number of records it added.
#pragma once
#include <cstdint>
#include <string>

#include "model/model.h"

namespace npu {

uint64_t load_kernel_details(const std::string& path, RunModel& model);   // kernel_details.csv, op_summary_*.csv
uint64_t load_op_statistic(const std::string& path, RunModel& model);     // op_statistic.csv
uint64_t load_step_trace_time(const std::string& path, RunModel& model);  // step_trace_time.csv
uint64_t load_memory_record(const std::string& path, RunModel& model);    // memory_record.csv
uint64_t load_operator_memory(const std::string& path, RunModel& model);  // operator_memory.csv
uint64_t load_npu_module_mem(const std::string& path, RunModel& model);   // npu_module_mem.csv
void load_profiler_info(const std::string& path, RunModel& model);        // profiler_info[_{rank}].json
void load_profiler_metadata(const std::string& path, RunModel& model);    // profiler_metadata.json

}  // namespace npu
