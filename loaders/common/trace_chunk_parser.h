// Parses one chunk of a Chrome/Kineto trace event array with simdjson On-Demand and keeps
// only what the analyses need. Chunks are independent (own string pool and track table) so
// several can be parsed at once; the trace loader merges them in file order.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/model.h"

namespace npu {

struct TrackKey {
  int64_t pid = 0, tid = 0;
  bool operator==(const TrackKey& o) const { return pid == o.pid && tid == o.tid; }
};
struct TrackKeyHash {
  size_t operator()(const TrackKey& k) const {
    // Unsigned arithmetic: pids can be anything, and signed overflow is undefined.
    uint64_t h = static_cast<uint64_t>(k.pid) * 1000003u ^ static_cast<uint64_t>(k.tid);
    return static_cast<size_t>(h ^ (h >> 31));
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
  std::vector<CopyBytes> copy_bytes;  // complete events with a numeric "bytes" arg
  std::vector<OpInputs> op_inputs;    // complete events with "Input Dims" (ids local to this chunk)
  std::vector<LaunchKernel> launch_kernels;  // complete events with a "kernel" arg (ids local to this chunk)
  std::vector<RawMeta> meta;
  uint64_t events = 0;
  uint64_t by_phase[128] = {};  // counts by the ph character
  uint64_t without_ts = 0;
  std::vector<uint64_t> oversized;  // offsets of events the reader skipped (past kMaxEventBytes)

  // Failure: a simdjson error code and where the parse stopped. `bad_event`: the text is JSON,
  // but an event's field has a type no trace event has ("ph": 5); `error` names the field.
  bool ok = true;
  bool bad_event = false;
  std::string error;
  uint64_t error_offset = 0;
  // ObjectTail chunks: the object's keys other than traceEvents, as a JSON object text.
  std::string tail;

  // Empties the result for the next chunk but keeps the tables' memory: a loader reuses a few
  // results rather than allocating (and page-faulting) fresh tables for every chunk.
  void reset() {
    strings = StringPool();
    tracks.clear();
    slices.clear();
    flows.clear();
    begin_end.clear();
    counters.clear();
    copy_bytes.clear();
    op_inputs.clear();
    launch_kernels.clear();
    meta.clear();
    events = 0;
    std::fill(std::begin(by_phase), std::end(by_phase), 0);
    without_ts = 0;
    oversized.clear();
    ok = true;
    bad_event = false;
    error.clear();
    error_offset = 0;
    tail.clear();
  }
};

enum class ChunkShape {
  // "[" + events text + "]": a piece of the event array cut at event boundaries, or the
  // last piece of a bare-array trace (whose own "]" closes it).
  Array,
  // "{\"traceEvents\":[" + the rest of an object-form trace: the last piece, which also
  // holds the object's remaining keys; those are returned in ChunkResult::tail as JSON.
  ObjectTail,
};
constexpr std::string_view kObjectTailPrefix = "{\"traceEvents\":[";

// `buf` holds `prefix_len` bytes of prefix then the chunk's text, and must be followed by
// simdjson padding. `text_offset` is the file offset of buf[prefix_len].
void parse_trace_chunk(const char* buf, size_t len, size_t prefix_len, uint64_t text_offset, ChunkShape shape,
                       ChunkResult& out);

}  // namespace npu
