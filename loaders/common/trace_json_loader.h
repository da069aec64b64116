// Streams a Chrome-trace-format file (torch_npu trace_view.json, msprof msprof_*.json,
// PyTorch Kineto *.pt.trace.json[.gz]) into the model: parse once, in chunks, on up to N
// threads, keeping int64 ns timestamps and only the fields the analyses use.
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace npu {

struct TraceLoadOptions {
  int threads = 0;                       // 0: up to 2, never more than the machine has
  size_t chunk_bytes = size_t{8} << 20;  // text per chunk handed to a parser
  // Called on the loading thread after each chunk is read: bytes read so far (uncompressed)
  // and the size on disk (0 when compressed, as the uncompressed size is not known ahead).
  std::function<void(uint64_t read, uint64_t total)> progress;
};

struct TraceLoadResult {
  bool object_form = false;  // {"traceEvents": [...]} rather than a bare array
  nlohmann::json top_level;  // object form: every top-level key except traceEvents
  uint64_t bytes = 0;        // uncompressed bytes read
};

// Appends tracks, slices, flows and counters from `path` to `model` (file id `file_id`
// for provenance). Throws LoadError naming the byte offset for malformed input.
// Call RunModel::finalize() afterwards.
TraceLoadResult load_trace_json(const std::string& path, uint16_t file_id, RunModel& model,
                                const TraceLoadOptions& options = {});

}  // namespace npu
