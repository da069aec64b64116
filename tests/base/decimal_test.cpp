#include "base/decimal.h"

#include <gtest/gtest.h>

using npu::parse_double;
using npu::parse_int;
using npu::parse_us_to_ns;

TEST(Decimal, StringTimestampKeepsNanoseconds) {
  // 1704161511420306.491 us has 19 significant digits: a double would lose the ".491".
  EXPECT_EQ(parse_us_to_ns("1704161511420306.491"), 1704161511420306491LL);
  EXPECT_EQ(parse_us_to_ns("\"1736413971558972.912\t\""), 1736413971558972912LL);
}

TEST(Decimal, FractionsPadAndRound) {
  EXPECT_EQ(parse_us_to_ns("13.08"), 13080);
  EXPECT_EQ(parse_us_to_ns("4.0"), 4000);
  EXPECT_EQ(parse_us_to_ns("42"), 42000);
  EXPECT_EQ(parse_us_to_ns("12.77012757357446"), 12770);
  EXPECT_EQ(parse_us_to_ns("52.40052348122958"), 52401);  // 4th decimal 5 rounds up
  EXPECT_EQ(parse_us_to_ns("-3.5"), -3500);
  EXPECT_EQ(parse_us_to_ns(".5"), 500);
}

TEST(Decimal, ScientificNotation) {
  EXPECT_EQ(parse_us_to_ns("1.5e3"), 1500000);
  EXPECT_EQ(parse_us_to_ns("1.69512E+15"), 1695120000000000000LL);
  EXPECT_EQ(parse_us_to_ns("1.5e-05"), 0);
  EXPECT_EQ(parse_us_to_ns("-2.5E-1"), -250);
  EXPECT_EQ(parse_us_to_ns("0e30"), 0);
  EXPECT_EQ(parse_us_to_ns("1e-400"), 0);
  EXPECT_EQ(parse_us_to_ns("9.2e15"), 9200000000000000000LL);
  EXPECT_FALSE(parse_us_to_ns("1e20"));  // 10^23 ns
  EXPECT_FALSE(parse_us_to_ns("1e"));
  EXPECT_FALSE(parse_us_to_ns("1e+"));
  EXPECT_FALSE(parse_us_to_ns("1e5x"));
}

// Exponent forms are rounded from their decimal digits, like the plain form, and so the same on
// every CPU: through long double, 3.15e-2 us (31.5 ns) gave 31 ns on x86-64 (80 bits) and 1.255e-1
// (125.5 ns) gave 125 on aarch64 (128 bits). Every "N5e-4" us (N + 0.5 ns) is checked against
// integer arithmetic; long double got some of them wrong on each CPU.
TEST(Decimal, ScientificNotationRoundsExactlyOnEveryCpu) {
  EXPECT_EQ(parse_us_to_ns("3.15e-2"), 32);
  EXPECT_EQ(parse_us_to_ns("1.255e-1"), 126);
  EXPECT_EQ(parse_us_to_ns("-3.15e-2"), -32);
  EXPECT_EQ(parse_us_to_ns("0.0315e0"), 32);
  for (int64_t n = 0; n < 20000; ++n) {
    const std::string text = std::to_string(n) + "5e-4";
    ASSERT_EQ(parse_us_to_ns(text), n + 1) << text;
    const std::string negative = "-" + std::to_string(n) + ".5E-3";
    ASSERT_EQ(parse_us_to_ns(negative), -(n + 1)) << negative;
  }
}

TEST(Decimal, MissingAndGarbage) {
  EXPECT_FALSE(parse_us_to_ns(""));
  EXPECT_FALSE(parse_us_to_ns("N/A"));
  EXPECT_FALSE(parse_us_to_ns("abc"));
  EXPECT_FALSE(parse_us_to_ns("12abc"));
  EXPECT_FALSE(parse_us_to_ns("99999999999999999999999"));  // overflows int64 ns
}

TEST(Decimal, Integers) {
  EXPECT_EQ(parse_int("4294967295"), 4294967295LL);
  EXPECT_EQ(parse_int(" 16 "), 16);
  EXPECT_EQ(parse_int("12.0"), 12);
  EXPECT_EQ(parse_int("1704161511422904204"), 1704161511422904204LL);
  EXPECT_FALSE(parse_int("NO"));
  EXPECT_FALSE(parse_int("1.5"));
}

TEST(Decimal, Doubles) {
  EXPECT_DOUBLE_EQ(*parse_double("0.824"), 0.824);
  EXPECT_DOUBLE_EQ(*parse_double("79.3%"), 79.3);
  EXPECT_FALSE(parse_double("N/A"));
  // A value that is no finite number is no measurement (issue 47: an "inf" MB became a null peak).
  for (const char* t : {"inf", "-inf", "Infinity", "nan", "NaN", "1e400", "-1e999"}) EXPECT_FALSE(parse_double(t)) << t;
  EXPECT_DOUBLE_EQ(*parse_double("1e300"), 1e300);
}

TEST(Decimal, FormatRoundTrips) {
  char buf[40];
  npu::format_ns_as_us(1704161511420306491LL, buf, sizeof buf);
  EXPECT_STREQ(buf, "1704161511420306.491");
  npu::format_ns_as_us(-1500, buf, sizeof buf);
  EXPECT_STREQ(buf, "-1.500");
}
