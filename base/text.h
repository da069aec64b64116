// Number and Markdown text shared by every renderer, written once so two reports of the same
// run never print the same quantity two ways.
#pragma once
#include <string>
#include <string_view>

namespace npu::text {

std::string ms_number(double ns);  // "7.318": ns as milliseconds, 3 decimals
std::string ms(double ns);         // "7.318 ms"
std::string us(double ns);         // "12.3 us": ns as microseconds, 1 decimal
std::string human_bytes(double b);  // "850 B", "1.5 KB", "12.3 MB", "1.23 GB" (powers of 1000)

// One Markdown table cell: '|' and line breaks become spaces.
std::string md_cell(std::string s);
// Text from runs and rules in a CI summary table cell: also no code span or HTML of its own
// (a rule's title must not inject markup into a CI page): '`' becomes '\'', '<' '>' entities.
std::string md_safe_cell(const std::string& s);
// Text from runs and rules (a rule id, a path) as one Markdown code span, backticks included:
// fenced by more backticks than any run in it, so no text closes the span early and brings live
// HTML after it; line breaks become spaces.
std::string md_code(const std::string& s);
// Text from runs and rules as Markdown prose: no HTML, links, code spans or table cells of its own.
std::string md_prose(const std::string& s);

// A word of a printed command line (a path): unchanged when made of safe characters only, else
// in single quotes, so a command can be pasted into a shell as it is.
std::string shell_word(const std::string& s);
// The longest prefix length <= n of `s` that does not cut a UTF-8 character (to shorten text).
size_t utf8_prefix(std::string_view s, size_t n);
// What a name or a metadata value may hold: past it, text from an input is no name but an attack
// or a corruption, and is kept cut (one 200 MB string must not reach every list and report).
constexpr size_t kMaxNameBytes = size_t{16} << 10;
// `s` when it has at most max_bytes, else its first whole UTF-8 characters and "...(N bytes)",
// max_bytes in all.
std::string clip(std::string_view s, size_t max_bytes = kMaxNameBytes);
// Whether `s` holds `needle` in any letter case (ASCII).
bool contains_nocase(std::string_view s, std::string_view needle);

}  // namespace npu::text
