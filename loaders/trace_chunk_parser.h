// Parses one chunk of a Chrome/Kineto trace event array with simdjson On-Demand and keeps
// only what the analyses need. Chunks are independent (own string pool and track table) so
// several can be parsed at once; the trace loader merges them in file order.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/model.h"

namespace npu {

// String pids/tids ("Spans", "stream 7") are interned and encoded above this base so that a
// track key stays two integers.
constexpr int64_t kStrKeyBase = int64_t{1} << 62;

struct TrackKey {
  int64_t pid = 0, tid = 0;
  bool operator==(const TrackKey& o) const { return pid == o.pid && tid == o.tid; }
};
struct TrackKeyHash {
  size_t operator()(const TrackKey& k) const {
    return std::hash<int64_t>()(k.pid * 1000003 ^ k.tid);
  }
};

struct RawFlowPoint {
  int64_t id = 0;
  Ns ts = 0;
  uint64_t loc = 0;
  uint32_t track = 0;
  StrId cat = 0, name = 0;
  char phase = 's';
  bool id_is_str = false;
};

struct RawBeginEnd {
  Ns ts = 0;
  uint64_t loc = 0;
  uint32_t track = 0;
  StrId name = 0, cat = 0;
  char phase = 'B';
};

struct RawMeta {
  enum class What : uint8_t { ProcessName, ProcessLabels, ThreadName } what;
  int64_t pid = 0, tid = 0;
  StrId value = 0;
};

struct ChunkResult {
  StringPool strings;
  std::vector<TrackKey> tracks;  // local track id -> key
  std::vector<Slice> slices;     // ids local to this chunk
  std::vector<RawFlowPoint> flows;
  std::vector<RawBeginEnd> begin_end;
  std::vector<CounterSample> counters;
  std::vector<RawMeta> meta;
  uint64_t events = 0;
  uint64_t by_phase[128] = {};  // counts by the ph character
  uint64_t without_ts = 0;

  // Failure: a simdjson error code and where the parse stopped.
  bool ok = true;
  std::string error;
  uint64_t error_offset = 0;
  // Object-form traces: where the event array ended (offset in the file) when this chunk
  // saw its closing bracket; ~0 otherwise.
  uint64_t array_end_offset = ~uint64_t{0};
  std::string tail;  // the text after the array, for the last chunk
};

// `buf` holds "[" followed by the chunk's text; the caller has appended "]" when the text
// ends at an event boundary (middle chunks) and not when it runs to the end of the input
// (last chunk, whose own "]" closes the array). `buf` must be followed by simdjson padding.
// `text_offset` is the file offset of buf[1].
void parse_trace_chunk(const char* buf, size_t len, uint64_t text_offset, bool last, ChunkResult& out);

}  // namespace npu
