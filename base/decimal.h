// Exact conversions from the decimal text that profilers write to integer nanoseconds.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/types.h"

namespace npu {

// Parses a decimal number of microseconds ("1704161511420306.491", "12.77012757357446",
// "-3", "1.5e3", "  42\t") into nanoseconds. Digits past the third decimal are rounded
// half away from zero. Leading/trailing spaces, tabs and a single pair of quotes are ignored.
// Returns nullopt for empty text, "N/A", or anything that is not a number.
std::optional<Ns> parse_us_to_ns(std::string_view text);

// Same, for a value already in nanoseconds or any integer-like count ("12", "12.0").
std::optional<int64_t> parse_int(std::string_view text);

// Plain floating-point value (ratios, MB, GB/s). nullopt for N/A, empty, or a value that is no
// finite number ("inf", "nan", "1e400"): an infinite size is a corrupt cell, not a measurement.
std::optional<double> parse_double(std::string_view text);

// Strips surrounding whitespace (space, tab, CR) and one layer of double quotes, as real
// exports wrap values such as "1736413971558972.912\t" and """81920,4096""".
std::string_view trim_cell(std::string_view text);

// True for cells that mean "no value": empty, N/A, NA, None, null, -.
bool is_missing_cell(std::string_view text);

// Formats nanoseconds as microseconds with exactly three decimals ("1704161511420306.491").
void format_ns_as_us(Ns ns, char* out, int out_size);

}  // namespace npu
