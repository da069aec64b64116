// The Top operators section: device operators by type and by kernel name, communication kernels
// and host operators (inclusive time), each a sortable table, and a chart report.js draws.
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/html/sections.h"
#include "reports/report_document.h"

namespace npu::html {

namespace {

std::string operator_table(const json& items, const char* key_field, const char* key_head, bool device) {
  std::vector<std::pair<std::string, bool>> cols = {{"#", true}, {key_head, false}};
  if (device) cols.push_back({"core", false});
  cols.insert(cols.end(), {{"count", true}, {"total (ms)", true}, {"mean", true}, {"max", true}});
  if (device) cols.insert(cols.end(), {{"% of compute", true}, {"% of step", true}});
  Table t("operators", cols);
  size_t i = 0;
  for (const auto& it : items) {
    ++i;
    std::vector<Cell> row = {count_cell(static_cast<double>(i)), tcell(str(it, key_field), "name")};
    if (device) row.push_back(tcell(str(it, "accelerator_core")));
    row.insert(row.end(), {count_cell(num(it, "count")), ms_cell(num(it, "total_ns")), dur_cell(num(it, "mean_ns")),
                           dur_cell(num(it, "max_ns"))});
    if (device) row.insert(row.end(), {pct_cell(num(it, "share_of_compute")), pct_cell(num(it, "share_of_step"))});
    t.row(std::move(row));
  }
  return t.html();
}

}  // namespace

std::string section_operators(const json& r) {
  const json& facts = at(r, "facts");
  const json& ops = at(facts, "operators");
  std::string out = "<section id=\"operators\" class=\"card\">\n<h2>Top operators</h2>\n";
  if (!ops.is_object()) {
    std::string why = why_unavailable(r, "operators");
    out += not_available(why.empty() ? "no operator facts in this report" : why);
    return out + "</section>\n";
  }
  const json& totals = at(ops, "totals");
  std::vector<std::string> bits;
  if (!str(ops, "source").empty()) bits.push_back("from " + str(ops, "source"));
  if (auto v = num(totals, "compute_kernels")) bits.push_back(count_str(*v) + " compute kernels");
  if (auto v = num(totals, "compute_ns")) bits.push_back(format_ms(*v) + " computing");
  if (auto v = num(totals, "communication_kernels")) bits.push_back(count_str(*v) + " communication kernels");
  if (auto v = num(totals, "communication_ns")) bits.push_back(format_ms(*v) + " communicating");
  if (!bits.empty()) {
    std::string line;
    for (const auto& b : bits) line += (line.empty() ? "" : " &middot; ") + esc(b);
    out += "<p class=\"facts-line\">" + line + " (whole run; shares are of compute time and of device time).</p>\n";
  }
  const json& by_type = list(ops, "by_type");
  const json& by_name = list(ops, "by_name");
  if (!by_type.empty() || !by_name.empty())
    out += fmt::format(
        "<div class=\"chart-box short\"><canvas id=\"chart-operators\" data-chart=\"operators\" role=\"img\" "
        "aria-label=\"Top operator {} by device time\"></canvas></div>\n",
        by_type.empty() ? "names" : "types");
  auto block = [&](const char* title, const json& items, const char* key_field, const char* key_head, bool device,
                   bool open, const char* unavailable_fact) {
    std::string b = fmt::format("<details{}><summary>{} ({})</summary>\n", open ? " open" : "", title, items.size());
    if (items.empty()) {
      std::string why = why_unavailable(r, unavailable_fact);
      b += not_available(why.empty() ? "none in this run" : why);
    } else {
      b += operator_table(items, key_field, key_head, device);
    }
    return b + "</details>\n";
  };
  out += block("By operator type", by_type, "type", "type", true, true, "operators.by_type");
  out += block("By kernel name", by_name, "name", "name", true, by_type.empty(), "operators.by_name");
  out += block("Communication", list(ops, "communication"), "name", "name", true, false, "operators.communication");
  const json& host = at(ops, "host");
  if (host.is_object())
    out +=
        block("Host operators (inclusive time)", list(host, "by_name"), "name", "name", false, false, "operators.host");
  return out + "</section>\n";
}

}  // namespace npu::html
