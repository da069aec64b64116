// A Chrome-trace file's event array cut into chunks of whole events (trace_chunk_reader.h).
#include "loaders/common/trace_chunk_reader.h"

#include <algorithm>
#include <cstring>
#include <simdjson.h>

#include "loaders/common/long_event.h"
#include "loaders/common/trace_text_scan.h"

namespace npu {

void Chunk::parse(ChunkResult& r) const {
  if (!failure.empty()) {
    r.ok = false;
    r.error = failure;
    r.error_offset = failure_offset;
    return;
  }
  parse_trace_chunk(data.get() + start, len, kPrefixRoom - start, text_offset, shape, r);
  if (oversized != kNoOffset) r.oversized.push_back(oversized);
}

void TraceChunkReader::open() {
  src_ = ByteSource::open(path_);
  read_head();
}

size_t TraceChunkReader::read_into(char* dst, size_t n) {
  size_t got = src_->read(dst, n);
  consumed_ += got;
  return got;
}

// Reads until the first event (or the end of an empty array) and leaves it in carry_.
void TraceChunkReader::read_head() {
  std::string head;
  size_t want = 1 << 16;
  bool eof = false;
  // Appends up to `want` more bytes of the file to `head`; eof once nothing more comes.
  auto read_more = [&] {
    size_t old = head.size();
    head.resize(old + want);
    size_t n = read_into(head.data() + old, want);
    head.resize(old + n);
    eof = n == 0;
  };
  size_t pos = 0;
  uint64_t skipped = 0;  // leading whitespace dropped before `head` (its file offset)
  for (;;) {
    read_more();
    // Skip a UTF-8 byte order mark and leading whitespace.
    pos = 0;
    if (skipped == 0 && head.size() >= 3 && static_cast<unsigned char>(head[0]) == 0xEF &&
        static_cast<unsigned char>(head[1]) == 0xBB && static_cast<unsigned char>(head[2]) == 0xBF)
      pos = 3;
    while (pos < head.size() && is_ws(head[pos])) ++pos;
    if (pos < head.size() || eof) break;
    // Only whitespace so far: drop it rather than keep it (2 GiB of spaces, or a small .gz
    // of them, grew this buffer to several GiB before "file is empty").
    skipped += head.size();
    head.clear();
  }
  if (pos >= head.size()) throw LoadError::whole_file(path_, "file is empty (no JSON, only whitespace)");

  size_t open = 0;
  if (head[pos] == '[') {
    open = pos;
  } else if (head[pos] == '{') {
    object_form_ = true;
    for (;;) {
      open = find_trace_events_array(head, pos, eof, path_);
      if (open != std::string::npos) break;
      // The keys before "traceEvents" are held to be read at the end: a few KB in a profiler's
      // file, so past kMaxEventBytes they are no trace (a string or a run of whitespace of GBs).
      if (head.size() > kMaxEventBytes)
        throw LoadError::at_byte(path_, skipped + pos,
                                 "no \"traceEvents\" array in the first " + std::to_string(kMaxEventBytes >> 20) +
                                     " MiB of the object (a value before it is too large to read)");
      read_more();
      want *= 2;
    }
    // Keep the object without traceEvents, to read its other keys at the end.
    size_t key = head.rfind("\"traceEvents\"", open);
    head_object_ = head.substr(pos, key - pos);
  } else {
    throw LoadError::at_byte(path_, skipped + pos,
                             std::string("not a JSON trace: expected '[' or '{', found '") + head[pos] + "'");
  }
  size_t first = open + 1;
  while (first < head.size() && is_ws(head[first])) ++first;
  carry_.assign(head, first, std::string::npos);
  carry_offset_ = skipped + first;
  eof_ = eof;
}

// Whitespace that leads the text, and after an event the ',' that ends it: never carried (a run
// of GBs of it between two events made the carry, and memory, grow to several times its size).
size_t TraceChunkReader::leading_separator(const char* text, size_t n) {
  size_t lead = 0;
  while (lead < n && is_ws(text[lead])) ++lead;
  if (comma_pending_ && lead < n) {
    comma_pending_ = false;
    if (text[lead] == ',')
      for (++lead; lead < n && is_ws(text[lead]);) ++lead;
  }
  return lead;
}

// Fills a new chunk: carry + fresh input up to chunk_bytes, cut at the last event boundary.
// Returns false when there is nothing left.
bool TraceChunkReader::next(Chunk& c) {
  if (done_) return false;
  const size_t target = std::max(opt_.chunk_bytes, carry_.size() + (size_t{1} << 16));
  for (;;) {
    char* text = text_room(c, target);
    std::memcpy(text, carry_.data(), carry_.size());
    size_t have = carry_.size();
    while (!eof_ && have < target) {
      size_t n = read_into(text + have, target - have);
      if (n == 0) eof_ = true;
      have += n;
    }
    if (opt_.progress) opt_.progress(consumed_, src_->compressed() ? 0 : src_->file_bytes());
    c.oversized = kNoOffset;
    c.failure.clear();
    if (const size_t lead = leading_separator(text, have); lead > 0) {
      carry_.assign(text + lead, have - lead);
      carry_offset_ += lead;
      continue;
    }
    c.text_offset = carry_offset_;
    if (eof_) {
      c.index = next_index_++;
      set_prefix(c, object_form_ ? ChunkShape::ObjectTail : ChunkShape::Array);
      c.len = kPrefixRoom - c.start + have;
      std::memset(text + have, 0, simdjson::SIMDJSON_PADDING);
      done_ = true;
      carry_.clear();
      return true;
    }
    size_t next_start = 0;
    size_t cut = exact_ ? exact_event_boundary(text, have, &next_start) : find_event_boundary(text, have, &next_start);
    if (cut == 0 && !exact_) cut = cut_before_trailing_whitespace(text, have, &next_start);
    // No event ends in a whole chunk: one event larger than a chunk, or no event at all.
    if (cut == 0) return long_event(c, text, have);
    c.index = next_index_++;
    carry_.assign(text + next_start, have - next_start);
    carry_offset_ = c.text_offset + next_start;
    text[cut] = ']';
    set_prefix(c, ChunkShape::Array);
    c.len = kPrefixRoom - c.start + cut + 1;
    std::memset(text + cut + 1, 0, simdjson::SIMDJSON_PADDING);
    return true;
  }
}

// Reads the event that starts the text byte by byte (LongEventReader), to its end, and makes it a
// chunk of its own; what follows it becomes the carry. After the array's end it reads to the end
// of the input. Text that is no event fails the chunk: the error itself while cutting exactly,
// else the loader starts again from here cutting exactly (a wrong cut before may be the cause).
bool TraceChunkReader::long_event(Chunk& c, const char* text, size_t have) {
  const uint64_t start = carry_offset_;
  LongEventReader reader(start, object_form_);
  std::string kept;
  size_t used = reader.feed(text, have, kept);
  std::string rest(text + used, have - used);
  std::vector<char> block;
  auto busy = [&] {
    return reader.state() != LongEventReader::State::EventDone && reader.state() != LongEventReader::State::Failed;
  };
  while (busy()) {
    if (block.empty()) block.resize(size_t{1} << 20);
    size_t n = read_into(block.data(), block.size());
    if (n == 0) {
      eof_ = true;
      reader.end_of_input();
      break;
    }
    used = reader.feed(block.data(), n, kept);
    rest.assign(block.data() + used, n - used);
    if (opt_.progress) opt_.progress(consumed_, src_->compressed() ? 0 : src_->file_bytes());
  }
  c.index = next_index_++;
  c.text_offset = start;
  if (reader.state() == LongEventReader::State::Failed) {
    if (exact_) throw LoadError::at_byte(path_, reader.error_offset(), reader.error());
    c.failure = reader.error();
    c.failure_offset = reader.error_offset();
    done_ = true;
    return true;
  }
  if (reader.state() == LongEventReader::State::EventDone) {
    carry_ = std::move(rest);
    carry_offset_ = reader.offset();
    comma_pending_ = true;
    if (reader.skipped()) c.oversized = reader.event_offset();
    c.text_offset = reader.event_offset();
    fill(c, kept, ChunkShape::Array, true);
    return true;
  }
  // After the array's ']', to the end of the input: the last chunk.
  done_ = true;
  carry_.clear();
  if (reader.tail_dropped()) c.oversized = reader.offset();
  fill(c, kept, object_form_ ? ChunkShape::ObjectTail : ChunkShape::Array, false);
  return true;
}

void TraceChunkReader::fill(Chunk& c, const std::string& body, ChunkShape shape, bool close) {
  char* text = text_room(c, body.size());
  std::memcpy(text, body.data(), body.size());
  size_t len = body.size();
  if (close) text[len++] = ']';
  set_prefix(c, shape);
  c.len = kPrefixRoom - c.start + len;
  std::memset(text + len, 0, simdjson::SIMDJSON_PADDING);
}

void TraceChunkReader::set_prefix(Chunk& c, ChunkShape shape) {
  c.shape = shape;
  if (shape == ChunkShape::Array) {
    c.start = kPrefixRoom - 1;
    c.data[c.start] = '[';
  } else {
    c.start = 0;
    std::memcpy(c.data.get(), kObjectTailPrefix.data(), kPrefixRoom);
  }
}

void TraceChunkReader::restart_exact(uint64_t offset) {
  src_ = ByteSource::open(path_);
  consumed_ = 0;
  std::vector<char> skip(size_t{1} << 20);
  while (consumed_ < offset)
    if (read_into(skip.data(), static_cast<size_t>(std::min<uint64_t>(offset - consumed_, skip.size()))) == 0) break;
  carry_.clear();
  carry_offset_ = offset;
  eof_ = done_ = comma_pending_ = false;
  exact_ = true;
}

LoadError TraceChunkReader::chunk_error(const Chunk& c, const ChunkResult& r) const {
  if (!c.failure.empty()) return LoadError::at_byte(path_, c.failure_offset, c.failure);
  const char* text = c.text();
  const size_t n = c.text_len();
  LocatedEventError where = locate_event_error(text, n, c.text_offset, !object_form_);
  if (where.found) return LoadError::at_byte(path_, where.offset, where.message);
  std::string msg = (r.bad_event ? "" : "invalid JSON: ") + r.error;
  // A file cut short is the commonest cause; say so when the text does not end the array.
  size_t e = n;
  while (e > 0 && is_ws(text[e - 1])) --e;
  const char last = e > 0 ? text[e - 1] : '\0';
  if (last != ']' && last != '}') msg += " (the file ends inside the trace array: truncated?)";
  return LoadError::at_byte(path_, r.error_offset, msg);
}

char* TraceChunkReader::text_room(Chunk& c, size_t bytes) {
  const size_t need = kPrefixRoom + bytes + 1 + simdjson::SIMDJSON_PADDING;  // prefix, text, ']' or padding
  if (!c.data || c.cap < need) {
    c.data = take_buffer(need);
    c.cap = need;
  }
  return c.data.get() + kPrefixRoom;
}

std::unique_ptr<char[]> TraceChunkReader::take_buffer(size_t need) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  for (auto it = pool_.begin(); it != pool_.end(); ++it) {
    if (it->second >= need) {
      auto p = std::move(it->first);
      pool_.erase(it);
      return p;
    }
  }
  return std::unique_ptr<char[]>(new char[need]);
}

void TraceChunkReader::give_back(Chunk& c) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (pool_.size() < buffers_) pool_.emplace_back(std::move(c.data), c.cap);
  c.data.reset();
}

}  // namespace npu
