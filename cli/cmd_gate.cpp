// `npu-advisor gate --baseline BASE NEW`: exit 0 within budget, 1 on a regression, 2 on bad
// input (docs/compare-gate.md).
#include <cstdio>

#include "cli/commands.h"
#include "compare/same_work.h"
#include "pipeline/gate_config.h"
#include "reports/gate_render.h"

namespace npu::cli {

int cmd_gate(const std::string& base, const std::string& next, const CommonOptions& common, const RuleOptions& rules,
             const GateOptions& g) {
  // Settle the configuration before loading anything: a typo should not cost a load.
  compare::GateConfig cfg;
  if (!g.config.empty()) pipeline::read_gate_config(g.config, cfg);  // LoadError: exit 2
  try {
    for (const auto& spec : g.max_regression) cfg.set(pipeline::parse_budget(spec, "--max-regression"));
    if (!g.fail_on_finding_saving.empty())
      pipeline::apply_gate_setting("fail_on_finding_saving", g.fail_on_finding_saving, "--fail-on-finding-saving", cfg);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kBadInput;
  }
  if (g.new_findings_only) cfg.new_findings_only = true;
  if (g.keep_warmup) cfg.compare.skip_warmup = false;

  compare::CompareSide b = load_compare_side(base, common, rules);
  compare::CompareSide n = load_compare_side(next, common, rules);
  // A verdict on data the loaders had to cut is not a pass: bad input, unless the user accepts it.
  if (auto partial = compare::partial_input(b, n); partial && !g.allow_partial) {
    std::fprintf(stderr, "error: %s; --allow-partial gates on what was kept\n", partial->c_str());
    return kBadInput;
  }
  if (auto mismatch = compare::platform_mismatch(b, n)) {
    std::fprintf(stderr, "error: %s\n", mismatch->c_str());
    return kBadInput;
  }
  nlohmann::json doc = compare::build_compare(b, n, cfg.compare);
  nlohmann::json gate = compare::evaluate_gate(doc, cfg);
  if (auto error = compare::gate_input_error(gate, doc)) {
    std::fprintf(stderr, "error: %s\n", error->c_str());
    return kBadInput;
  }
  // Accepted partial data: the JUnit, Markdown and JSON outputs say what the loaders skipped,
  // so it stays visible where CI shows the result.
  for (const auto* side : {&b, &n})
    for (const auto& w : compare::load_warnings(*side)) gate["notes"].push_back("input warning: " + w);
  // Runs that did different work are gated all the same, with a warning (verify refuses them).
  if (const std::string diff = compare::describe_differences(doc["same_work"]); !diff.empty()) {
    std::fprintf(stderr, "warning: the runs did different work: %s\n", diff.c_str());
    gate["notes"].push_back("the runs did different work: " + diff);
  }

  bool ok = true;
  if (!g.junit.empty()) ok &= write_output(g.junit, reports::render_gate_junit(gate));
  if (!g.markdown.empty()) ok &= write_output(g.markdown, reports::render_gate_markdown(gate, doc));
  if (!g.json.empty()) ok &= write_output(g.json, json_text(nlohmann::json{{"gate", gate}, {"compare", doc}}) + "\n");
  write_output("", reports::render_gate_text(gate, doc));
  if (!ok) return kBadInput;
  return compare::gate_failed(gate) ? kGated : kOk;
}

}  // namespace npu::cli
