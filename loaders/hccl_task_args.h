// The transfer arguments of HCCL plane tasks (size, transport, link type), read by byte offset
// from the trace after the load: the streaming parser keeps no args of communication tasks, and
// only the data-moving plane tasks (Memcpy, Reduce*, RDMA*, ...) are needed, so a second look at
// those few events costs less than carrying args for every event.
#pragma once
#include "model/model.h"

namespace npu {

// Fills model.comm_task_args for the plane tasks of an uncompressed trace file; a trace that is
// gzipped, or an event that does not parse, is left out with a warning. After finalize().
void load_hccl_task_args(RunModel& model);

}  // namespace npu
