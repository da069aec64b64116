// The step split (the report's `attribution`, rules/attribution.h) in words, the same in every
// renderer: where the step's time goes, and how much of it the findings' savings explain.
#include <fmt/format.h>

#include "reports/json_read.h"
#include "reports/report_document.h"

namespace npu {
namespace {

std::string cause_label(std::string name) {
  for (char& c : name)
    if (c == '_') c = ' ';
  return name == "gc" ? "Python GC" : name;
}

std::string share(double part, double whole) { return whole > 0 ? " (" + format_percent(part / whole) + ")" : ""; }

}  // namespace

std::string step_split_text(const nlohmann::json& a) {
  if (!a.is_object() || !a.value("available", false)) return "";
  const double step = a.value("step_ns", 0.0);
  const nlohmann::json parts = a.value("parts", nlohmann::json::object());
  std::string out = fmt::format("computing {}{}", format_ms(parts.value("computing_ns", 0.0)),
                                share(parts.value("computing_ns", 0.0), step));
  const double comm = parts.value("communication_ns", 0.0), bubble = parts.value("bubble_ns", 0.0);
  if (comm > 0) out += fmt::format(", communication {}{}", format_ms(comm), share(comm, step));
  if (bubble > 0) out += fmt::format(", pipeline bubble {}{}", format_ms(bubble), share(bubble, step));
  if (const double copies = parts.value("copies_ns", 0.0); copies > 0)
    out += fmt::format(", copies {}{}", format_ms(copies), share(copies, step));
  // A serving run's iterations: the host's turn after each, in no step, is part of the period.
  if (const double turn = parts.is_object() ? json_number(parts, "turn_ns") : 0.0; turn > 0)
    out += fmt::format(", turn between iterations {}{}", format_ms(turn), share(turn, step));
  const double idle = parts.value("idle_ns", 0.0);
  out += fmt::format(", idle {}{}", format_ms(idle), share(idle, step));
  std::string causes;
  for (const auto& c : a.value("idle_causes", nlohmann::json::array()))
    causes += fmt::format("{}{} {}", causes.empty() ? "" : ", ", cause_label(c.value("cause", "")),
                          format_ms(c.value("ns", 0.0)));
  if (!causes.empty()) out += ": " + causes;
  return out;
}

std::string step_split_title(const nlohmann::json& a) {
  const int64_t steps = a.value("steps", int64_t{0});
  const std::string step = format_ms(a.value("step_ns", 0.0));
  if (const std::string over = a.value("over", ""); !over.empty())
    return fmt::format("Where the time of a step goes ({}, {})", over, step);
  const auto parts = a.find("parts");
  if (parts != a.end() && parts->is_object() && has_json_number(*parts, "turn_ns"))
    return fmt::format("Where the time of an iteration goes (the mean of {} iterations, {}: the window and the turn "
                       "after it)",
                       steps, step);
  return steps > 1 ? fmt::format("Where the time of a step goes (the mean of {} steps, {})", steps, step)
                   : fmt::format("Where the {} step goes", step);
}

std::string explained_text(const nlohmann::json& a) {
  if (!a.is_object() || !a.value("available", false)) return "";
  const double step = a.value("step_ns", 0.0), explained = a.value("explained_ns", 0.0);
  return fmt::format("The findings' savings explain {} of the {} step{}", format_ms(explained), format_ms(step),
                     share(explained, step));
}

std::string replay_text(const nlohmann::json& a) {
  if (!a.is_object() || !a.value("available", false)) return "";
  const auto r = a.find("replay");
  if (r == a.end() || !r->is_object() || r->value("saving_ns", 0.0) <= 0) return "";
  std::string names;
  for (const auto& n : r->value("transforms", nlohmann::json::array()))
    if (n.is_string()) names += (names.empty() ? "" : ", ") + n.get<std::string>();
  return fmt::format("Replayed with the findings' fixes together ({}), the step takes {}", names,
                     format_ms(r->value("step_ns", 0.0)));
}

}  // namespace npu
