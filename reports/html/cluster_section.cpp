// The Cluster section of a cluster analysis (facts.cluster, docs/facts-cluster.md): the slow-rank
// verdict, the per-rank table, rank x step heat maps, communication groups, the longest
// collectives with the Dixon test, bandwidth per transport and the slowest links.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/html/sections.h"
#include "reports/report_document.h"

namespace npu::html {

namespace {

std::string heat_map(const json& c, const char* metric, const char* title) {
  const json& rows = list(c, "rank_steps");
  std::vector<std::string> steps;
  std::map<std::string, size_t> step_col;
  std::map<int, std::map<size_t, double>> grid;
  double lo = 0, hi = 0;
  bool first = true;
  for (const auto& r : rows) {
    std::string st = at(r, "step").is_null() ? "-" : text(at(r, "step"));
    if (!step_col.count(st)) step_col[st] = steps.size(), steps.push_back(st);
    double v = num(r, metric).value_or(0);
    grid[static_cast<int>(num(r, "rank").value_or(-1))][step_col[st]] = v;
    if (first || v < lo) lo = v;
    if (first || v > hi) hi = v;
    first = false;
  }
  if (steps.size() > 200) steps.resize(200);
  std::string out = fmt::format(
      "<h3>{} (ms) per rank &times; step</h3>\n<p class=\"hint\">White: the lowest "
      "value; red: the highest, when it is 20% of it or more above the lowest.</p>\n"
      "<div class=\"table-wrap\"><table class=\"heatmap\" "
      "data-metric=\"{}\"><thead><tr><th scope=\"col\">rank</th>",
      esc(title), esc(metric));
  for (const auto& st : steps) out += "<th scope=\"col\" class=\"num\">step " + esc(st) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& [rank, cols] : grid) {
    out += fmt::format("<tr><th scope=\"row\">{}</th>", rank);
    for (size_t i = 0; i < steps.size(); ++i) {
      auto it = cols.find(i);
      if (it == cols.end()) out += "<td class=\"num\">&ndash;</td>";
      else out += "<td class=\"num\"" + heat_style(it->second, lo, hi) + ">" + esc(ms3(it->second)) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string three_decimals(double v) { return fmt::format("{:.3f}", v); }

// The per-rank table (a source column when the ranks were read from rank folders).
std::string cluster_ranks_table(const json& c) {
  // Ranks read from rank folders have a path; ranks from cluster_step_trace_time.csv do not.
  bool paths = false;
  for (const auto& rk : list(c, "ranks")) paths = paths || !str(rk, "path").empty();
  std::vector<std::pair<std::string, bool>> cols = {{"rank", true},
                                                    {"steps", true},
                                                    {"computing / step (ms)", true},
                                                    {"comm not overlapped / step (ms)", true},
                                                    {"free / step (ms)", true},
                                                    {"device / step (ms)", true}};
  if (paths) cols.push_back({"source", false});
  Table ranks("cluster-ranks", cols);
  for (const auto& rk : list(c, "ranks")) {
    std::vector<Cell> row = {count_cell(num(rk, "rank")),
                             count_cell(num(rk, "steps")),
                             ms_cell(num(rk, "computing_per_step_ns")),
                             ms_cell(num(rk, "comm_not_overlapped_per_step_ns")),
                             ms_cell(num(rk, "free_per_step_ns")),
                             ms_cell(num(rk, "device_time_per_step_ns"))};
    if (paths) row.push_back(tcell(str(rk, "path")));
    ranks.row(std::move(row));
  }
  return ranks.html();
}

// Communication groups and the longest collectives (per-rank elapse, Dixon test).
std::string cluster_communication(const json& c, const json& comm) {
  std::string out = "<h3>Communication groups</h3>\n";
  Table g("cluster-groups", {{"group", false},
                             {"ranks", false},
                             {"ops", true},
                             {"wait (ms)", true},
                             {"transit (ms)", true},
                             {"sync (ms)", true},
                             {"wait ratio", true},
                             {"most waiting rank", true},
                             {"least waiting rank", true}});
  for (const auto& x : list(comm, "groups"))
    g.row({tcell(group_label(c, str(x, "group"))), tcell(text(at(x, "ranks"))), count_cell(num(x, "ops")),
           ms_cell(num(x, "wait_ns")), ms_cell(num(x, "transit_ns")), ms_cell(num(x, "sync_ns")),
           pct_cell(num(x, "wait_ratio")), count_cell(num(x, "max_wait_rank")), count_cell(num(x, "min_wait_rank"))});
  out += g.html();
  out += "<details><summary>Longest collectives (per-rank elapse, Dixon test)</summary>\n";
  Table o("cluster-ops", {{"step", false},
                          {"operator", false},
                          {"group", false},
                          {"ranks", true},
                          {"elapse max (ms)", true},
                          {"elapse min (ms)", true},
                          {"transit max (ms)", true},
                          {"wait ratio", true},
                          {"fastest rank", true},
                          {"slow rank (Dixon)", false}});
  for (const auto& x : list(comm, "top_ops"))
    o.row({tcell(text(at(x, "step"))), tcell(str(x, "name")), tcell(group_label(c, str(x, "group"))),
           count_cell(num(x, "ranks")), ms_cell(num(x, "elapse_max_ns")), ms_cell(num(x, "elapse_min_ns")),
           ms_cell(num(x, "transit_max_ns")), pct_cell(num(x, "wait_ratio")), count_cell(num(x, "fastest_rank")),
           tcell(text(at(x, "slow_ranks")))});
  return out + o.html() + "</details>\n";
}

// Bandwidth per transport.
std::string cluster_bandwidth(const json& bw) {
  Table b("cluster-bandwidth", {{"transport", false},
                                {"ops", true},
                                {"size (MB)", true},
                                {"time (ms)", true},
                                {"GB/s", true},
                                {"standard GB/s", true},
                                {"utilisation", true},
                                {"large packets", true}});
  for (const auto& x : bw)
    b.row({tcell(str(x, "transport")), count_cell(num(x, "ops")), ncell(num(x, "size_mb"), three_decimals),
           ms_cell(num(x, "time_ns")), ncell(num(x, "gbps"), three_decimals), ncell(num(x, "standard_gbps"), three_decimals),
           pct_cell(num(x, "utilization")), pct_cell(num(x, "large_packet_ratio"))});
  return "<h3>Bandwidth per transport</h3>\n" + b.html();
}

// The 20 slowest links.
std::string cluster_links(const json& links) {
  Table l("cluster-links", {{"src", true},
                            {"dst", true},
                            {"transport", false},
                            {"size (MB)", true},
                            {"time (ms)", true},
                            {"GB/s", true},
                            {"vs transport median", true}});
  size_t n = 0;
  for (const auto& x : list(links, "list")) {
    if (++n > 20) break;
    l.row({count_cell(num(x, "src")), count_cell(num(x, "dst")), tcell(str(x, "transport")),
           ncell(num(x, "size_mb"), three_decimals), ms_cell(num(x, "time_ns")), ncell(num(x, "gbps"), three_decimals),
           ncell(num(x, "ratio_to_median"), three_decimals)});
  }
  return "<h3>Slowest links</h3>\n" + l.html();
}

}  // namespace

std::string section_cluster(const json& r) {
  const json& c = at(at(r, "facts"), "cluster");
  if (!c.is_object()) return "";
  std::string out = "<section id=\"cluster\" class=\"card\">\n<h2>Cluster</h2>\n";
  out += "<p class=\"verdict\"><strong>" + esc(cluster_verdict_line(c)) + "</strong></p>\n";
  for (const auto& w : list(c, "warnings")) out += "<p class=\"warning\">warning: " + esc(text(w)) + "</p>\n";
  out += step_split_html(at(r, "attribution"));
  out += "<p class=\"hint\">" +
         esc(fmt::format("{} ranks; rank x step breakdown from {}.", count_str(num(c, "rank_count").value_or(0)),
                         str(c, "rank_steps_source"))) +
         "</p>\n";
  out += cluster_ranks_table(c);
  if (const json& sampled = at(c, "rank_steps_sampled"); sampled.is_object())
    out += "<p class=\"hint\">" +
           esc(fmt::format("{} of {} steps shown (evenly spaced); totals and verdicts use every step.",
                           count_str(num(sampled, "steps_shown").value_or(0)),
                           count_str(num(sampled, "steps_total").value_or(0)))) +
           "</p>\n";
  out += heat_map(c, "computing_ns", "Computing");
  out += "<details><summary>Free and communication-not-overlapped heat maps</summary>\n";
  out += heat_map(c, "free_ns", "Free");
  out += heat_map(c, "comm_not_overlapped_ns", "Communication not overlapped");
  out += "</details>\n";
  if (const json& comm = at(c, "communication"); comm.is_object()) out += cluster_communication(c, comm);
  if (const json& bw = at(c, "bandwidth"); bw.is_array() && !bw.empty()) out += cluster_bandwidth(bw);
  if (const json& links = at(c, "links"); links.is_object()) out += cluster_links(links);
  return out + "</section>\n";
}

}  // namespace npu::html
