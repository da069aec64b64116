// The step timeline section of the HTML report. The picture itself is drawn in the page by
// reports/templates/timeline*.js (a canvas, from views.timeline of the embedded report); this
// writes the frame: the step selector, the controls, the legend, and a static sentence saying
// what is embedded, so the section still reads (and prints) without JavaScript.
//
// Only numbers and fixed text are written here; every name from the input (operators, files)
// reaches the page through the embedded JSON and is set as text by the script.
#include "reports/html_timeline.h"

#include <fmt/format.h>

#include "base/text.h"
#include "reports/compare_render.h"
#include "reports/html/page.h"
#include "reports/markup.h"

namespace npu {
namespace {

using json = nlohmann::json;

std::string step_name(const json& s) {
  const json& id = s.contains("id") ? s["id"] : json();
  return id.is_number_integer() ? fmt::format("step {}", id.get<int64_t>()) : std::string("whole run");
}

// "worst, median": the fixed words views/timeline_steps.cpp writes; anything else (a hand-edited
// report) is left out rather than written into the page.
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

std::string ms(const json& v) { return v.is_number() ? text::ms(v.get<double>()) : "?"; }

// The controls, caption, frame and legend of one timeline; `tl` is a views.timeline object.
std::string timeline_body(const json& tl, const char* where) {
  const json& steps = tl.contains("steps") && tl["steps"].is_array() ? tl["steps"] : json::array();
  if (steps.empty()) return "<p class=\"na\">no step to draw</p>\n";
  // What is embedded, said once in plain text (the script writes the caption per step).
  std::string embedded;
  for (const auto& s : steps)
    embedded += (embedded.empty() ? "" : "; ") + step_name(s) + " (" + chosen_as(s) + ", " +
                ms(s.value("step_time_ns", json())) + ")";
  std::string out = "<p class=\"hint\">Embedded: " + embedded + ".</p>\n";
  out += "<div class=\"tl-bar\"><label>Step <select class=\"tl-step\" aria-label=\"step to draw\">";
  for (size_t i = 0; i < steps.size(); ++i)
    out += fmt::format("<option value=\"{}\">{} ({})</option>", i, step_name(steps[i]), chosen_as(steps[i]));
  out +=
      "</select></label>"
      "<button type=\"button\" class=\"tl-zoom-in\" title=\"Zoom in (+)\">+</button>"
      "<button type=\"button\" class=\"tl-zoom-out\" title=\"Zoom out (-)\">&minus;</button>"
      "<button type=\"button\" class=\"tl-reset\" title=\"Whole step (0)\">Whole step</button>"
      "<label><input type=\"checkbox\" class=\"tl-secondary\"> Python-op lines (async_npu)</label>"
      "<label><input type=\"checkbox\" class=\"tl-marks\" checked> Finding marks</label></div>\n";
  out += "<p class=\"tl-caption\"></p>\n";
  // timeline.js puts the <canvas> in the frame (the picture needs the script anyway).
  out += "<div class=\"tl-frame\"><div class=\"tl-card\" hidden></div></div>\n";
  out += "<div class=\"tl-legend\"></div>\n<ul class=\"tl-marklist\"></ul>\n";
  out += std::string(
             "<noscript><p class=\"na\">the timeline is drawn by the page's script; the embedded JSON holds "
             "its data under ") +
         where + "</p></noscript>\n";
  return out;
}

const char* kHowToRead =
    "<p class=\"hint\">The host threads, the device streams and the Computing / Communication / Free band of one "
    "step, with a line from each host launch to its device task, coloured by launch lag: a near-vertical red line is "
    "a device that waited on the host. Wheel or +/- to zoom, drag or arrow keys to pan, 0 to reset; hover for "
    "details.</p>\n";

}  // namespace

std::string html_timeline_section(const json& report) {
  const json& views = report.contains("views") ? report["views"] : json();
  if (!views.is_object() || !views.contains("timeline") || !views["timeline"].is_object()) return "";
  return std::string(
             "<section id=\"timeline\" class=\"card tl-section\" data-timeline=\"views\">\n<h2>Step "
             "timeline</h2>\n") +
         kHowToRead + timeline_body(views["timeline"], "views.timeline") + "</section>\n";
}

std::string render_compare_html(const json& compare_doc, const json& base_timeline, const json& next_timeline) {
  const json sides[2] = {compare_doc.value("base", json::object()), compare_doc.value("new", json::object())};
  const char* labels[2] = {"base", "new"};
  const json* tls[2] = {&base_timeline, &next_timeline};
  std::string body = "<header class=\"top\"><div class=\"wrap\"><h1>npu-advisor compare</h1>";
  for (int i = 0; i < 2; ++i) {
    const json& d = sides[i].is_object() ? sides[i] : json::object();
    std::string what = d.contains("description") && d["description"].is_string() ? d["description"].get<std::string>()
                       : d.contains("path") && d["path"].is_string()             ? d["path"].get<std::string>()
                                                                                 : std::string();
    body += std::string("<p class=\"input\">") + labels[i] + ": " + markup_escape(what) + "</p>";
  }
  body += "</div></header>\n<main class=\"wrap\">\n";
  body += "<section id=\"compare\" class=\"card\"><h2>What changed</h2>\n<pre class=\"summary-text\">" +
          markup_escape(reports::render_compare_text(compare_doc)) + "</pre></section>\n";
  body += "<section id=\"timeline\" class=\"card\"><h2>The worst steps, on one time scale</h2>\n";
  body += kHowToRead;
  body += "<p class=\"hint\">Both pictures share the time axis (time since each step's start) and zoom together.</p>\n";
  json data = {{"schema", "npu-advisor.compare-page"}, {"compare", compare_doc}, {"timelines", json::array()}};
  for (int i = 0; i < 2; ++i) {
    const json& tl = *tls[i];
    body += fmt::format("<div class=\"tl-section tl-run\" data-timeline=\"run-{}\">\n<h3>{}</h3>\n", i, labels[i]);
    if (tl.is_object()) body += timeline_body(tl, "timelines");
    else
      body +=
          "<p class=\"na\">no timeline for this side: a facts file carries none (the timeline is drawn from the "
          "run itself)</p>\n";
    body += "</div>\n";
    data["timelines"].push_back({{"label", labels[i]}, {"timeline", tl.is_object() ? tl : json(nullptr)}});
  }
  body += "</section>\n</main>\n";
  return html_page("npu-advisor compare", body, data);
}

}  // namespace npu
