// `npu-advisor analyze PATH` / `analyze --facts DIR`: load -> facts -> rules -> report.
// A cluster (several ranks, or a folder of per-rank facts) goes through facts/cluster first;
// from the facts on, single runs and clusters share the same rules and renderers.
#include <cstdio>

#include "base/text.h"
#include "cli/commands.h"
#include "pipeline/analysis.h"
#include "reports/report_document.h"

namespace npu::cli {

namespace {

int write_report(const nlohmann::json& report, const std::string& fmt, const CommonOptions& common,
                 const OutputOptions& out) {
  if (!out.out_file.empty()) {
    std::string text = fmt == "json"   ? json_text(report) + "\n"
                       : fmt == "md"   ? render_markdown(report)
                       : fmt == "html" ? render_html(report)
                                       : render_terminal(report, {});
    if (!write_output(out.out_file, text)) return kBadInput;
  }
  if (out.out_file.empty() || !common.quiet) {
    if (out.out_file.empty() && fmt != "text") {
      write_output("", fmt == "json"   ? json_text(report) + "\n"
                       : fmt == "html" ? render_html(report)
                                       : render_markdown(report));
    } else {
      TerminalOptions t;
      t.color = stdout_is_color_terminal();
      t.report_path = out.out_file;
      write_output("", render_terminal(report, t));
    }
  }
  return kOk;
}

// A folder that is not a cluster (pipeline/cluster_membership.cpp): each run went through the
// rules and is reported on its own, in one document (schema npu-advisor.run-list).
int analyze_run_list(const std::string& path, pipeline::Analysis& a, const std::string& fmt,
                     const CommonOptions& common, const OutputOptions& out) {
  nlohmann::json list = {
      {"schema", "npu-advisor.run-list"},
      {"schema_version", 1},
      {"input",
       {{"path", path},
        {"kind", "runs"},
        {"description", std::to_string(a.runs.size()) + " separate runs in " + path + " (not a cluster)"}}},
      {"why", a.cluster.not_cluster_why},
      {"warnings", a.cluster.warnings},
      {"runs", nlohmann::json::array()}};
  if (a.runs.size() >= 2)
    list["compare"] =
        "npu-advisor compare " + text::shell_word(a.runs[0].input.path) + " " + text::shell_word(a.runs[1].input.path);
  for (auto& run : a.runs) list["runs"].push_back(std::move(run.report));
  auto render = [&](bool to_terminal) {
    if (fmt == "json") return list.dump(1) + "\n";
    if (fmt == "md") return render_run_list_markdown(list);
    if (fmt == "html") return render_run_list_html(list);
    TerminalOptions t;
    t.color = to_terminal && stdout_is_color_terminal();
    if (to_terminal) t.report_path = out.out_file;
    return render_run_list_text(list, t);
  };
  if (!out.out_file.empty() && !write_output(out.out_file, render(false))) return kBadInput;
  if (out.out_file.empty() || !common.quiet) {
    if (out.out_file.empty()) write_output("", render(fmt == "text"));
    else write_output("", render_run_list_text(list, TerminalOptions{}));
  }
  return a.cluster.member_failed ? kBadInput : kOk;
}

}  // namespace

int cmd_analyze(const std::string& path, const CommonOptions& common, const OutputOptions& out,
                const RuleOptions& rule_opts, const ClusterOptions& cluster) {
  pipeline::AnalysisOptions opt;
  opt.load = load_settings(common);
  opt.rules = rule_opts;
  opt.views = pipeline::Keep::Always;  // a single run's (views/views.h); none for a cluster
  opt.clusters = true;
  opt.cluster = cluster;
  opt.accept_input = [&](const Detection& d, const RunModel* m) { return !output_is_an_input(out.out_file, d, m); };
  pipeline::Analysis a = pipeline::analyze(path, opt);
  if (a.refused) return kBadInput;
  if (!a.rules_error.empty()) {
    std::fprintf(stderr, "error: %s\n", a.rules_error.c_str());
    return kBadInput;
  }
  // The reports show the cluster warnings; with -q, stderr is where a script sees them.
  if (common.quiet)
    for (const auto& w : a.cluster.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (a.is_run_list())
    return analyze_run_list(cluster.facts_dir.empty() ? path : cluster.facts_dir, a, output_format(out), common, out);
  int rc = write_report(a.report, output_format(out), common, out);
  // The process ends after this command: the report is left for the exit to take back whole
  // (freeing a 100 MB run's node by node took 0.3 s, 15% of its analysis).
  (void)new nlohmann::json(std::move(a.report));
  if (rc != kOk) return rc;
  // A rank that failed to load is reported (warning) and the others analysed; the exit code says so.
  return a.cluster.member_failed ? kBadInput : kOk;
}

}  // namespace npu::cli
