// The pieces of one trace event as the chunk parser (trace_chunk_parser.cpp) reads them: times
// and integers scanned straight from the JSON text (the hot path of the loader), a cache in
// front of the string pool for names that repeat, and the fields collected before an event is
// dispatched by its ph. Only the chunk parser includes it; everything is inline, as it was there.
#pragma once
#include <cstdint>
#include <string_view>

#include "loaders/common/trace_chunk_parser.h"
#include "model/model.h"

namespace npu::trace_event {

// What may follow the digits: the closing '"' of a string's content, or a JSON delimiter after
// a number token ("17041615x11" is no timestamp, not 17041615 us).
inline bool ends_token(char c, bool in_string) {
  if (in_string) return c == '"';
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0';
}

// Decimal microseconds straight from the JSON text (a number token or a string's content)
// to ns: digits, optional '.', digits, then the token's end. The hot path of the loader;
// anything unusual (exponent, sign, overflow, other text) goes to the general parser, which
// refuses what is not a number.
inline bool fast_us_to_ns(const char* p, Ns* out, bool in_string) {
  const char* start = p;
  int64_t whole = 0;
  int digits = 0;
  // Up to 16 integer digits: the largest, 9999999999999999 us, still fits in int64 as ns.
  while (*p >= '0' && *p <= '9' && digits < 16) {
    whole = whole * 10 + (*p++ - '0');
    ++digits;
  }
  if (digits == 0 || (*p >= '0' && *p <= '9') || whole > 9'000'000'000'000'000)
    return false;  // us: x1000 must fit int64
  int64_t frac = 0;
  int fd = 0;
  bool round_up = false;
  if (*p == '.') {
    ++p;
    while (*p >= '0' && *p <= '9') {
      if (fd < 3) frac = frac * 10 + (*p - '0');
      else if (fd == 3) round_up = *p >= '5';
      ++fd;
      ++p;
    }
    for (int k = fd; k < 3; ++k) frac *= 10;
  }
  if (!ends_token(*p, in_string)) return false;  // exponent, sign, garbage: the general parser decides
  (void)start;
  *out = whole * 1000 + frac + (round_up ? 1 : 0);
  return true;
}

inline bool fast_int(const char* p, int64_t* out) {
  bool neg = *p == '-';
  if (neg) ++p;
  int64_t v = 0;
  int digits = 0;
  while (*p >= '0' && *p <= '9' && digits < 18) {
    v = v * 10 + (*p++ - '0');
    ++digits;
  }
  if (digits == 0 || (*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E') return false;
  *out = neg ? -v : v;
  return true;
}

// Names repeat across millions of events: a small direct-mapped cache in front of the
// string pool saves most hash-table lookups.
class InternCache {
 public:
  explicit InternCache(StringPool& pool) : pool_(pool) {}
  StrId intern(std::string_view s) {
    size_t h = s.size() * 131;
    if (!s.empty())
      h += static_cast<unsigned char>(s[0]) * 31 + static_cast<unsigned char>(s[s.size() - 1]) * 7 +
           static_cast<unsigned char>(s[s.size() / 2]);
    Entry& e = table_[h & (kSize - 1)];
    if (e.view.size() == s.size() && e.view == s) return e.id;
    StrId id = pool_.intern(s);
    e = {pool_.str(id), id};
    return id;
  }

 private:
  static constexpr size_t kSize = 512;
  struct Entry {
    std::string_view view;
    StrId id = 0;
  };
  StringPool& pool_;
  Entry table_[kSize];
};

// One event's fields as they are read; which ones matter depends on ph, which may come
// last in the object, so everything is collected first and dispatched at the end.
struct EventFields {
  char ph = 0;
  bool has_ts = false, has_dur = false, has_id = false, id_is_str = false;
  bool bad_dur = false;  // a "dur" that is there but is no time
  Ns ts = 0, dur = 0;
  int64_t id = 0;
  int64_t corr = kNoId;
  int64_t bytes = -1;  // Kineto gpu_memcpy / gpu_memset "bytes"
  TrackKey key;
  StrId name = 0, cat = 0, task_type = 0, arg_name = 0, arg_labels = 0;
  bool bp_enclosing = false;
  // Numeric args, kept as raw text and converted only for counter events.
  struct NumArg {
    std::string_view key, raw;
  } num_args[4];
  int n_num_args = 0;
  // Kineto "[memory]" instant events: the allocator totals after the event, and whose
  // allocator (device type 0 = CPU). Kept apart from num_args, which holds only four.
  std::string_view mem_allocated, mem_reserved, mem_device_type, mem_device_id;
  // Kineto cpu_op "Input Dims" / "Input type" (record_shapes): interned JSON text, or 0.
  StrId input_dims = 0, input_types = 0;
  // Kineto runtime launch calls (ROCm's hipLaunchKernel, ...): "kernel", the kernel launched.
  StrId launch_kernel = 0;
};

}  // namespace npu::trace_event
