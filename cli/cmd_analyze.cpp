// `npu-advisor analyze PATH`: load -> facts -> rules -> report.
#include <cstdio>

#include "cli/commands.h"
#include "core/diagnostics/diagnostics.h"
#include "reports/report_document.h"
#include "reports/run_summary.h"

namespace npu::cli {

int cmd_analyze(const std::string& path, const CommonOptions& common, const OutputOptions& out,
                const RuleOptions& rule_opts) {
  Detection d = detect_input(path);
  std::string fmt = output_format(out);
  if (d.kind == InputKind::Cluster) {
    // Per-rank summaries until the cluster analysis lands.
    bool member_failed = false;
    nlohmann::json s = load_and_summarize(path, common, &member_failed);
    std::string text = fmt == "json" ? s.dump(2) + "\n"
                       : fmt == "md" ? render_summary_markdown(s)
                       : fmt == "html" ? render_html(s)
                                     : render_summary_text(s, TextStyle{out.out_file.empty() && stdout_is_color_terminal()});
    if (!write_output(out.out_file, text)) return kBadInput;
    return member_failed ? kBadInput : kOk;
  }

  RunModel model = load_run_for_cli(d, common);
  nlohmann::json summary = summarize_run(model, d);
  Facts facts = compute_facts(model);
  RuleEngine engine;
  std::vector<RuleOutcome> outcomes;
  if (int rc = run_rules(engine, facts, rule_opts, &outcomes); rc != kOk) return rc;
  nlohmann::json report = build_report(summary, facts, outcomes);

  if (!out.out_file.empty()) {
    std::string text = fmt == "json"   ? report.dump(1) + "\n"
                       : fmt == "md"   ? render_markdown(report)
                       : fmt == "html" ? render_html(report)
                                       : render_terminal(report, {});
    if (!write_output(out.out_file, text)) return kBadInput;
  }
  if (out.out_file.empty() || !common.quiet) {
    if (out.out_file.empty() && fmt != "text") {
      write_output("", fmt == "json" ? report.dump(1) + "\n" : fmt == "html" ? render_html(report) : render_markdown(report));
    } else {
      TerminalOptions t;
      t.color = stdout_is_color_terminal();
      t.report_path = out.out_file;
      write_output("", render_terminal(report, t));
    }
  }
  return kOk;
}

}  // namespace npu::cli
