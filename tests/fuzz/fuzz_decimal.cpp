// libFuzzer target: the decimal conversions of base/decimal.h.
//
// The input is one cell of text. Beyond "no crash, no sanitizer report", the results are
// checked against an exact reference (128-bit integers) for plain decimals
// ([+-]digits[.digits]):
//   us-exact     parse_us_to_ns equals the exact value rounded half away from zero at the
//                fourth decimal, and is nullopt exactly when that does not fit in int64
//   int-exact    parse_int of a plain decimal, when it answers, answers the exact integer,
//                and the text had no non-zero fraction
//   double-exact parse_double of a plain decimal equals strtod's (both round correctly)
//   round-trip   format_ns_as_us(v) parses back to v, for v from the input's first 8 bytes
// NPU_FUZZ_SKIP="int-exact,round-trip" turns named checks off (to keep fuzzing past a
// known finding).
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "base/decimal.h"
#include "fuzz_util.h"

namespace {

using npu_fuzz::finding;

using npu_fuzz::enabled;

std::string show(std::string_view t) {
  std::string out = "\"";
  for (unsigned char c : t) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out + "\"";
}

std::string i128(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

struct Plain {
  bool plain = false;     // [+-]digits[.digits] with at least one digit
  bool plus = false;      // written with a leading '+'
  bool huge = false;      // whole part past 1e30: certainly out of any int64 range
  __int128 ns = 0;        // exact value in ns, rounded half away from zero
  __int128 whole = 0;     // integer part (signed)
  bool frac_zero = true;  // every fractional digit is 0
  bool has_point = false;
};

Plain reference(std::string_view t) {
  Plain p;
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
    neg = t[i] == '-';
    p.plus = t[i] == '+';
    ++i;
  }
  const __int128 cap = static_cast<__int128>(1000000000000000000LL) * 1000000000000LL;  // 1e30
  __int128 whole = 0;
  size_t wd = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
    if (whole < cap) whole = whole * 10 + (t[i] - '0');
    else p.huge = true;
    ++i;
    ++wd;
  }
  __int128 frac = 0;
  size_t fd = 0;
  bool round_up = false;
  if (i < t.size() && t[i] == '.') {
    p.has_point = true;
    ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      if (t[i] != '0') p.frac_zero = false;
      if (fd < 3) frac = frac * 10 + (t[i] - '0');
      else if (fd == 3) round_up = t[i] >= '5';
      ++fd;
      ++i;
    }
    for (size_t k = fd; k < 3; ++k) frac *= 10;
  }
  if (i != t.size() || (wd == 0 && fd == 0)) return p;
  p.plain = true;
  __int128 ns = whole * 1000 + frac + (round_up ? 1 : 0);
  p.ns = neg ? -ns : ns;
  p.whole = neg ? -whole : whole;
  return p;
}

bool fits_int64(__int128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  std::string_view trimmed = npu::trim_cell(text);
  if (trimmed.size() > text.size() ||
      (!trimmed.empty() &&
       (trimmed.data() < text.data() || trimmed.data() + trimmed.size() > text.data() + text.size())))
    finding("trim_cell returned text outside its input");
  (void)npu::is_missing_cell(text);

  std::optional<npu::Ns> us = npu::parse_us_to_ns(text);
  std::optional<int64_t> in = npu::parse_int(text);
  std::optional<double> dbl = npu::parse_double(text);

  char buf[64];
  if (us) {
    npu::format_ns_as_us(*us, buf, sizeof buf);
    if (enabled("round-trip") && npu::parse_us_to_ns(buf) != us)
      finding("parse_us_to_ns(" + show(text) + ") = " + std::to_string(*us) + ", formatted " + buf +
              ", does not parse back");
  }

  Plain ref = reference(trimmed);
  if (ref.plain && enabled("us-exact")) {
    bool fits = !ref.huge && fits_int64(ref.ns);
    if (fits && us != static_cast<int64_t>(ref.ns))
      finding("parse_us_to_ns(" + show(text) + ") = " + (us ? std::to_string(*us) : "nullopt") + ", exact " +
              i128(ref.ns));
    if (!fits && us)
      finding("parse_us_to_ns(" + show(text) + ") = " + std::to_string(*us) + " but the value (" +
              (ref.huge ? "huge" : i128(ref.ns)) + " ns) does not fit in int64");
  }
  if (ref.plain && in && enabled("int-exact")) {
    bool ok = !ref.huge && ref.frac_zero;
    if (ok && fits_int64(ref.whole)) ok = *in == static_cast<int64_t>(ref.whole);
    // parse_int deliberately wraps integers in (INT64_MAX, UINT64_MAX] (rare unsigned ids).
    else if (ok && ref.whole > 0 && ref.whole <= static_cast<__int128>(UINT64_MAX) && !ref.has_point)
      ok = *in == static_cast<int64_t>(static_cast<uint64_t>(ref.whole));
    else ok = false;
    if (!ok)
      finding("parse_int(" + show(text) + ") = " + std::to_string(*in) + " but the text is " +
              (ref.frac_zero ? "the integer " + i128(ref.whole) : "not an integer"));
  }
  if (ref.plain && !ref.plus && enabled("double-exact")) {
    std::string t(trimmed);
    errno = 0;
    double expect = std::strtod(t.c_str(), nullptr);
    if (errno == ERANGE) {
      // Past double's range: both may legitimately disagree on how to say so.
    } else if (!dbl || (*dbl != expect && !(*dbl == 0 && expect == 0)))
      finding("parse_double(" + show(text) + ") = " + (dbl ? std::to_string(*dbl) : "nullopt") + ", strtod " +
              std::to_string(expect));
  }

  // Round trip of an arbitrary int64 through the text form.
  if (enabled("round-trip") && size >= 8) {
    int64_t v;
    std::memcpy(&v, data, 8);
    npu::format_ns_as_us(v, buf, sizeof buf);
    auto back = npu::parse_us_to_ns(buf);
    if (back != v)
      finding("format_ns_as_us(" + std::to_string(v) + ") = " + buf + " parses back as " +
              (back ? std::to_string(*back) : "nullopt"));
  }
  // Short buffers truncate, never overrun.
  npu::format_ns_as_us(us.value_or(0), buf, 1 + static_cast<int>(size % 24));
  return 0;
}
