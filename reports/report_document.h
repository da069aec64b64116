// The analysis report as one JSON document (schema docs/report.schema.json): the run
// summary, the facts, the ranked findings and, beside the facts, the views (what the HTML report
// draws, docs/views.md). Every renderer (terminal, Markdown, HTML) reads only this document.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/facts.h"
#include "rules/rule_engine.h"

namespace npu {

// 2: the run summary's durations are integer ns (`steps[].dur_ns`, `profiler_step_breakdown[].*_ns`;
// they were µs floats, `*_us`), as everywhere else in the document. docs/reports.md.
constexpr int kReportSchemaVersion = 2;

// views: the run's view document (views/views.h), or null for none (a cluster, a facts file);
// what it could not draw joins the report's `unavailable`.
nlohmann::json build_report(const nlohmann::json& run_summary, const Facts& facts,
                            const std::vector<RuleOutcome>& outcomes, nlohmann::json views = nullptr);
// The same, taking the facts document over (no copy of it).
nlohmann::json build_report(const nlohmann::json& run_summary, Facts&& facts, const std::vector<RuleOutcome>& outcomes,
                            nlohmann::json views = nullptr);

// The per-step class the rules decided (verdicts.dispatch.step_class, rules/verdicts.h):
// {steps[] {id, start_ns, class, why}, overall {class, why}, steps_by_class}; null when the run
// had none to decide. Reports show this, never a class of their own.
const nlohmann::json& step_class_verdict(const nlohmann::json& report);
// "Dispatch: host-bound (why)" for the terminal and Markdown reports; "" without a verdict.
std::string step_class_line(const nlohmann::json& report);

struct TerminalOptions {
  bool color = false;
  std::string report_path;  // where the full report was written, if anywhere
  int max_findings = 5;
};
std::string render_terminal(const nlohmann::json& report, const TerminalOptions& opt);
std::string render_markdown(const nlohmann::json& report);
// One self-contained HTML page (inline CSS/JS, Chart.js compiled in; no network): docs/reports.md.
std::string render_html(const nlohmann::json& report);

// A folder that is not a cluster (schema npu-advisor.run-list: input, why, warnings, compare,
// runs[] = one report per run): each run's report in turn, after a header saying why.
std::string render_run_list_text(const nlohmann::json& list, const TerminalOptions& opt);
std::string render_run_list_markdown(const nlohmann::json& list);
std::string render_run_list_html(const nlohmann::json& list);

// The cluster section (facts.cluster) of the terminal and Markdown reports (cluster_text.cpp).
std::string cluster_verdict_line(const nlohmann::json& cluster);
std::string render_cluster_terminal(const nlohmann::json& cluster);
std::string render_cluster_markdown(const nlohmann::json& cluster);
// A communication group as reports name it: "tp (ranks 0,1)" when cluster.parallel_groups knows
// its name (by the hash of the group id or the id itself), else the group id (group_label.cpp).
std::string group_label(const nlohmann::json& cluster, const std::string& group);
// Sorted rank ids with runs of consecutive ones shortened: [0,1,2,3,8] -> "0-3,8".
std::string rank_ranges(const nlohmann::json& ranks);

// The step split of a report (`attribution`, rules/attribution.h) in words (attribution_text.cpp):
// "computing 1.788 ms (12.9%), idle 12.097 ms (87.1%): compile 5.992 ms, host launch 3.264 ms, ..."
// and "The findings' savings explain 12.030 ms of the 13.885 ms step (86.6%)"; "" when the
// report has no split.
std::string step_split_text(const nlohmann::json& attribution);
// "Where the 13.885 ms step goes", or for several steps "Where the time of a step goes (the mean
// of 5 steps, 9.150 ms)".
std::string step_split_title(const nlohmann::json& attribution);
std::string explained_text(const nlohmann::json& attribution);
// The step replayed with the findings' fixes together (attribution.replay, docs/whatif.md), or "".
std::string replay_text(const nlohmann::json& attribution);

// The module view (facts.modules, docs/facts-modules.md; module_text.cpp). The report keeps the
// tree's kReportModuleNodes heaviest nodes with their ancestors (parents re-indexed,
// nodes_listed says how many) and the 16 heaviest repeated layers with at most 32 members each.
constexpr size_t kReportModuleNodes = 300;
void trim_module_view(nlohmann::json& modules);
// Indices into modules.tree of the n heaviest nodes at depth <= max_depth, a wrapper (a node one
// of whose children holds 99% of its device time) left out for that child, and a stack of 3 or
// more siblings of one class (layer 0..N) given by its heaviest member only.
std::vector<size_t> top_modules(const nlohmann::json& modules, size_t n, int64_t max_depth);
// How many siblings of tree[i] (itself included) share its class.
size_t repeated_siblings(const nlohmann::json& modules, size_t i);
// tree[i]'s name (or `key`: "path"), with "(heaviest of 24 x Sequential)" when it stands for a
// stack of layers.
std::string module_label_text(const nlohmann::json& modules, size_t i, const char* key = "name");
// "modules cover 56.3% of the step's device work (1.475 ms of 2.618 ms per step)", then what is
// joined to no host launch and what runs in graph replays, when anything; "" without modules.
std::string module_coverage_text(const nlohmann::json& modules);
// "24 x Sequential at the top level: median 35.2 µs (MAD 74 ns), 35.0 µs to 36.0 µs per step".
std::string repeated_layer_text(const nlohmann::json& repeated);
// The first n repeated layers, "; " between them, and how many more; "" when there are none.
std::string repeated_layers_line(const nlohmann::json& modules, size_t n);
// A node's device time per step and its share of the step's: "1.688 ms (1.5%)".
std::string module_share_text(const nlohmann::json& modules, const nlohmann::json& node);

// Small formatting helpers shared by the renderers.
std::string format_ms(double ns);
std::string format_percent(double ratio);

}  // namespace npu
