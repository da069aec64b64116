// An event larger than a chunk, read byte by byte in bounded memory (loaders/common/long_event.h).
#include "loaders/common/long_event.h"

#include <cstdio>

#include "base/text.h"
#include "loaders/common/trace_text_scan.h"

namespace npu {
namespace {

// A string's raw bytes kept while it is read: enough for kMaxNameBytes of decoded text however
// it is escaped (at most 6 raw bytes a decoded byte, "\u0041"), so a string under the cap is
// always kept whole.
constexpr size_t kMaxRawString = 6 * text::kMaxNameBytes + 12;

unsigned hex_value(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
  return 0;
}

size_t utf8_bytes(unsigned cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3; }

std::string byte_text(char c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02x", static_cast<unsigned char>(c));
  return buf;
}

}  // namespace

size_t json_string_prefix(const char* raw, size_t n, size_t keep) {
  size_t i = 0, decoded = 0;
  while (i < n) {
    size_t r = 1, d = 1;
    const unsigned char b = static_cast<unsigned char>(raw[i]);
    if (b == '\\') {
      if (i + 1 >= n) break;
      r = 2;
      if (raw[i + 1] == 'u') {
        if (i + 6 > n) break;
        unsigned cp = 0;
        for (size_t k = 2; k < 6; ++k) cp = cp * 16 + hex_value(raw[i + k]);
        r = 6;
        d = utf8_bytes(cp);
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 12 <= n && raw[i + 6] == '\\' && raw[i + 7] == 'u') r = 12, d = 4;
      }
    } else if (b >= 0x80) {
      d = (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
      r = d;
      if (i + r > n) break;
    }
    if (decoded + d > keep) break;
    decoded += d;
    i += r;
  }
  return i;
}

size_t LongEventReader::feed(const char* in, size_t n, std::string& out) {
  size_t i = 0;
  for (; i < n && state_ != State::EventDone && state_ != State::Failed; ++i, ++offset_) {
    const char c = in[i];
    if (!in_str_ && is_ws(c)) continue;  // dropped wherever it is outside a string: the common case of a run
    if (state_ == State::Between) between(c, out);
    else if (in_str_) in_string(c, out);
    else structure(c, out);
  }
  return i;
}

void LongEventReader::end_of_input() {
  if (state_ == State::InEvent)
    fail(event_offset_, std::string("the file ends inside ") + (in_str_ ? "a string of " : "") +
                            "the event that starts here (truncated?)");
  else if (state_ == State::Between) fail(offset_, "the file ends inside the trace array (truncated?)");
}

void LongEventReader::fail(uint64_t at, std::string message) {
  state_ = State::Failed;
  error_offset_ = at;
  error_ = std::move(message);
}

void LongEventReader::between(char c, std::string& out) {
  if (is_ws(c)) return;
  if (c == ',' && comma_allowed_) {
    comma_allowed_ = false;
    return;
  }
  if (c == '{') {
    state_ = State::InEvent;
    event_offset_ = offset_;
    kept_from_ = out.size();
    depth_ = 1;
    out += c;
    return;
  }
  if (c == ']' && comma_allowed_) {
    state_ = State::AfterArray;
    kept_from_ = out.size();
    out += c;
    return;
  }
  fail(offset_, "expected '{' to start an event, found " + byte_text(c));
}

void LongEventReader::structure(char c, std::string& out) {
  if (is_ws(c)) return;
  if (state_ == State::AfterArray && !object_form_) return fail(offset_, "text after the end of the trace array");
  keep(c, out);
  if (c == '"') {
    in_str_ = true;
    clipping_ = esc_ = after_high_ = false;
    str_body_ = out.size();
    decoded_ = 0;
    hex_left_ = 0;
  } else if (c == '{' || c == '[') {
    ++depth_;
  } else if ((c == '}' || c == ']') && depth_ > 0 && --depth_ == 0 && state_ == State::InEvent) {
    state_ = State::EventDone;
  }
}

void LongEventReader::in_string(char c, std::string& out) {
  if (hex_left_ > 0) {
    hex_ = hex_ * 16 + hex_value(c);
    if (--hex_left_ == 0) {
      const bool low = hex_ >= 0xDC00 && hex_ <= 0xDFFF;
      decoded_ += hex_ >= 0xD800 && hex_ <= 0xDBFF ? 4 : low && after_high_ ? 0 : utf8_bytes(hex_);
      after_high_ = hex_ >= 0xD800 && hex_ <= 0xDBFF;
    }
  } else if (esc_) {
    esc_ = false;
    if (c == 'u') {
      hex_left_ = 4;
      hex_ = 0;
    } else {
      decoded_ += 1;
      after_high_ = false;
    }
  } else if (c == '\\') {
    esc_ = true;
  } else if (c == '"') {
    return end_string(out);
  } else {
    decoded_ += 1;
    after_high_ = false;
  }
  if (!clipping_) {
    keep(c, out);
    clipping_ = out.size() - str_body_ >= kMaxRawString;
  }
}

void LongEventReader::end_string(std::string& out) {
  in_str_ = false;
  if (!skipped_ && !tail_dropped_ && decoded_ > text::kMaxNameBytes) {
    // As text::clip() cuts a name (model/string_pool.cpp), with the whole string's length.
    const std::string suffix = "...(" + std::to_string(decoded_) + " bytes)";
    const size_t body =
        json_string_prefix(out.data() + str_body_, out.size() - str_body_, text::kMaxNameBytes - suffix.size());
    out.resize(str_body_ + body);
    out += suffix;
  }
  keep('"', out);
}

void LongEventReader::keep(char c, std::string& out) {
  if (skipped_ || tail_dropped_) return;
  out += c;
  if (out.size() - kept_from_ <= kMaxEventBytes) return;
  out.resize(kept_from_);
  if (state_ == State::AfterArray) {
    tail_dropped_ = true;
    out += "]}";
  } else {
    skipped_ = true;
  }
}

}  // namespace npu
