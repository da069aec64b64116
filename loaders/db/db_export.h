// The profilers' SQLite exports, read into the same model as the text exports:
//   ascend_pytorch_profiler[_{rank}].db, ascend_mindspore_profiler[_{rank}].db, msprof_*.db
//     (TASK, COMPUTE_TASK_INFO, TASK_PMU_INFO, COMMUNICATION_OP, COMMUNICATION_TASK_INFO,
//      CANN_API, PYTORCH_API, CONNECTION_IDS, STRING_IDS, STEP_TIME, GC_RECORD, OVERLAP_ANALYSIS,
//      MEMORY_RECORD, OP_MEMORY, NPU_MODULE_MEM, META_DATA, RANK_DEVICE_MAP)
//   analysis.db / communication_analyzer.db (StepTraceTime; CommAnalyzer* are noted).
// Device tasks land on "Ascend Hardware" tracks, host APIs on "Python"/"CANN" tracks and
// communication operators on "Communication" tracks, so every analysis runs unchanged.
// Provenance: slices and flows point at (table, rowid) through RunModel::trace_parts;
// kernels, step-trace and memory rows keep the rowid of their table (InputFile::table).
// Schema drift: columns are found by name; a missing table or column is recorded as a
// missing input (the report lists the checks skipped), never guessed.
// One reader per table family: loaders/db/db_readers.h lists them.
#pragma once
#include <string>

#include "model/model.h"

namespace npu {

// Who wrote a database, as the format that found it knows (loaders/db/format.h for the SQLite
// exports, loaders/msprof for a PROF_ folder): the name the load summary gives it and the rule
// its steps follow (model.h StepSemantics, docs/overlap.md).
struct DbProducer {
  std::string name = "profiler DB";  // "torch_npu DB export", "MindSpore DB export", "msprof DB"
  StepSemantics steps = StepSemantics::StepTasks;
};

struct DbSchemaInfo {
  std::string description;  // "torch_npu DB export (COMPUTE_TASK_INFO.blockDim schema)"
};

// Loads a profiler database (the per-rank one) written by `producer`. Throws LoadError for a
// file that is not SQLite or cannot be read.
DbSchemaInfo load_profiler_db(const std::string& path, RunModel& model, const DbProducer& producer);

// Loads analysis.db / communication_analyzer.db: the profiler's step breakdown.
void load_analysis_db(const std::string& path, RunModel& model);

}  // namespace npu
