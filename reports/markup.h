// Escaping for markup, HTML and XML alike (the HTML report, the gate's JUnit XML): one function,
// so every page and file escapes the same characters the same way.
#pragma once
#include <string>
#include <string_view>

namespace npu {

// `s` escaped for text and attribute values (&, <, >, ", ' as entities). Invalid UTF-8 and C0
// control characters other than tab and newlines (which XML 1.0 forbids) become U+FFFD.
std::string markup_escape(std::string_view s);

}  // namespace npu
