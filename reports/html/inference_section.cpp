// The Serving section (facts.inference, docs/facts-inference.md): a header box per phase
// ("decode, 32 requests: 10.743 ms/iteration, 2.98k tokens/s, 96.9% in graphs"), the steady-state
// window and what it left out, the holes said as work missing from the trace, and the iterations
// as a table whose rows are coloured by phase (warm-up rows left out are greyed). A start-up
// capture says so and lists its graphs. The sentences are reports/inference_text.h's.
#include <string>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/html/sections.h"
#include "reports/inference_text.h"
#include "reports/report_document.h"

namespace npu::html {

namespace {

// At most this many iterations in the table (a long serving trace holds thousands).
constexpr size_t kHtmlIterations = 500;

std::string capture_table(const json& inf) {
  Table t("capture-graphs", {{"graph", false},
                             {"batch size", true},
                             {"mode", false},
                             {"stream captures", true},
                             {"instantiations", true},
                             {"start-up (ms)", true}});
  for (const auto& g : list(at(inf, "capture"), "graphs")) {
    const auto s = num(g, "start_ns"), e = num(g, "end_ns");
    t.row({tcell(str(g, "name"), "name"), count_cell(num(g, "batch_size")), tcell(str(g, "mode")),
           count_cell(num(g, "stream_captures")), count_cell(num(g, "instantiations")),
           ms_cell(s && e ? std::optional<double>(*e - *s) : std::nullopt)});
  }
  return t.empty() ? "" : t.html();
}

std::string iterations_table(const json& inf) {
  const json& its = list(inf, "iterations");
  Table t("iterations", {{"#", true},
                         {"phase", false},
                         {"batch", true},
                         {"tokens", true},
                         {"own window (ms)", true},
                         {"hole (ms)", true},
                         {"busy (ms)", true},
                         {"in graphs", true},
                         {"", false}});
  for (size_t i = 0; i < its.size() && i < kHtmlIterations; ++i) {
    const json& it = its[i];
    const std::string left = left_out_text(inf, i);
    t.row({count_cell(static_cast<double>(i + 1)), tcell(str(it, "phase"), "nowrap"), count_cell(num(it, "requests")),
           count_cell(num(it, "tokens")), ms_cell(num(it, "own_window_ns")), ms_cell(num(it, "hole_ns")),
           ms_cell(num(it, "busy_ns")), pct_cell(num(it, "graph_share")), tcell(left)},
          "phase-" + css_token(str(it, "phase")) + (left.empty() ? "" : " warmup"));
  }
  std::string out = t.html();
  if (its.size() > kHtmlIterations)
    out += fmt::format("<p class=\"hint\">The first {} of {} iterations; all are in the JSON report.</p>\n",
                       kHtmlIterations, its.size());
  return out;
}

}  // namespace

std::string section_inference(const json& report) {
  const json& facts = at(report, "facts");
  const json& inf = at(facts, "inference");
  if (!inf.is_object()) return "";
  std::string out = "<section id=\"serving\" class=\"card\">\n<h2>" + esc(inference_title(inf)) + "</h2>\n";
  if (str(inf, "kind") == "graph_capture")
    return out + "<p class=\"verdict\">" + esc("Graph capture: " + capture_text(inf)) + ".</p>\n" +
           capture_table(inf) + "</section>\n";
  std::string kpis;
  for (const auto& ph : list(inf, "phases")) {
    const std::string head = phase_headline(inf, ph);
    const auto colon = head.find(": ");
    if (head.empty()) continue;
    // The phase and its requests above, the time per iteration as the value, the rest below.
    const std::string label = colon != std::string::npos ? head.substr(0, colon)
                              : str(ph, "phase") == "unknown" ? "each call"
                                                              : str(ph, "phase");
    const std::string rest = colon == std::string::npos ? head : head.substr(colon + 2);
    const auto comma = rest.find(", ");
    kpis += kpi(label, rest.substr(0, comma), comma == std::string::npos ? "" : rest.substr(comma + 2),
                "phase-" + css_token(str(ph, "phase")));
  }
  if (!kpis.empty()) out += "<div class=\"kpis\">" + kpis + "</div>\n";
  std::string notes;
  for (const auto& ph : list(inf, "phases"))
    if (const std::string per = batch_sizes_text(ph); !per.empty())
      notes += "<li>" + esc(str(ph, "phase") + " by batch size (requests: median own window): " + per) + "</li>\n";
  for (const std::string& line : {generate_call_text(inf), steady_state_text(inf)})
    if (!line.empty()) notes += "<li>" + esc(line) + "</li>\n";
  if (const std::string h = hole_text(facts); !h.empty()) notes += "<li class=\"hole\">" + esc(h) + "</li>\n";
  if (const std::string t = turn_text(facts); !t.empty()) notes += "<li>" + esc(t) + "</li>\n";
  if (!notes.empty()) out += "<ul class=\"serving-notes\">\n" + notes + "</ul>\n";
  const size_t n = list(inf, "iterations").size();
  if (n > 0)
    out += fmt::format("<details{}><summary>Iterations ({})</summary>\n", n <= 50 ? " open" : "", n) +
           iterations_table(inf) + "</details>\n";
  return out + "</section>\n";
}

}  // namespace npu::html
