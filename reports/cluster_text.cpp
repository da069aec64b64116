// The cluster section of the terminal and Markdown reports (facts.cluster,
// docs/facts-cluster.md). The HTML view draws the same facts in reports/html/cluster_section.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/text.h"
#include "reports/json_read.h"
#include "reports/report_document.h"

namespace npu {
namespace {

using nlohmann::json;

double d(const json& o, const char* k) { return json_number(o, k); }
std::string ms(double ns) { return text::ms_number(ns); }
std::string step_name(const json& s) { return s.is_null() ? "-" : s.dump(); }

const char* metric_label(const std::string& k) {
  if (k == "computing_ns") return "computing";
  if (k == "comm_not_overlapped_ns") return "comm not overlapped";
  return "free";
}

}  // namespace

std::string cluster_verdict_line(const json& c) {
  if (!c.contains("slow_rank")) return "slow rank: not judged (needs 3+ ranks)";
  const json& s = c["slow_rank"];
  int rank = s.value("rank", -1);
  if (rank < 0) {
    int judged = s.value("judged_ops", 0);
    return std::string("no slow rank: no rank's computing + free stands out (median/MAD)") +
           (judged > 0
                ? fmt::format(", and Dixon's test flagged no rank in a clear share of the {} collectives judged",
                              judged)
                : std::string(", and no collective could be judged (Dixon's test needs 4+ ranks with distinct times)"));
  }
  std::string line = fmt::format("slow rank: rank {} ({}): computing {:+.3f} ms/step", rank, s.value("basis", ""),
                                 d(s, "computing_excess_ns") / 1e6);
  if (d(s, "free_excess_ns") > 0) line += fmt::format(", free {:+.3f} ms/step", d(s, "free_excess_ns") / 1e6);
  line += " vs the median rank";
  if (s.value("judged_ops", 0) > 0)
    line += fmt::format("; fastest in {} of {} collectives (Dixon 99.5%)", s.value("votes_for_rank", 0),
                        s.value("judged_ops", 0));
  return line;
}

namespace {

// "steps compared: 9 (warm-up step 1 and 2 partial steps left out)": which steps the spread uses.
std::string alignment_text(const json& c) {
  if (!c.contains("alignment")) return "";
  const json& a = c["alignment"];
  std::vector<std::string> left;
  if (!a["warmup_step"].is_null()) left.push_back("warm-up step " + a["warmup_step"].dump());
  if (a.value("partial_steps", 0) > 0)
    left.push_back(
        fmt::format("{} partial step{}", a.value("partial_steps", 0), a.value("partial_steps", 0) == 1 ? "" : "s"));
  std::string out = fmt::format("steps compared across ranks: {}", a.value("steps_compared", 0));
  if (!left.empty()) out += " (" + fmt::format("{}", fmt::join(left, " and ")) + " left out)";
  return out;
}

// "pipeline: stage 2 (ranks 8-15) Bubble 179.628 ms/step (47% of the step)": the stage with the most bubble.
std::string pipeline_text(const json& c) {
  if (!c.contains("pipeline")) return "";
  // Named, not a temporary of value(): `worst` points into it after the loop.
  const json stages = c["pipeline"].value("stages", json::array());
  const json* worst = nullptr;
  for (const auto& st : stages)
    if (!worst || d(st, "bubble_ratio") > d(*worst, "bubble_ratio")) worst = &st;
  if (!worst) return "";
  const json& rks = (*worst)["ranks"];
  std::string who =
      rks.size() > 2 ? fmt::format("ranks {}-{}", rks.front().dump(), rks.back().dump()) : "ranks " + rks.dump();
  std::string stage = (*worst)["stage"].is_null() ? ""
                                                  : fmt::format("stage {} of {}, ", (*worst)["stage"].get<int>() + 1,
                                                                c["pipeline"]["stage_count"].dump());
  return fmt::format("pipeline: {}{} Bubble {} ms/step median ({:.0f}% of their step)", stage, who,
                     ms(d(*worst, "bubble_per_step_median_ns")), 100 * d(*worst, "bubble_ratio"));
}

}  // namespace

std::string render_cluster_terminal(const json& c) {
  std::string out;
  if (c.value("rank_steps", json::array()).empty()) {
    out += fmt::format("{} ranks, no step breakdown in any rank (no device tasks or step_trace_time.csv)\n",
                       c.value("rank_count", 0));
  } else {
    out +=
        fmt::format("{} ranks, {} step{} ({}); median rank step {} ms\n", c.value("rank_count", 0),
                    c.value("steps", json::array()).size(), c.value("steps", json::array()).size() == 1 ? "" : "s",
                    c.value("rank_steps_source", ""), ms(c.contains("step_time") ? d(c["step_time"], "median_ns") : 0));
  }
  out += "  " + cluster_verdict_line(c) + "\n";
  size_t nw = 0;
  for (const auto& w : c.value("warnings", json::array())) {
    if (nw++ == 3) {
      out += fmt::format("  ... {} more warnings in the full report\n", c["warnings"].size() - 3);
      break;
    }
    out += "  warning: " + w.get<std::string>() + "\n";
  }
  if (c.contains("reference") && c["reference"].contains("agreement")) {
    const json& a = c["reference"]["agreement"];
    out += fmt::format(
        "  vs the profiler's cluster_step_trace_time.csv: {} rank x step rows, largest difference {} ns{}\n",
        a.value("rows_compared", 0), a.value("max_abs_diff_ns", int64_t{0}),
        a["worst"].is_object()
            ? fmt::format(" (rank {}, {})", a["worst"].value("rank", -1), a["worst"].value("metric", ""))
            : "");
  }
  if (c.contains("spread") && !c["spread"].empty()) {
    std::string parts;
    for (const auto& [k, v] : c["spread"].items())
      parts += fmt::format("{}{} {:.1f}% (max rank {})", parts.empty() ? "" : ", ", metric_label(k),
                           100 * d(v, "ratio"), v["max_rank"].dump());
    out += "  spread (max-min)/mean step: " + parts + "\n";
  }
  if (auto a = alignment_text(c); !a.empty()) out += "  " + a + "\n";
  if (auto p = pipeline_text(c); !p.empty()) out += "  " + p + "\n";
  if (c.contains("bandwidth")) {
    std::string parts;
    for (const auto& b : c["bandwidth"]) {
      parts += fmt::format("{}{} {:.2f} GB/s", parts.empty() ? "" : ", ", b.value("transport", ""), d(b, "gbps"));
      if (b.contains("utilization"))
        parts += fmt::format(" ({:.0f}% of {:g})", 100 * d(b, "utilization"), d(b, "standard_gbps"));
    }
    if (!parts.empty()) out += "  bandwidth: " + parts + "\n";
  }
  // The groups by the framework's names (tp, dp, pp, ...), when some input names them.
  if (c.contains("parallel_groups") && c["parallel_groups"].is_array() && !c["parallel_groups"].empty()) {
    std::string parts;
    for (const auto& g : c["parallel_groups"])
      parts += (parts.empty() ? "" : ", ") + group_label(c, g.value("group", ""));
    out += "  groups: " + parts + "\n";
  }
  // The slowest link that carried enough data to mean something (tiny transfers never reach line rate).
  const json* slowest = nullptr;
  if (c.contains("links"))
    for (const auto& l : c["links"]["list"])
      if (d(l, "size_mb") >= 1.0) {
        slowest = &l;
        break;
      }
  if (slowest) {
    const json& l = *slowest;
    out += fmt::format("  slowest link: {}->{} {} {:.2f} GB/s ({:.2f}x the {} median)\n", l.value("src", -1),
                       l.value("dst", -1), l.value("transport", ""), d(l, "gbps"), d(l, "ratio_to_median"),
                       l.value("transport", ""));
  }
  return out;
}

std::string render_cluster_markdown(const json& c) {
  std::string out = "\n## Cluster\n\n";
  out += fmt::format("{} ranks; rank x step breakdown from {}.\n\n", c.value("rank_count", 0),
                     c.value("rank_steps_source", ""));
  out += "**" + cluster_verdict_line(c) + "**\n\n";
  if (auto a = alignment_text(c); !a.empty()) out += a + ".\n\n";
  if (auto p = pipeline_text(c); !p.empty()) out += p + ".\n\n";
  for (const auto& w : c.value("warnings", json::array())) out += "- warning: " + w.get<std::string>() + "\n";
  if (!c.value("warnings", json::array()).empty()) out += "\n";
  out += "| rank | steps | computing/step (ms) | comm not overlapped/step (ms) | free/step (ms) | device/step (ms) |\n";
  out += "|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : c.value("ranks", json::array()))
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", r.value("rank", -1), r.value("steps", 0),
                       ms(d(r, "computing_per_step_ns")), ms(d(r, "comm_not_overlapped_per_step_ns")),
                       ms(d(r, "free_per_step_ns")), ms(d(r, "device_time_per_step_ns")));
  const json& rows = c.value("rank_steps", json::array());
  if (!rows.empty()) {
    std::string sampled;
    if (c.contains("rank_steps_sampled"))
      sampled = fmt::format(" ({} of {} steps, evenly spaced)", c["rank_steps_sampled"].value("steps_shown", 0),
                            c["rank_steps_sampled"].value("steps_total", 0));
    out += "\n<details><summary>Rank x step" + sampled +
           "</summary>\n\n| step | rank | computing (ms) | comm not overlapped (ms) | free (ms) |\n"
           "|---:|---:|---:|---:|---:|\n";
    size_t n = 0;
    for (const auto& r : rows) {
      if (++n > 400) break;
      out += fmt::format("| {} | {} | {} | {} | {} |\n", step_name(r["step"]), r.value("rank", -1),
                         ms(d(r, "computing_ns")), ms(d(r, "comm_not_overlapped_ns")), ms(d(r, "free_ns")));
    }
    out += "\n</details>\n";
  }
  if (c.contains("spread") && !c["spread"].empty()) {
    out += "\n| metric | max (ms) | rank | min (ms) | rank | (max-min)/mean step |\n|:--|---:|---:|---:|---:|---:|\n";
    for (const auto& [k, v] : c["spread"].items())
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", metric_label(k), ms(d(v, "max_ns")), v["max_rank"].dump(),
                         ms(d(v, "min_ns")), v["min_rank"].dump(), format_percent(d(v, "ratio")));
  }
  if (c.contains("communication")) {
    out +=
        "\n### Communication groups\n\n| group | ranks | ops | wait (ms) | transit (ms) | sync (ms) | wait ratio | "
        "most waiting rank | least waiting rank |\n"
        "|:--|:--|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& g : c["communication"].value("groups", json::array()))
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", group_label(c, g.value("group", "")),
                         g["ranks"].dump(), g.value("ops", 0), ms(d(g, "wait_ns")), ms(d(g, "transit_ns")),
                         ms(d(g, "sync_ns")), format_percent(d(g, "wait_ratio")), g.value("max_wait_rank", -1),
                         g.value("min_wait_rank", -1));
  }
  if (c.contains("bandwidth")) {
    out +=
        "\n### Bandwidth per transport\n\n| transport | ops | size (MB) | time (ms) | GB/s | standard | utilisation | "
        "large packets |\n"
        "|:--|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& b : c["bandwidth"])
      out += fmt::format("| {} | {} | {:.3f} | {} | {:.3f} | {} | {} | {} |\n", b.value("transport", ""),
                         b.value("ops", 0), d(b, "size_mb"), ms(d(b, "time_ns")), d(b, "gbps"),
                         b.contains("standard_gbps") ? fmt::format("{:g}", d(b, "standard_gbps")) : "-",
                         b.contains("utilization") ? format_percent(d(b, "utilization")) : "-",
                         format_percent(d(b, "large_packet_ratio")));
  }
  if (c.contains("links")) {
    out +=
        "\n### Slowest links\n\n| src | dst | transport | size (MB) | time (ms) | GB/s | vs median "
        "|\n|---:|---:|:--|---:|---:|---:|---:|\n";
    size_t n = 0;
    for (const auto& l : c["links"]["list"]) {
      if (++n > 10) break;
      out += fmt::format("| {} | {} | {} | {:.3f} | {} | {:.3f} | {:.2f}x |\n", l.value("src", -1), l.value("dst", -1),
                         l.value("transport", ""), d(l, "size_mb"), ms(d(l, "time_ns")), d(l, "gbps"),
                         d(l, "ratio_to_median"));
    }
  }
  return out;
}

