// The SQLite exports (loaders/db/db_export.h reads them): a *.db file, an ASCEND_PROFILER_OUTPUT
// holding only databases (torch_npu / MindSpore export_type=db), or a folder with a profiler
// database loose in it (msprof_0.db, ascend_pytorch_profiler_0.db).
#pragma once
#include <string>

#include "loaders/db/db_export.h"
#include "loaders/format.h"

namespace npu {

InputFormat sqlite_format();

// Who wrote a profiler database, by the name its producer gives it: torch_npu's and MindSpore's
// exports (ascend_pytorch_profiler*.db, ascend_mindspore_profiler*.db) count each step's own
// tasks (StepSemantics::StepTasks); msprof's own msprof_*.db keeps msprof's Overlap Analysis
// rule (MsprofTasks); any other name is read as a torch_npu export.
DbProducer db_producer(const std::string& db_file);

}  // namespace npu
