#include "base/text.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace npu::text {

std::string ms_number(double ns) { return fmt::format("{:.3f}", ns / 1e6); }
std::string ms(double ns) { return ms_number(ns) + " ms"; }
std::string us(double ns) { return fmt::format("{:.1f} us", ns / 1000.0); }

std::string human_bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

std::string md_cell(std::string s) {
  for (auto& c : s)
    if (c == '|' || c == '\n') c = ' ';
  return s;
}

std::string md_safe_cell(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    if (c == '|' || c == '\n' || c == '\r') o += ' ';
    else if (c == '`') o += '\'';
    else if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else o += c;
  }
  return o;
}

std::string md_code(const std::string& s) {
  std::string body = s;
  size_t longest = 0, run = 0;
  for (auto& c : body) {
    if (c == '\n' || c == '\r') c = ' ';
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  // A span that starts or ends with a backtick needs a space inside its fence (CommonMark strips one).
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string md_prose(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '`':
      case '[':
      case ']':
      case '|':
      case '\\':
        o += '\\';
        o += c;
        break;
      case '\n':
      case '\r': o += ' '; break;
      default: o += c;
    }
  }
  return o;
}

std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-+=:,@") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool contains_nocase(std::string_view s, std::string_view needle) {
  auto low = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  return std::search(s.begin(), s.end(), needle.begin(), needle.end(),
                     [&](char a, char b) { return low(a) == low(b); }) != s.end();
}

size_t utf8_prefix(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // a continuation byte
  return n;
}

std::string clip(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  const std::string suffix = "...(" + std::to_string(s.size()) + " bytes)";
  const size_t keep = max_bytes > suffix.size() ? max_bytes - suffix.size() : 0;
  return std::string(s.substr(0, utf8_prefix(s, keep))) + suffix;
}

}  // namespace npu::text
