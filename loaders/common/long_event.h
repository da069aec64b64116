// An event larger than a chunk of the streaming trace loader (trace_json_loader.cpp), read in
// bounded memory: whatever the input holds (GBs of whitespace, one string of GBs, a hole of NUL
// bytes), what is kept of it stays small, and where it is broken is named by its file offset.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace npu {

// The most one event may keep once its whitespace is dropped and its strings are cut: past it
// the event is skipped (and named in the run's warnings), never held.
constexpr size_t kMaxEventBytes = size_t{64} << 20;

// The length of the longest prefix of a JSON string's raw body raw[0, n) whose decoded text has
// at most `keep` bytes and does not cut a character or an escape.
size_t json_string_prefix(const char* raw, size_t n, size_t keep);

// Reads trace text from between two events of the event array, byte by byte and string-aware, up
// to the end of the next event: whitespace outside strings is dropped, and a string whose decoded
// text passes text::kMaxNameBytes is cut as text::clip() cuts it (its first characters, then
// "...(N bytes)", N counted while the rest streams past). After the array's ']' it reads to the
// end of the input: nothing but whitespace in a bare array; an object's remaining keys, filtered
// alike, in the object form.
class LongEventReader {
 public:
  enum class State : uint8_t { Between, InEvent, AfterArray, EventDone, Failed };
  // `offset`: the file offset of the first byte fed.
  LongEventReader(uint64_t offset, bool object_form) : offset_(offset), object_form_(object_form) {}

  // Consumes in[0, n) up to the end of the first event (state EventDone) or a failure, appending
  // what is kept to `out`; returns the bytes consumed.
  size_t feed(const char* in, size_t n, std::string& out);
  // The input ended: fails unless between events or after the array.
  void end_of_input();

  State state() const { return state_; }
  uint64_t offset() const { return offset_; }              // of the next byte to feed
  uint64_t event_offset() const { return event_offset_; }  // of the last event's '{'
  bool skipped() const { return skipped_; }                // the event passed kMaxEventBytes: nothing kept
  bool tail_dropped() const { return tail_dropped_; }      // the object's keys passed it: not kept
  const std::string& error() const { return error_; }
  uint64_t error_offset() const { return error_offset_; }

 private:
  void fail(uint64_t at, std::string message);
  void between(char c, std::string& out);
  void structure(char c, std::string& out);
  void in_string(char c, std::string& out);
  void keep(char c, std::string& out);
  void end_string(std::string& out);

  uint64_t offset_;
  bool object_form_;
  State state_ = State::Between;
  bool comma_allowed_ = true;  // the text starts after an event or at the array's first
  uint64_t depth_ = 0;
  uint64_t event_offset_ = 0;
  size_t kept_from_ = 0;  // where in `out` this event (or the tail) begins
  bool skipped_ = false, tail_dropped_ = false;
  // The string being read: where its body starts in `out`, its decoded length so far, whether
  // it is past the cap (its bytes no longer kept), and the escape being read.
  bool in_str_ = false, clipping_ = false, esc_ = false, after_high_ = false;
  size_t str_body_ = 0;
  uint64_t decoded_ = 0;
  int hex_left_ = 0;
  unsigned hex_ = 0;
  std::string error_;
  uint64_t error_offset_ = 0;
};

}  // namespace npu
