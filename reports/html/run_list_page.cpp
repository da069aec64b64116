// The page for a folder that is not a cluster (schema npu-advisor.run-list): why it is not one,
// then each run's report in turn (summary, steps, dispatch, operators, findings).
#include <string>

#include "reports/html/kit.h"
#include "reports/html/page.h"
#include "reports/html/sections.h"
#include "reports/report_document.h"

namespace npu {

using namespace html;

std::string render_run_list_html(const json& list) {
  const json& runs = at(list, "runs");
  std::string body = "<header class=\"top\"><div class=\"wrap\"><h1>npu-advisor report</h1><p class=\"input\">" +
                     esc(str(at(list, "input"), "description")) + "</p></div></header>\n<main class=\"wrap\">\n";
  body += "<section class=\"card\"><h2>Not a cluster</h2>\n<p>" + esc(str(list, "why")) + "</p>\n";
  for (const auto& w : at(list, "warnings").is_array() ? at(list, "warnings") : json::array())
    body += "<p class=\"hint\">" + esc(w.is_string() ? w.get<std::string>() : w.dump()) + "</p>\n";
  if (!str(list, "compare").empty())
    body += "<p>Compare two of them: <code>" + esc(str(list, "compare")) + "</code></p>\n";
  body += "</section>\n</main>\n";
  size_t i = 0;
  for (const auto& r : runs.is_array() ? runs : json::array()) {
    ++i;
    body += "<main class=\"wrap\"><section class=\"card\"><h2>Run " + std::to_string(i) + " of " +
            std::to_string(runs.size()) + ": " + esc(str(at(r, "input"), "path")) + "</h2></section>\n";
    body += section_summary(r) + section_steps(r) + section_dispatch(r) + section_operators(r) + section_findings(r);
    body += "</main>\n";
  }
  return html_page("npu-advisor: " + str(at(list, "input"), "description"), body, list);
}

}  // namespace npu
