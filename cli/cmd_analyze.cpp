// `npu-advisor analyze PATH` / `analyze --facts DIR`: load -> facts -> rules -> report.
// A cluster (several ranks, or a folder of per-rank facts) goes through facts/cluster first;
// from the facts on, single runs and clusters share the same rules and renderers.
#include <cstdio>

#include "base/text.h"
#include "cli/commands.h"
#include "pipeline/facts_options.h"
#include "pipeline/run_facts.h"
#include "pipeline/run_summary.h"
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

// A folder that is not a cluster (pipeline/cluster_membership.cpp): each run goes through the rules and
// is reported on its own, in one document (schema npu-advisor.run-list).
int analyze_run_list(const std::string& path, ClusterAnalysis& c, const std::string& fmt, const CommonOptions& common,
                     const OutputOptions& out, const RuleOptions& rule_opts) {
  nlohmann::json list = {
      {"schema", "npu-advisor.run-list"},
      {"schema_version", 1},
      {"input",
       {{"path", path},
        {"kind", "runs"},
        {"description", std::to_string(c.runs.size()) + " separate runs in " + path + " (not a cluster)"}}},
      {"why", c.not_cluster_why},
      {"warnings", c.warnings},
      {"runs", nlohmann::json::array()}};
  if (c.runs.size() >= 2)
    list["compare"] =
        "npu-advisor compare " + text::shell_word(c.runs[0].path) + " " + text::shell_word(c.runs[1].path);
  for (auto& run : c.runs) {
    RuleEngine engine;
    std::vector<RuleOutcome> outcomes;
    if (int rc = run_user_rules(engine, run.facts, rule_opts, &outcomes); rc != kOk) return rc;
    list["runs"].push_back(build_report(run.summary, std::move(run.facts), outcomes, std::move(run.views)));
  }
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
  return c.member_failed ? kBadInput : kOk;
}

}  // namespace

int cmd_analyze(const std::string& path, const CommonOptions& common, const OutputOptions& out,
                const RuleOptions& rule_opts, const ClusterOptions& cluster) {
  std::string fmt = output_format(out);
  nlohmann::json summary;
  Facts facts;
  nlohmann::json views;  // a single run's (views/views.h); none for a cluster
  bool member_failed = false;
  std::vector<std::string> cluster_warnings;
  // A cluster runs the single-run rules on every rank (its own causes): check the rule options
  // once here, on an empty document, so a bad --set is one error and not one per rank.
  ClusterOptions copt = cluster;
  copt.rules = rule_opts;
  auto rule_options_ok = [&] {
    RuleEngine engine;
    std::vector<RuleOutcome> none;
    return run_user_rules(engine, Facts{}, rule_opts, &none);
  };
  if (!cluster.facts_dir.empty()) {
    if (int rc = rule_options_ok(); rc != kOk) return rc;
    ClusterAnalysis c = pipeline::reduce_facts_dir(cluster.facts_dir, copt);
    if (common.quiet && c.is_run_list())
      for (const auto& w : c.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (c.is_run_list()) return analyze_run_list(cluster.facts_dir, c, fmt, common, out, rule_opts);
    facts = std::move(c.facts);
    summary = std::move(c.summary);
    member_failed = c.member_failed;
    cluster_warnings = std::move(c.warnings);
  } else {
    Detection d = pipeline::detect(path);
    if (d.cluster) {
      if (int rc = rule_options_ok(); rc != kOk) return rc;
      ClusterAnalysis c = pipeline::analyze_cluster_input(d, load_settings(common), copt);
      if (common.quiet && c.is_run_list())
        for (const auto& w : c.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
      if (c.is_run_list()) return analyze_run_list(path, c, fmt, common, out, rule_opts);
      facts = std::move(c.facts);
      summary = std::move(c.summary);
      member_failed = c.member_failed;
      cluster_warnings = std::move(c.warnings);
    } else {
      if (output_is_an_input(out.out_file, d)) return kBadInput;
      RunModel model = pipeline::load(d, load_settings(common));
      if (output_is_an_input(out.out_file, d, &model)) return kBadInput;
      summary = summarize_run(model, d);
      facts = pipeline::run_facts(model, path, d, &views, pipeline::facts_options(rule_opts));
    }
  }
  // The reports show the cluster warnings; with -q, stderr is where a script sees them.
  if (common.quiet)
    for (const auto& w : cluster_warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  RuleEngine engine;
  std::vector<RuleOutcome> outcomes;
  if (int rc = run_user_rules(engine, facts, rule_opts, &outcomes); rc != kOk) return rc;
  // facts and views not used after
  nlohmann::json report = build_report(summary, std::move(facts), outcomes, std::move(views));
  int rc = write_report(report, fmt, common, out);
  // The process ends after this command: the report is left for the exit to take back whole
  // (freeing a 100 MB run's node by node took 0.3 s, 15% of its analysis).
  (void)new nlohmann::json(std::move(report));
  if (rc != kOk) return rc;
  // A rank that failed to load is reported (warning) and the others analysed; the exit code says so.
  return member_failed ? kBadInput : kOk;
}

}  // namespace npu::cli
