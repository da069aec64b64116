// The reading side of the streaming trace loader (trace_json_loader.cpp): a Chrome-trace file's
// event array cut into chunks of whole events, in bounded memory whatever the file holds.
// Chunks are cut at "}, {" guesses (fast, byte-level); after a chunk fails to parse the reader
// starts again from it and cuts exactly where events end (string-aware). No whitespace run is
// held, and an event larger than a chunk is read byte by byte (long_event.h): its whitespace
// dropped, its strings cut at 16 KiB, skipped past kMaxEventBytes.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/byte_source.h"
#include "base/load_error.h"
#include "loaders/common/trace_chunk_parser.h"
#include "loaders/common/trace_json_loader.h"

namespace npu {

// Room before the text for the longest prefix a chunk may need ({"traceEvents":[).
constexpr size_t kPrefixRoom = kObjectTailPrefix.size();
constexpr uint64_t kNoOffset = ~uint64_t{0};

// A chunk of text handed to a parser: prefix + events text [+ "]"] + padding.
struct Chunk {
  size_t index = 0;
  std::unique_ptr<char[]> data;
  size_t cap = 0;
  size_t start = 0;          // where the parse buffer (the prefix) begins in data
  size_t len = 0;            // bytes to parse from data + start
  uint64_t text_offset = 0;  // file offset of data[kPrefixRoom]
  ChunkShape shape = ChunkShape::Array;
  // What the reader found itself: an event past kMaxEventBytes it skipped (its offset), or text
  // it could not read as events (why, and where).
  uint64_t oversized = kNoOffset;
  std::string failure;
  uint64_t failure_offset = 0;

  const char* text() const { return data.get() + kPrefixRoom; }
  size_t text_len() const { return len - (kPrefixRoom - start); }
  void parse(ChunkResult& r) const;
};

class TraceChunkReader {
 public:
  // `buffers`: how many chunk buffers to keep for reuse.
  TraceChunkReader(std::string path, const TraceLoadOptions& opt, size_t buffers)
      : path_(std::move(path)), opt_(opt), buffers_(buffers) {}

  // Opens the file and reads up to its first event.
  void open();
  bool object_form() const { return object_form_; }
  const std::string& head_object() const { return head_object_; }  // object form: its keys before traceEvents

  // The next chunk; false at the end.
  bool next(Chunk& c);
  // After a chunk failed to parse: reads again from `offset` (that chunk's start), cutting exactly.
  void restart_exact(uint64_t offset);
  bool exact() const { return exact_; }
  // The error for a chunk that failed to parse while cutting exactly.
  LoadError chunk_error(const Chunk& c, const ChunkResult& r) const;

  uint64_t consumed() const { return consumed_; }  // uncompressed bytes read
  const ByteSource& source() const { return *src_; }

  std::unique_ptr<char[]> take_buffer(size_t need);
  void give_back(Chunk& c);

 private:
  // The chunk's buffer with room for `bytes` of text (and the prefix and padding around it): where
  // the text goes.
  char* text_room(Chunk& c, size_t bytes);
  void read_head();
  size_t read_into(char* dst, size_t n);
  size_t leading_separator(const char* text, size_t n);
  bool long_event(Chunk& c, const char* text, size_t have);
  void fill(Chunk& c, const std::string& body, ChunkShape shape, bool close);
  static void set_prefix(Chunk& c, ChunkShape shape);

  std::string path_;
  TraceLoadOptions opt_;
  size_t buffers_;
  std::unique_ptr<ByteSource> src_;
  bool object_form_ = false;
  std::string head_object_;
  std::string carry_;
  uint64_t carry_offset_ = 0;
  uint64_t consumed_ = 0;
  bool eof_ = false, done_ = false;
  bool exact_ = false;          // cutting string-aware (after a failed parse)
  bool comma_pending_ = false;  // the carry starts after an event: a ',' may lead it
  size_t next_index_ = 0;
  std::mutex pool_mu_;
  std::vector<std::pair<std::unique_ptr<char[]>, size_t>> pool_;
};

}  // namespace npu
