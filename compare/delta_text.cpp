#include "compare/delta_text.h"

#include <cmath>

#include <fmt/format.h>

#include "base/text.h"

namespace npu::compare {

std::string fmt_ms(double ns) { return text::ms(ns); }
std::string fmt_signed_ms(double ns) { return fmt::format("{:+.3f} ms", ns / 1e6); }
std::string fmt_signed_pct(double r) { return std::isfinite(r) ? fmt::format("{:+.1f}%", r * 100.0) : "n/a"; }

std::string fmt_count(double v) {
  return std::fabs(v - std::round(v)) < 1e-9 ? fmt::format("{:.0f}", v) : fmt::format("{:.2f}", v);
}

std::string metric_value_text(double v, const std::string& unit) {
  if (unit == "ns") return fmt_ms(v);
  if (unit == "ratio") return fmt::format("{:.2f}%", v * 100);
  if (unit == "MB") return fmt::format("{:.1f} MB", v);
  if (unit == "calls") return fmt::format("{:g} calls/step", v);
  return fmt::format("{:g}", v);
}

std::string metric_delta_text(double v, const std::string& unit) {
  if (unit == "ns") return fmt_signed_ms(v);
  if (unit == "ratio") return fmt::format("{:+.2f} pts", v * 100);
  if (unit == "MB") return fmt::format("{:+.1f} MB", v);
  if (unit == "calls") return fmt::format("{:+g} calls/step", v);
  return fmt::format("{:+g}", v);
}

}  // namespace npu::compare
