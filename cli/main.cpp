// npu-advisor: argument parsing and dispatch only.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "loaders/load_error.h"

#ifndef NPU_ADVISOR_VERSION
#define NPU_ADVISOR_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  using namespace npu::cli;
  CLI::App app{"npu-advisor: performance advisor for Ascend NPU (and PyTorch GPU/CPU) profiles"};
  app.require_subcommand(1);
  app.set_version_flag("--version", NPU_ADVISOR_VERSION);

  CommonOptions common;
  auto add_common = [&](CLI::App* sub) {
    sub->add_option("--threads", common.threads, "Parser threads (0: up to 2)")->check(CLI::Range(0, 64));
    sub->add_flag("-q,--quiet", common.quiet, "No progress or status lines on stderr");
  };

  std::string inspect_path;
  bool inspect_json = false;
  auto* inspect = app.add_subcommand("inspect", "Show what a profiler output contains: files, ranks, steps, counts, "
                                                "and what is missing");
  inspect->add_option("PATH", inspect_path, "*_ascend_pt folder, its ASCEND_PROFILER_OUTPUT/, a trace file, "
                                            "or a parent folder of several ranks")
      ->required();
  inspect->add_flag("--json", inspect_json, "Print the summary as JSON");
  add_common(inspect);

  std::string analyze_path;
  OutputOptions out;
  auto* analyze = app.add_subcommand("analyze", "Analyze a run and report (text, Markdown or JSON)");
  analyze->add_option("PATH", analyze_path, "*_ascend_pt folder, its ASCEND_PROFILER_OUTPUT/, a trace file, "
                                            "or a parent folder of several ranks")
      ->required();
  analyze->add_option("-o,--output", out.out_file, "Write the report to FILE (format from its extension)");
  analyze->add_option("--format", out.format, "Report format")->check(CLI::IsMember({"text", "json", "md"}));
  add_common(analyze);
  RuleOptions rule_opts;
  auto add_rule_options = [&](CLI::App* sub, bool with_params) {
    sub->add_option("--rules", rule_opts.dirs, "Also load the rules in DIR (repeatable)");
    sub->add_flag("--no-builtin-rules", rule_opts.no_builtin, "Only the rules given with --rules");
    if (with_params) {
      sub->add_option("--set", rule_opts.sets, "Override a rule parameter: RULE_ID.PARAM=VALUE (repeatable)");
      sub->add_option("--config", rule_opts.config, "File of RULE_ID.PARAM = VALUE lines");
    }
  };
  add_rule_options(analyze, true);

  auto* rules = app.add_subcommand("rules", "List, document and test rules");
  rules->require_subcommand(1);
  auto* rules_list = rules->add_subcommand("list", "List the rules: id, category, title, the facts they need");
  add_rule_options(rules_list, false);
  std::string show_id;
  auto* rules_show = rules->add_subcommand("show", "Show a rule's documentation and parameters");
  rules_show->add_option("ID", show_id, "Rule id")->required();
  add_rule_options(rules_show, false);
  std::string test_dir;
  auto* rules_test = rules->add_subcommand("test", "Run the fixtures of every rule in DIR (NAME.fires*.json / NAME.quiet*.json)");
  rules_test->add_option("DIR", test_dir, "Folder of rule files and their fixtures")->required();

  std::string facts_path, facts_out;
  auto* facts = app.add_subcommand("facts", "Compute the facts about a run (the input to rules and reports) "
                                            "and write them as JSON");
  facts->add_option("PATH", facts_path, "A run folder or trace file")->required();
  facts->add_option("-o,--output", facts_out, "Write to FILE instead of stdout");
  add_common(facts);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kBadInput;
  }

  try {
    if (*inspect) return cmd_inspect(inspect_path, common, inspect_json);
    if (*analyze) return cmd_analyze(analyze_path, common, out, rule_opts);
    if (*rules_list) return cmd_rules_list(rule_opts);
    if (*rules_show) return cmd_rules_show(show_id, rule_opts);
    if (*rules_test) return cmd_rules_test(test_dir);
    if (*facts) return cmd_facts(facts_path, common, facts_out);
  } catch (const npu::LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kBadInput;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory\n");
    return kInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return kInternal;
  }
  return kBadInput;
}
