// The columns of the profiler's own per-step breakdown, the one place that names them:
// step_trace_time.csv in a text export, table StepTraceTime in analysis.db (values in us in both).
// Read by loaders/torch_npu_text/step_trace_time_loader.cpp, loaders/db/step_trace_time_table.cpp
// and the rank rows of cluster_step_trace_time.csv (loaders/communication/communication_files.cpp).
#pragma once
#include <array>
#include <string_view>

#include "model/model.h"

namespace npu::step_trace_columns {

struct TimeColumn {
  Ns StepTraceRow::*field;
  std::string_view csv;  // header of step_trace_time.csv
  std::string_view db;   // column of StepTraceTime
  bool required;         // every export has it; a file without it is not this table
  Ns missing;            // the value when the export has no such column or cell
};

// Computing, Communication(Not Overlapped) and Free make the step (device time =
// computing + comm_not_overlapped + free); the others came with newer profilers.
inline constexpr std::array<TimeColumn, 9> kTimes = {{
    {&StepTraceRow::computing, "Computing", "computing", true, 0},
    {&StepTraceRow::comm_not_overlapped, "Communication(Not Overlapped)", "communication_not_overlapped", true, 0},
    {&StepTraceRow::overlapped, "Overlapped", "overlapped", false, 0},
    {&StepTraceRow::communication, "Communication", "communication", false, 0},
    {&StepTraceRow::free, "Free", "free", true, 0},
    // Pipeline parallelism (newer msprof-analyze): Stage = the step without Bubble, Bubble = the
    // time spent receiving (waiting for the previous stage's activations).
    {&StepTraceRow::stage, "Stage", "stage", false, kNoId},
    {&StepTraceRow::bubble, "Bubble", "bubble", false, kNoId},
    {&StepTraceRow::comm_not_overlapped_excl_receive, "Communication(Not Overlapped and Exclude Receive)",
     "communication_not_overlapped_and_exclude_receive", false, kNoId},
    {&StepTraceRow::preparing, "Preparing", "preparing", false, kNoId},
}};

constexpr std::string_view csv_of(Ns StepTraceRow::*field) {
  for (const auto& c : kTimes)
    if (c.field == field) return c.csv;
  return {};
}

// The id columns: the CSV's header changed spelling across torch_npu versions.
inline constexpr std::string_view kCsvDevice[] = {"Device_id", "Device Id"};
inline constexpr std::string_view kCsvStep[] = {"Step", "Step Id", "Step ID"};
inline constexpr std::string_view kDbDevice = "deviceId";
inline constexpr std::string_view kDbStep = "step";

}  // namespace npu::step_trace_columns
