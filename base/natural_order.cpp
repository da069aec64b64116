#include "base/natural_order.h"

#include <algorithm>
#include <cctype>

namespace npu {

namespace {
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && is_digit(a[i2])) ++i2;
      while (j2 < b.size() && is_digit(b[j2])) ++j2;
      std::string_view x = a.substr(i, i2 - i), y = b.substr(j, j2 - j);
      x.remove_prefix(std::min(x.find_first_not_of('0'), x.size()));
      y.remove_prefix(std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i2;
      j = j2;
    } else {
      // As bytes: a plain char is signed on x86-64 and unsigned on aarch64, so comparing chars
      // put a UTF-8 name before ASCII on one and after it on the other.
      auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[j]);
      if (x != y) return x < y;
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace npu
