// The page for a cluster input given as a run summary (no analysis yet): the per-rank summaries
// as the text view shows them.
#include <string>

#include "reports/html/kit.h"
#include "reports/html/page.h"
#include "reports/run_summary.h"

namespace npu::html {

std::string cluster_members_page(const json& s) {
  std::string body = "<header class=\"top\"><div class=\"wrap\"><h1>npu-advisor report</h1><p class=\"input\">" +
                     esc(str(at(s, "input"), "description")) + "</p></div></header>\n<main class=\"wrap\">\n";
  body +=
      "<section class=\"card\"><h2>Cluster members</h2>\n<p class=\"hint\">Cross-rank analysis is not part of this "
      "report yet; the summary of each member follows.</p>\n<pre class=\"summary-text\">" +
      esc(render_summary_text(s, TextStyle{false})) + "</pre></section>\n</main>\n";
  return html_page("npu-advisor: " + str(at(s, "input"), "description"), body, s);
}

}  // namespace npu::html
