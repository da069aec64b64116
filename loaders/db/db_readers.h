// The readers of a profiler database, one per table family, in the order
// loaders/db/db_export.cpp runs them. Each fills the model (and the shared context,
// loaders/db/db_load_context.h) from its tables; a missing table or column is recorded as a
// missing input or a schema note, never guessed. The two biggest tables have readers that run
// on their own threads: loaders/db/pmu_table.h and loaders/db/pytorch_api_table.h.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>

#include "loaders/db/db_load_context.h"

namespace npu {

// metadata_tables.cpp: STRING_IDS, ENUM_API_TYPE / ENUM_MODULE, META_DATA, RANK_DEVICE_MAP.
void read_string_ids(DbLoadContext& cx);
void read_enum(DbLoadContext& cx, const char* table, std::unordered_map<int64_t, std::string>& out);
void read_metadata(DbLoadContext& cx);

// step_time_table.cpp: STEP_TIME (read before the tasks, which take their step from it), and
// its steps as timeline slices where PYTORCH_API has no ProfilerStep#N rows.
void read_step_time(DbLoadContext& cx);
void add_step_slices(DbLoadContext& cx);

// task_tables.cpp: TASK joined with COMPUTE_TASK_INFO and COMMUNICATION_TASK_INFO.
void read_tasks(DbLoadContext& cx);

// communication_op_table.cpp: COMMUNICATION_OP.
void read_communication_ops(DbLoadContext& cx);

// cann_api_table.cpp: CANN_API.
void read_cann_api(DbLoadContext& cx);

// gc_overlap_tables.cpp: GC_RECORD, OVERLAP_ANALYSIS.
void read_gc_records(DbLoadContext& cx);
void read_overlap_analysis(DbLoadContext& cx);

// memory_tables.cpp: MEMORY_RECORD, OP_MEMORY, NPU_MODULE_MEM.
void read_memory_record(DbLoadContext& cx);
void read_op_memory(DbLoadContext& cx);
void read_module_memory(DbLoadContext& cx);

// step_trace_time_table.cpp: analysis.db / communication_analyzer.db's StepTraceTime (a
// database of its own, so no shared context).
void read_analysis_step_trace(const std::string& path, RunModel& model);

}  // namespace npu
