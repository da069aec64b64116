#include "base/natural_order.h"

#include <gtest/gtest.h>

using npu::natural_less;

TEST(NaturalOrder, NumbersCompareAsNumbers) {
  EXPECT_TRUE(natural_less("msprof_0_2_9.json", "msprof_0_2_10.json"));
  EXPECT_FALSE(natural_less("msprof_0_2_10.json", "msprof_0_2_9.json"));
  EXPECT_TRUE(natural_less("op_summary_007.csv", "op_summary_12.csv"));  // leading zeros ignored
  EXPECT_TRUE(natural_less("a", "ab"));
  EXPECT_FALSE(natural_less("ab", "ab"));
}

// A plain char is signed on x86-64 and unsigned on aarch64: bytes past 0x7F (UTF-8 names, such as
// the Chinese folder names of some exports) compare as unsigned on both, after every ASCII byte,
// as std::string orders them. Comparing chars would fail the first check on x86-64.
TEST(NaturalOrder, BytesPastAsciiSortAfterAsciiOnEveryCpu) {
  const std::string utf8 = "\xE8\xAE\xAD\xE7\xBB\x83.json";  // "训练.json"
  EXPECT_TRUE(natural_less("z.json", utf8));
  EXPECT_FALSE(natural_less(utf8, "z.json"));
  EXPECT_EQ(natural_less("~", "\x80"), std::string("~") < std::string("\x80"));
  EXPECT_TRUE(natural_less("run_\x7F", "run_\xFF"));
}
