// The SQLite exports (loaders/db/db_export.h reads them): a *.db file, an ASCEND_PROFILER_OUTPUT
// holding only databases (torch_npu / MindSpore export_type=db), or a folder with a profiler
// database loose in it (msprof_0.db, ascend_pytorch_profiler_0.db).
#pragma once
#include "loaders/format.h"

namespace npu {

InputFormat sqlite_format();

}  // namespace npu
