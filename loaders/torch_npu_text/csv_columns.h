// The columns of the device CSVs (kernel_details.csv / op_summary_*.csv, op_statistic.csv,
// memory_record.csv, operator_memory.csv), the one place that names them: the loaders find
// their columns by these lists, and the lone-CSV sniff (format.cpp) recognises a file by its
// `kSignature`, made of the same lists. A header's spelling drifts between versions: each list
// holds every alias known, the first the current one. step_trace_time.csv's columns are in
// loaders/common/step_trace_columns.h (analysis.db shares them).
#pragma once
#include <span>
#include <string_view>

namespace npu::csv_columns {

using Aliases = std::span<const std::string_view>;

namespace kernel_details {
inline constexpr std::string_view kStep[] = {"Step Id", "Step ID"};
inline constexpr std::string_view kDevice[] = {"Device_id", "Device Id"};
inline constexpr std::string_view kModel[] = {"Model ID"};
inline constexpr std::string_view kTask[] = {"Task ID"};
inline constexpr std::string_view kStream[] = {"Stream ID"};
inline constexpr std::string_view kName[] = {"Name", "Op Name"};
inline constexpr std::string_view kType[] = {"Type", "OP Type"};
inline constexpr std::string_view kState[] = {"OP State"};
inline constexpr std::string_view kCore[] = {"Accelerator Core", "Task Type"};
inline constexpr std::string_view kStart[] = {"Start Time(us)", "Task Start Time(us)"};
inline constexpr std::string_view kDuration[] = {"Duration(us)", "Task Duration(us)"};
inline constexpr std::string_view kWait[] = {"Wait Time(us)", "Task Wait Time(us)"};
inline constexpr std::string_view kBlock[] = {"Block Dim", "Block Num"};
inline constexpr std::string_view kMixBlock[] = {"Mix Block Dim", "Mix Block Num"};
inline constexpr std::string_view kHf32[] = {"HF32 Eligible"};
inline constexpr std::string_view kInputShapes[] = {"Input Shapes"};
inline constexpr std::string_view kInputTypes[] = {"Input Data Types"};
inline constexpr std::string_view kInputFormats[] = {"Input Formats"};
inline constexpr std::string_view kOutputShapes[] = {"Output Shapes"};
inline constexpr std::string_view kOutputTypes[] = {"Output Data Types"};
inline constexpr std::string_view kOutputFormats[] = {"Output Formats"};
inline constexpr std::string_view kContext[] = {"Context ID"};
inline constexpr Aliases kSignature[] = {kName, kStart, kDuration};
}  // namespace kernel_details

namespace op_statistic {
inline constexpr std::string_view kType[] = {"OP Type", "Op Type"};
inline constexpr std::string_view kCore[] = {"Core Type", "Task Type"};
inline constexpr std::string_view kCount[] = {"Count"};
inline constexpr std::string_view kTotal[] = {"Total Time(us)"};
inline constexpr std::string_view kMin[] = {"Min Time(us)"};
inline constexpr std::string_view kAvg[] = {"Avg Time(us)"};
inline constexpr std::string_view kMax[] = {"Max Time(us)"};
inline constexpr std::string_view kRatio[] = {"Ratio(%)"};
inline constexpr std::string_view kDevice[] = {"Device_id", "Device Id"};
inline constexpr Aliases kSignature[] = {kType, kCount, kTotal};
}  // namespace op_statistic

namespace memory_record {
inline constexpr std::string_view kComponent[] = {"Component"};
inline constexpr std::string_view kTimestamp[] = {"Timestamp(us)"};
// Written in MB (torch_npu) or KB (msprof): the loader reads each unit on its own.
inline constexpr std::string_view kAllocated[] = {"Total Allocated(MB)", "Total Allocated(KB)"};
inline constexpr std::string_view kReserved[] = {"Total Reserved(MB)", "Total Reserved(KB)"};
inline constexpr std::string_view kActive[] = {"Total Active(MB)", "Total Active(KB)"};
inline constexpr std::string_view kDevice[] = {"Device Type", "Device"};
inline constexpr Aliases kSignature[] = {kComponent, kTimestamp, kAllocated};
}  // namespace memory_record

namespace operator_memory {
inline constexpr std::string_view kName[] = {"Name"};
inline constexpr std::string_view kSize[] = {"Size(KB)"};
inline constexpr std::string_view kAllocated[] = {"Allocation Time(us)"};
inline constexpr std::string_view kReleased[] = {"Release Time(us)"};
inline constexpr std::string_view kDuration[] = {"Duration(us)"};
inline constexpr std::string_view kAllocationAllocated[] = {"Allocation Total Allocated(MB)"};
inline constexpr std::string_view kAllocationReserved[] = {"Allocation Total Reserved(MB)"};
inline constexpr std::string_view kDevice[] = {"Device Type", "Device"};
inline constexpr Aliases kSignature[] = {kName, kSize, kAllocated};
}  // namespace operator_memory

// The MB and the KB spelling of a memory column (memory_record's lists hold both).
inline Aliases mb_of(Aliases a) { return a.first(1); }
inline Aliases kb_of(Aliases a) { return a.last(1); }

}  // namespace npu::csv_columns
