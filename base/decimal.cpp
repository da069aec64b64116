#include "base/decimal.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace npu {

std::string_view trim_cell(std::string_view t) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  for (int pass = 0; pass < 3; ++pass) {
    while (!t.empty() && is_space(t.front())) t.remove_prefix(1);
    while (!t.empty() && is_space(t.back())) t.remove_suffix(1);
    if (t.size() >= 2 && t.front() == '"' && t.back() == '"') {
      t = t.substr(1, t.size() - 2);
    } else {
      break;
    }
  }
  return t;
}

bool is_missing_cell(std::string_view t) {
  t = trim_cell(t);
  return t.empty() || t == "N/A" || t == "NA" || t == "n/a" || t == "None" || t == "null" || t == "-" || t == "nan" ||
         t == "NaN";
}

namespace {

// "[sign][digits][.digits]e[sign]digits" microseconds in nanoseconds, by decimal digit shifting, rounded
// like the plain form (the first dropped digit, half away from zero). Exact, so the same on every CPU:
// through long double it was not (80 bits on x86-64, 128 on aarch64: "3.15e-2" gave 31 ns on one
// and 32 on the other).
std::optional<Ns> parse_exponent_us_to_ns(std::string_view t, bool neg) {
  size_t i = t[0] == '-' || t[0] == '+' ? 1 : 0;
  std::string digits;    // the mantissa's digits, without the point
  long long point = -1;  // digits before the point, once seen
  for (; i < t.size() && t[i] != 'e' && t[i] != 'E'; ++i) {
    if (t[i] == '.') point = static_cast<long long>(digits.size());
    else digits += t[i];
  }
  long long exponent = 0;
  size_t e = i + 1;
  bool exp_neg = e < t.size() && t[e] == '-';
  if (e < t.size() && (t[e] == '-' || t[e] == '+')) ++e;
  if (e == t.size()) return std::nullopt;
  for (; e < t.size(); ++e) {
    if (t[e] < '0' || t[e] > '9') return std::nullopt;
    exponent = std::min<long long>(exponent * 10 + (t[e] - '0'), 100000);  // far past any int64
  }
  // value in ns = digits * 10^shift
  long long shift =
      (exp_neg ? -exponent : exponent) + 3 - (point < 0 ? 0 : static_cast<long long>(digits.size()) - point);
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) return Ns{0};
  long long kept = static_cast<long long>(digits.size()) + shift;  // digits left of the ns point
  if (kept > 19) return std::nullopt;                              // at least 10^19 ns
  __int128 ns = 0;
  for (long long k = 0; k < kept; ++k) ns = ns * 10 + (k < static_cast<long long>(digits.size()) ? digits[k] - '0' : 0);
  if (kept >= 0 && kept < static_cast<long long>(digits.size()) && digits[static_cast<size_t>(kept)] >= '5') ++ns;
  if (neg) ns = -ns;
  if (ns > INT64_MAX || ns < INT64_MIN) return std::nullopt;
  return static_cast<Ns>(ns);
}

}  // namespace

std::optional<Ns> parse_us_to_ns(std::string_view text) {
  std::string_view t = trim_cell(text);
  if (t.empty()) return std::nullopt;
  bool neg = false;
  size_t i = 0;
  if (t[0] == '-' || t[0] == '+') {
    neg = t[0] == '-';
    i = 1;
  }
  // Fast exact path: [digits][.digits] with no exponent.
  int64_t whole = 0;
  size_t whole_digits = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
    if (whole > (INT64_MAX - 9) / 10 / 1000) return std::nullopt;  // would overflow as ns
    whole = whole * 10 + (t[i] - '0');
    ++i;
    ++whole_digits;
  }
  int64_t frac_ns = 0;
  size_t frac_digits = 0;
  bool round_up = false;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      if (frac_digits < 3) {
        frac_ns = frac_ns * 10 + (t[i] - '0');
      } else if (frac_digits == 3) {
        round_up = t[i] >= '5';
      }
      ++frac_digits;
      ++i;
    }
    for (size_t k = frac_digits; k < 3; ++k) frac_ns *= 10;
  }
  if (whole_digits == 0 && frac_digits == 0) {
    if (t == "N/A") return std::nullopt;
    return std::nullopt;
  }
  if (i == t.size()) {
    // Exact range check: the value must fit int64 as ns (INT64_MIN included).
    __int128 ns = static_cast<__int128>(whole) * 1000 + frac_ns + (round_up ? 1 : 0);
    if (neg) ns = -ns;
    if (ns > INT64_MAX || ns < INT64_MIN) return std::nullopt;
    return static_cast<Ns>(ns);
  }
  if (t[i] == 'e' || t[i] == 'E') return parse_exponent_us_to_ns(t, neg);
  return std::nullopt;
}

std::optional<int64_t> parse_int(std::string_view text) {
  std::string_view t = trim_cell(text);
  if (t.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc() && p == t.data() + t.size()) return v;
  // "12.0" style integers, or values past int64 (rare ids): go through the ns parser.
  if (ec == std::errc() && *p == '.') {
    // "12.0" style: only when every fractional digit is zero.
    std::string_view frac = t.substr(static_cast<size_t>(p - t.data()) + 1);
    if (!frac.empty() && frac.find_first_not_of('0') == std::string_view::npos) return v;
  }
  if (ec == std::errc::result_out_of_range) {
    uint64_t u = 0;
    auto [p2, ec2] = std::from_chars(t.data(), t.data() + t.size(), u);
    if (ec2 == std::errc() && p2 == t.data() + t.size()) return static_cast<int64_t>(u);
  }
  return std::nullopt;
}

std::optional<double> parse_double(std::string_view text) {
  std::string_view t = trim_cell(text);
  if (t.empty() || is_missing_cell(t)) return std::nullopt;
  if (t.back() == '%') t.remove_suffix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc() && p == t.data() + t.size() && std::isfinite(v)) return v;
  return std::nullopt;
}

void format_ns_as_us(Ns ns, char* out, int out_size) {
  bool neg = ns < 0;
  uint64_t a = neg ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  std::snprintf(out, static_cast<size_t>(out_size), "%s%llu.%03llu", neg ? "-" : "",
                static_cast<unsigned long long>(a / 1000), static_cast<unsigned long long>(a % 1000));
}

}  // namespace npu
