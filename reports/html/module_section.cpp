// The Modules section: where in the model the device time goes (facts.modules, trimmed by the
// report: reports/module_text.cpp). The coverage line, an icicle of the module tree that
// reports/templates/modules.js draws from the embedded document, the top modules as a sortable
// table and the repeated layers.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/html/sections.h"
#include "reports/report_document.h"

namespace npu::html {

namespace {

constexpr size_t kTableRows = 20;  // modules in the table, heaviest first
constexpr size_t kRepeatedShown = 8;

std::string module_table(const json& m) {
  const json& tree = list(m, "tree");
  // Every depth, wrappers included: the table is where to look a module up.
  std::vector<size_t> order;
  for (size_t i = 0; i < tree.size(); ++i)
    if (num(tree[i], "device_ns").value_or(0) > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return num(tree[a], "device_ns").value_or(0) > num(tree[b], "device_ns").value_or(0);
  });
  if (order.size() > kTableRows) order.resize(kTableRows);
  const double step = num(m, "step_device_ns").value_or(0);
  Table t("modules", {{"#", true},
                      {"module", false},
                      {"calls", true},
                      {"device (ms/step)", true},
                      {"self (ms/step)", true},
                      {"backward (ms/step)", true},
                      {"% of step", true},
                      {"host (ms/step)", true}});
  size_t k = 0;
  for (size_t i : order) {
    const json& n = tree[i];
    const auto dev = num(n, "device_ns");
    // The parents muted, the module's own name as it is: long paths stay readable.
    const std::string p = str(n, "path");
    const size_t cut = p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1;
    Cell path = hcell("<span class=\"mod-parents\">" + esc(p.substr(0, cut)) + "</span>" + esc(p.substr(cut)), "name");
    if (str(n, "kind") == "annotation") path.html += " <span class=\"badge\">range</span>";
    t.row({count_cell(static_cast<double>(++k)), path, count_cell(num(n, "calls")), ms_cell(dev),
           ms_cell(num(n, "self_ns")), ms_cell(num(n, "backward_ns")),
           pct_cell(step > 0 && dev ? std::optional<double>(*dev / step) : std::nullopt), ms_cell(num(n, "host_ns"))});
  }
  return t.html();
}

}  // namespace

std::string section_modules(const json& r) {
  const json& m = at(at(r, "facts"), "modules");
  std::string out = "<section id=\"modules\" class=\"card\">\n<h2>Modules</h2>\n";
  if (!m.is_object()) {
    std::string why = why_unavailable(r, "modules");
    return out + "<p class=\"na\">skipped: " + esc(why.empty() ? "no module facts in this report" : why) +
           "</p>\n</section>\n";
  }
  const double steps = num(m, "steps").value_or(0);
  out += fmt::format(
      "<p class=\"hint\">Device time per step{} by module: every nn.Module forward, record_function or mstx range "
      "owns the device work launched inside it, and its forward ops' backward.</p>\n",
      steps > 1 ? fmt::format(" (the mean of {} steps)", count_str(steps)) : "");
  out += "<p class=\"facts-line\">" + esc(module_coverage_text(m)) + ".</p>\n";
  const json& tree = list(m, "tree");
  const double nodes = num(m, "nodes").value_or(0);
  if (nodes > static_cast<double>(tree.size()))
    out +=
        fmt::format("<p class=\"facts-line\">Showing the {} heaviest of {} module paths, with their ancestors.</p>\n",
                    tree.size(), count_str(nodes));
  out +=
      "<div class=\"icicle\" role=\"figure\" aria-label=\"Module tree by device time per step\">"
      "<p class=\"na\">the module chart needs JavaScript; the table below has the numbers</p></div>\n";
  if (tree.empty()) {
    const std::string why = why_unavailable(r, "modules.tree");
    out += not_available(why.empty() ? "no module ranges in the trace" : why);
  } else {
    out += "<h3>Top modules by device time</h3>\n" + module_table(m);
  }
  const json& rep = list(m, "repeated");
  if (!rep.empty()) {
    out += "<h3>Repeated layers</h3>\n<ul class=\"repeated\">\n";
    for (size_t i = 0; i < rep.size() && i < kRepeatedShown; ++i)
      out += "<li>" + esc(repeated_layer_text(rep[i])) + "</li>\n";
    if (rep.size() > kRepeatedShown)
      out += fmt::format("<li class=\"count\">{} more in the JSON report (facts.modules.repeated)</li>\n",
                         rep.size() - kRepeatedShown);
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

}  // namespace npu::html
