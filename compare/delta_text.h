// The words and numbers the compare document and the gate's messages are written with: a time
// in ms, a signed change, and a metric's value or change in its own unit. Part of the
// documents (`why[].summary`, `checks[].message`), so the renderers in reports/ reuse them and
// a number reads the same in every format.
#pragma once
#include <string>

namespace npu::compare {

std::string fmt_ms(double ns);         // "7.318 ms"
std::string fmt_signed_ms(double ns);  // "+1.202 ms"
std::string fmt_signed_pct(double r);  // "+16.4%"  ("n/a" when not finite)
std::string fmt_count(double v);       // a mean count per step: "8", "7.33" (2 decimals unless whole)

// A gate metric's value and change in its unit ("ns", "ratio", "MB", "calls"; see metric_unit()).
std::string metric_value_text(double v, const std::string& unit);  // "7.318 ms", "9.93%", "1261.0 MB"
std::string metric_delta_text(double v, const std::string& unit);  // "+0.500 ms", "+6.23 pts"

}  // namespace npu::compare
