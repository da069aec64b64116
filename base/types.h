// Basic vocabulary shared by the model, the loaders and the analyses.
#pragma once
#include <cstdint>
#include <limits>

namespace npu {

// Every timestamp and duration in the model is an integer number of nanoseconds.
// Profilers write microseconds with up to 3 decimals ("1704161511420306.491"); a double
// at 1.7e15 us has a ulp of 0.25 us, so these never pass through floating point.
using Ns = int64_t;

// Index into a StringPool. 0 is always the empty string, so a zero-initialised
// record has an empty name rather than a dangling one.
using StrId = uint32_t;
constexpr StrId kEmptyStr = 0;

constexpr int64_t kNoId = std::numeric_limits<int64_t>::min();
constexpr uint32_t kNone32 = std::numeric_limits<uint32_t>::max();

// Where a record came from: a file registered in RunModel::files and a location in it.
// For JSON files `loc` is the byte offset of the event; for CSV files it is the 1-based line.
struct SourceRef {
  uint64_t loc = 0;
  uint16_t file = 0;
};

}  // namespace npu
