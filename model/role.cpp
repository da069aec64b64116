#include "model/role.h"

namespace npu {

const char* role_name(Role r) {
  switch (r) {
    case Role::Other: return "other";
    case Role::Trace: return "trace_view.json";
    case Role::KernelDetails: return "kernel_details.csv";
    case Role::StepTraceTime: return "step_trace_time.csv";
    case Role::OpStatistic: return "op_statistic.csv";
    case Role::MemoryRecord: return "memory_record.csv";
    case Role::OperatorMemory: return "operator_memory.csv";
    case Role::ModuleMemory: return "npu_module_mem.csv";
    case Role::Communication: return "communication.json";
    case Role::CommunicationMatrix: return "communication_matrix.json";
    case Role::RunInfo: return "profiler_info.json";
    case Role::RunEnvironment: return "profiler_metadata.json";
    case Role::Database: return "profiler.db";
    case Role::DeviceInfo: return "info.json";
  }
  return "other";
}

}  // namespace npu
