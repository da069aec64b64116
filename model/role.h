// What an input file is to the analysis, whichever format wrote it: the format-neutral role ids
// the facts look inputs up by (RunModel::file). Each format unit maps its own files and tables
// to these roles inside its folder (loaders/<format>/): torch_npu's kernel_details.csv, msprof's
// op_summary_*.csv and the SQLite export's TASK+COMPUTE_TASK_INFO are all Role::KernelDetails,
// and the InputFile records the path and table the rows came from, so evidence names the real
// file or table. docs/adding-a-format.md shows a format mapping its names.
#pragma once
#include <cstdint>

namespace npu {

enum class Role : uint8_t {
  Other,                // an input no fact looks up
  Trace,                // the timeline: host and device events, flows, counters
  KernelDetails,        // one row per device task (op type, core, shapes, PMU columns)
  StepTraceTime,        // the profiler's own per-step breakdown
  OpStatistic,          // per-operator-type totals
  MemoryRecord,         // memory totals over time
  OperatorMemory,       // per-operator allocations
  ModuleMemory,         // memory by CANN module
  Communication,        // communication time and bandwidth per operator
  CommunicationMatrix,  // link bandwidth between ranks
  RunInfo,              // the run's rank, profiler level and capture options
  RunEnvironment,       // the run's environment variables and versions
  Database,             // the profiler database the tables came from
  DeviceInfo,           // a device's id and rank (msprof info.json)
};

// The name reports and facts give a role (the JSON "role" of an input, a missing input's name,
// "no ... rows"). They are the names of the first format the tool read (the torch_npu text
// export) and stay so that outputs do not move whatever format wrote the input; the file a
// role's rows came from is InputFile::path (and InputFile::table).
const char* role_name(Role r);

}  // namespace npu
