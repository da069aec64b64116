// The byte-level scans of trace text the streaming loader needs besides the parse itself: where a
// chunk may end, where an object-form file's event array starts, and, after a failed parse,
// which event broke it (loaders/trace_text_scan.h).
#include "loaders/common/trace_text_scan.h"

#include <cstring>
#include <simdjson.h>

#include "base/load_error.h"

namespace npu {

size_t find_event_boundary(const char* text, size_t n, size_t* next_start) {
  size_t pos = n;
  while (pos > 1) {
    const void* hit = memrchr(text + 1, '{', pos - 1);
    if (!hit) return 0;
    size_t brace = static_cast<size_t>(static_cast<const char*>(hit) - text);
    size_t i = brace;
    while (i > 0 && is_ws(text[i - 1])) --i;
    if (i > 0 && text[i - 1] == ',') {
      --i;
      while (i > 0 && is_ws(text[i - 1])) --i;
      if (i > 0 && text[i - 1] == '}') {
        *next_start = brace;
        return i;  // one past the '}'
      }
    }
    pos = brace;
  }
  return 0;
}

size_t exact_event_boundary(const char* text, size_t n, size_t* next_start) {
  size_t depth = 0, cut = 0;
  bool in_str = false, esc = false;
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (in_str) {
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') {
      in_str = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) break;  // the array's end
      if (--depth > 0) continue;
      size_t j = i + 1;
      while (j < n && is_ws(text[j])) ++j;
      if (j >= n || text[j] != ',') continue;
      for (++j; j < n && is_ws(text[j]);) ++j;
      cut = i + 1;
      *next_start = j;
      i = j - 1;
    }
  }
  return cut;
}

size_t cut_before_trailing_whitespace(const char* text, size_t n, size_t* next_start) {
  size_t end = n;
  while (end > 0 && is_ws(text[end - 1])) --end;
  if (end == n || end < 2 || text[end - 1] != ',') return 0;
  size_t i = end - 1;
  while (i > 0 && is_ws(text[i - 1])) --i;
  if (i == 0 || text[i - 1] != '}') return 0;
  *next_start = n;
  return i;
}

size_t find_trace_events_array(const std::string& s, size_t start, bool at_eof, const std::string& path) {
  int depth = 0;
  bool in_str = false, esc = false;
  size_t key_start = 0;
  for (size_t i = start; i < s.size(); ++i) {
    char c = s[i];
    if (in_str) {
      if (esc) {
        esc = false;
      } else if (c == '\\') {
        esc = true;
      } else if (c == '"') {
        in_str = false;
        if (depth == 1) {
          std::string_view key(s.data() + key_start, i - key_start);
          size_t j = i + 1;
          while (j < s.size() && is_ws(s[j])) ++j;
          if (j < s.size() && s[j] == ':' && key == "traceEvents") {
            ++j;
            while (j < s.size() && is_ws(s[j])) ++j;
            if (j >= s.size()) break;  // the value is still to come (or, at the end, never does)
            if (s[j] != '[') throw LoadError::at_byte(path, j, "\"traceEvents\" is not an array");
            return j;
          }
        }
      }
      continue;
    }
    if (c == '"') {
      in_str = true;
      key_start = i + 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
      if (depth == 0) throw LoadError::at_byte(path, i, "JSON object has no \"traceEvents\" array");
    }
  }
  if (at_eof) throw LoadError::at_byte(path, s.size(), "file ends before a \"traceEvents\" array (truncated?)");
  return std::string::npos;
}

LocatedEventError locate_event_error(const char* text, size_t n, uint64_t base, bool array_form) {
  auto skip_ws = [&](size_t i) {
    while (i < n && is_ws(text[i])) ++i;
    return i;
  };
  // The array closed at `close`: in a bare-array file nothing may follow it (trailing text was
  // reported as "byte 1 ... truncated?").
  auto closed_at = [&](size_t close) -> LocatedEventError {
    size_t j = skip_ws(close + 1);
    if (!array_form || j >= n) return {};
    return {true, base + j, "text after the end of the trace array"};
  };
  simdjson::dom::parser dom;
  size_t i = skip_ws(0);
  while (i < n) {
    if (text[i] == ']') return closed_at(i);
    if (text[i] != '{') return {true, base + i, std::string("expected '{' to start an event, found '") + text[i] + "'"};
    size_t start = i;
    int depth = 0;
    bool in_str = false, esc = false;
    for (; i < n; ++i) {
      char c = text[i];
      if (in_str) {
        if (esc) esc = false;
        else if (c == '\\') esc = true;
        else if (c == '"') in_str = false;
        continue;
      }
      if (c == '"') in_str = true;
      else if (c == '{' || c == '[') ++depth;
      else if (c == '}' || c == ']') {
        if (--depth == 0) break;
      }
    }
    if (i >= n)
      return {true, base + start,
              std::string("the file ends inside ") + (in_str ? "a string of " : "") +
                  "the event that starts here (truncated?)"};
    simdjson::padded_string one(text + start, i - start + 1);
    simdjson::dom::element el;
    if (auto err = dom.parse(one).get(el))
      return {true, base + start, std::string("invalid event: ") + simdjson::error_message(err)};
    i = skip_ws(i + 1);
    if (i < n && text[i] == ',') {
      i = skip_ws(i + 1);
      continue;
    }
    if (i < n && text[i] == ']') return closed_at(i);
    if (i >= n) return {true, base + i, "the file ends after an event without closing the array (truncated?)"};
    return {true, base + i, std::string("unexpected '") + text[i] + "' after an event"};
  }
  return {true, base + n, "the file ends inside the trace array (truncated?)"};
}

}  // namespace npu
