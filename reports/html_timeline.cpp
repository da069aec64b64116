// The step timeline section of the HTML report. The picture itself is drawn in the page by
// reports/templates/timeline.js (a canvas, from facts.timeline of the embedded report); this
// writes the frame: the step selector, the controls, the legend, and a static sentence saying
// what is embedded, so the section still reads (and prints) without JavaScript.
//
// Only numbers and fixed text are written here; every name from the input (operators, files)
// reaches the page through the embedded JSON and is set as text by the script.
#include "reports/html_timeline.h"

#include <fmt/format.h>

namespace npu {
namespace {

using json = nlohmann::json;

std::string step_name(const json& s) {
  const json& id = s.contains("id") ? s["id"] : json();
  return id.is_number_integer() ? fmt::format("step {}", id.get<int64_t>()) : std::string("whole run");
}

// "worst, median": the fixed words timeline.cpp writes; anything else (a hand-edited facts
// file) is left out rather than written into the page.
std::string chosen_as(const json& s) {
  std::string why;
  for (const auto& w : s.value("chosen_as", json::array())) {
    if (!w.is_string()) continue;
    std::string v = w.get<std::string>();
    if (v != "worst" && v != "median" && v != "fastest" && v != "first" && v != "last") continue;
    why += (why.empty() ? "" : ", ") + v;
  }
  return why == "worst, median, fastest, first, last" ? "the only step" : why;
}

std::string ms(const json& v) { return v.is_number() ? fmt::format("{:.3f} ms", v.get<double>() / 1e6) : "?"; }

}  // namespace

std::string html_timeline_section(const json& report) {
  const json& facts = report.contains("facts") ? report["facts"] : json();
  if (!facts.is_object() || !facts.contains("timeline") || !facts["timeline"].is_object()) return "";
  const json& tl = facts["timeline"];
  const json& steps = tl.contains("steps") && tl["steps"].is_array() ? tl["steps"] : json::array();
  std::string out = "<section id=\"timeline\" class=\"card\">\n<h2>Step timeline</h2>\n";
  if (steps.empty()) return out + "<p class=\"na\">no step to draw</p>\n</section>\n";

  // What is embedded, said once in plain text (the script replaces the caption per step).
  std::string embedded;
  for (const auto& s : steps) {
    embedded += (embedded.empty() ? "" : "; ") + step_name(s) + " (" + chosen_as(s) + ", " +
                ms(s.value("step_time_ns", json())) + ")";
  }
  out += "<p class=\"hint\">The host threads, the device streams and the Computing / Communication / Free band of one "
         "step, with a line from each host launch to its device task, coloured by launch lag: a near-vertical red "
         "line is a device that waited on the host. Embedded: " +
         embedded + ". Wheel or +/- to zoom, drag or arrow keys to pan, 0 to reset; hover for details.</p>\n";
  out += "<div class=\"tl-bar\"><label>Step <select class=\"tl-step\" aria-label=\"step to draw\">";
  for (size_t i = 0; i < steps.size(); ++i) {
    out += fmt::format("<option value=\"{}\">{} ({})</option>", i, step_name(steps[i]), chosen_as(steps[i]));
  }
  out += "</select></label>"
         "<button type=\"button\" class=\"tl-zoom-in\" title=\"Zoom in (+)\">+</button>"
         "<button type=\"button\" class=\"tl-zoom-out\" title=\"Zoom out (-)\">&minus;</button>"
         "<button type=\"button\" class=\"tl-reset\" title=\"Whole step (0)\">Whole step</button>"
         "<label><input type=\"checkbox\" class=\"tl-secondary\"> Python-op lines (async_npu)</label>"
         "<label><input type=\"checkbox\" class=\"tl-marks\" checked> Finding marks</label></div>\n";
  out += "<p class=\"tl-caption\"></p>\n";
  // timeline.js puts the <canvas> in the frame (the picture needs the script anyway).
  out += "<div class=\"tl-frame\"><div class=\"tl-card\" hidden></div></div>\n";
  out += "<div class=\"tl-legend\"></div>\n<ul class=\"tl-marklist\"></ul>\n";
  out += "<noscript><p class=\"na\">the timeline is drawn by the page's script; the JSON report (--format json) "
         "holds its data under facts.timeline</p></noscript>\n";
  return out + "</section>\n";
}

}  // namespace npu