// ---- a folder that is not a cluster: a list of runs --------------------------------------

namespace {

std::string run_list_header(const json& list, const char* bullet) {
  std::string out = list["input"].value("path", "") + ": not a cluster. " + list.value("why", "") + ".\n";
  for (const auto& w : list.value("warnings", json::array())) out += std::string(bullet) + w.get<std::string>() + "\n";
  if (!list.value("compare", "").empty()) out += "Compare two of them: " + list.value("compare", "") + "\n";
  return out;
}

}  // namespace

std::string render_run_list_text(const json& list, const TerminalOptions& opt) {
  std::string out = run_list_header(list, "  note: ");
  const auto& runs = list["runs"];
  for (size_t i = 0; i < runs.size(); ++i) {
    out += fmt::format("\n===== run {} of {}: {} =====\n", i + 1, runs.size(), runs[i]["input"].value("path", ""));
    out += render_terminal(runs[i], opt);
  }
  return out;
}

std::string render_run_list_markdown(const json& list) {
  std::string out = "# npu-advisor: " + list["input"].value("path", "") + "\n\n" + run_list_header(list, "- ") + "\n";
  const auto& runs = list["runs"];
  for (size_t i = 0; i < runs.size(); ++i) {
    out += fmt::format("\n---\n\n## Run {} of {}: {}\n\n", i + 1, runs.size(),
                       text::md_code(runs[i]["input"].value("path", "")));
    out += render_markdown(runs[i]);
  }
  return out;
}

}  // namespace npu
