// Byte-level scans of Chrome-trace text for the streaming loader (loaders/trace_json_loader.cpp):
// where to cut the text into chunks that hold whole events, where an object-form file's
// "traceEvents" array opens, and which event a failed parse tripped on. They look at bytes only
// (no JSON parse, except the error path's one event at a time), so they run per chunk for free.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace npu {

inline bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Finds the end of the last complete event in text[0, n): the position just after a '}'
// that is followed by optional spaces, ',', optional spaces and '{' (the next event starts at
// *next_start); 0 when there is none. Such a "}, {" can in principle sit inside a string or a
// nested array; a wrong guess fails to parse and the loader then re-parses from there without
// splitting, so the guess never corrupts data.
size_t find_event_boundary(const char* text, size_t n, size_t* next_start);

// The same, string-aware: text[0, n) starts between two events, and a cut falls only after an
// event that ends at the array's level and is followed by ','; *next_start is after the ',' and
// the whitespace after it. Every byte is looked at: used once a guess has failed.
size_t exact_event_boundary(const char* text, size_t n, size_t* next_start);

// "...}, <whitespace>" at the end of the text (no next event yet): a boundary after the '}',
// the next chunk starting after the whitespace, which is dropped; 0 when the text does not end
// so. Without it, GBs of whitespace after an event stayed in the carry and grew memory to
// several times their size.
size_t cut_before_trailing_whitespace(const char* text, size_t n, size_t* next_start);

// Object-form traces: finds the '[' that opens the value of the top-level "traceEvents"
// key. Returns npos when more input is needed, or throws LoadError when the object has no
// such key (or, `at_eof`, when the text ends before it).
size_t find_trace_events_array(const std::string& s, size_t start, bool at_eof, const std::string& path);

// After a parse failed: walks the events one by one (string-aware brace matching) and
// parses each on its own, to name the first broken event. Error path only.
struct LocatedEventError {
  bool found = false;
  uint64_t offset = 0;
  std::string message;
};
LocatedEventError locate_event_error(const char* text, size_t n, uint64_t base, bool array_form);

}  // namespace npu
