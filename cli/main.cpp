// npu-advisor: argument parsing and dispatch only.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/load_error.h"
#include "cli/commands.h"
#include "cli/output_guard.h"
#include "facts/whatif/transforms.h"

#ifndef NPU_ADVISOR_VERSION
#define NPU_ADVISOR_VERSION "0.0.0"
#endif

namespace {

using namespace npu::cli;

// An empty value ("-o ''", a path variable that was never set) would otherwise surface later as
// "error: : no such file or folder": refuse it here, naming the option.
void reject_empty_values(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* o : sub->get_options())
      for (const std::string& v : o->results())
        if (v.empty()) {
          const std::string name = o->get_name().empty() ? "an argument" : o->get_name();
          throw CLI::ValidationError(name, "an empty value was given; name a file or folder");
        }
    reject_empty_values(*sub);
  }
}

// `analyze OUT -- CMD ARGS...` and `capture -o OUT -- CMD ARGS...`: the command after `--` is
// taken out before CLI11 parses, so none of its arguments is read as one of ours.
struct ChildCommand {
  std::vector<std::string> command;
  bool has_command = false;
  int parse_argc = 0;  // the arguments CLI11 parses: those before the `--`
};

ChildCommand take_child_command(int argc, char** argv) {
  ChildCommand c;
  c.parse_argc = argc;
  int sub = 1;
  while (sub < argc && argv[sub][0] == '-') ++sub;
  std::string_view name = sub < argc ? argv[sub] : "";
  if (name == "analyze" || name == "capture" || name == "verify")
    for (int i = sub + 1; i < argc; ++i)
      if (std::string_view(argv[i]) == "--") {
        c.command.assign(argv + i + 1, argv + argc);
        c.has_command = true;
        c.parse_argc = i;
        break;
      }
  return c;
}

// The subcommands and the variables their options fill. Options shared by several subcommands
// (common, rule and collector options) fill one variable each, whichever subcommand was given.
// The subcommands are added in the order `--help` lists them, each one's options in the order its
// `--help` does: moving a line changes the help text.
struct Cli {
  Cli();
  Cli(const Cli&) = delete;  // the subcommands point into `app` and the options into the members
  Cli& operator=(const Cli&) = delete;

  CLI::App app{"npu-advisor: performance advisor for Ascend NPU (and PyTorch GPU/CPU) profiles"};
  CommonOptions common;
  RuleOptions rule_opts;
  npu::collector::CaptureOptions cap;
  std::vector<CLI::Option*> collector_options;  // refused on `analyze` without a command to run

  CLI::App* inspect = nullptr;
  std::string inspect_path;
  bool inspect_json = false;

  CLI::App* analyze = nullptr;
  std::string analyze_path;
  OutputOptions out;
  ClusterOptions cluster_opts;

  CLI::App* capture = nullptr;

  CLI::App *rules_list = nullptr, *rules_show = nullptr, *rules_doc = nullptr, *rules_test = nullptr;
  std::string show_id, test_dir;

  CLI::App* facts = nullptr;
  std::string facts_path, facts_out;

  CLI::App* whatif = nullptr;
  std::string whatif_path;
  std::vector<std::string> whatif_apply;
  OutputOptions whatif_out;

  CLI::App* compare = nullptr;
  std::string cmp_base, cmp_new;
  bool cmp_keep_warmup = false;
  OutputOptions cmp_out;

  CLI::App* gate = nullptr;
  std::string gate_base, gate_new;
  GateOptions gate_opts;

  CLI::App* mcp = nullptr;
  std::vector<std::string> mcp_allow;

  CLI::App* verify = nullptr;
  VerifyOptions verify_opts;

 private:
  void add_common(CLI::App* sub);
  void add_rule_options(CLI::App* sub, bool with_params);
  void add_collector_options(CLI::App* sub);
  void add_inspect();
  void add_analyze();
  void add_capture();
  void add_rules();
  void add_facts();
  void add_whatif();
  void add_compare();
  void add_gate();
  void add_mcp();
  void add_verify();
};

Cli::Cli() {
  app.require_subcommand(1);
  app.set_version_flag("--version", NPU_ADVISOR_VERSION);
  add_inspect();
  add_analyze();
  add_capture();
  add_rules();
  add_facts();
  add_whatif();
  add_compare();
  add_gate();
  add_verify();
  add_mcp();
}

void Cli::add_common(CLI::App* sub) {
  sub->add_option("--threads", common.threads, "Parser threads (0: up to 2)")->check(CLI::Range(0, 64));
  sub->add_flag("-q,--quiet", common.quiet, "No progress or status lines on stderr");
}

void Cli::add_rule_options(CLI::App* sub, bool with_params) {
  sub->add_option("--rules", rule_opts.dirs, "Also load the rules in DIR (repeatable)");
  sub->add_flag("--no-builtin-rules", rule_opts.no_builtin, "Only the rules given with --rules");
  if (with_params) {
    sub->add_option("--set", rule_opts.sets, "Override a rule parameter: RULE_ID.PARAM=VALUE (repeatable)");
    sub->add_option("--config", rule_opts.config, "File of RULE_ID.PARAM = VALUE lines");
    sub->add_option("--peaks", rule_opts.peaks, "Device peaks table (JSON) replacing the built-in one (docs/facts-roofline.md)");
  }
}

// Options of the embedded collector (docs/collector.md), for capture and analyze -- CMD.
void Cli::add_collector_options(CLI::App* sub) {
  auto add = [&](CLI::Option* o) { collector_options.push_back(o->group("Capture (with -- CMD)")); };
  add(sub->add_option("--profiler", cap.profiler, "auto (default), torch_npu, msprof or torch")
          ->check(CLI::IsMember({"auto", "torch_npu", "msprof", "torch"})));
  add(sub->add_option("--steps", cap.active, "Training steps to record (default 3)")->check(CLI::Range(1, 1000000)));
  add(sub->add_option("--warmup", cap.warmup, "Steps profiled but not recorded before them (default 1)")
          ->check(CLI::Range(0, 1000000)));
  add(sub->add_option("--wait", cap.wait,
                      "Steps skipped before the warm-up, after the first step, which is "
                      "never captured (default 1)")
          ->check(CLI::Range(0, 1000000)));
  add(sub->add_flag("--record-shapes", cap.record_shapes, "Record operator input shapes"));
  add(sub->add_flag("--with-stack", cap.with_stack, "Record Python stacks"));
  add(sub->add_flag("--profile-memory", cap.profile_memory, "Record memory allocations"));
  add(sub->add_option("--level", cap.level, "torch_npu profiler level: Level_none, Level0, Level1, Level2"));
  add(sub->add_option("--aic-metrics", cap.aic_metrics,
                      "torch_npu AI Core metrics: PipeUtilization, ArithmeticUtilization, Memory, MemoryL0, "
                      "MemoryUB, ResourceConflictRatio, L2Cache, MemoryAccess, AiCoreNone"));
  add(sub->add_option("--timeout", cap.timeout_s,
                      "Stop the command after SECONDS (SIGINT, then SIGTERM and "
                      "SIGKILL after --kill-grace each) and analyze what it captured")
          ->check(CLI::NonNegativeNumber));
  add(sub->add_option("--kill-grace", cap.grace_s, "Seconds between SIGINT, SIGTERM and SIGKILL (default 30)")
          ->check(CLI::NonNegativeNumber));
}

void Cli::add_inspect() {
  inspect = app.add_subcommand("inspect",
                               "Show what a profiler output contains: files, ranks, steps, counts, "
                               "and what is missing");
  inspect
      ->add_option("PATH", inspect_path,
                   "*_ascend_pt folder, its ASCEND_PROFILER_OUTPUT/, a trace file, "
                   "or a parent folder of several ranks")
      ->required();
  inspect->add_flag("--json", inspect_json, "Print the summary as JSON");
  add_common(inspect);
}

void Cli::add_analyze() {
  analyze = app.add_subcommand("analyze", "Analyze a run and report (text, Markdown, JSON or HTML)");
  analyze->add_option("PATH", analyze_path,
                      "*_ascend_pt folder, its ASCEND_PROFILER_OUTPUT/, a trace file, "
                      "or a parent folder of several ranks; with -- CMD: the (new or "
                      "empty) folder to capture into");
  analyze->add_option("--facts", cluster_opts.facts_dir,
                      "Cluster from a folder of per-rank *.facts.json (the reduce step; see README)");
  analyze->add_option("--workers", cluster_opts.workers, "Cluster: ranks loaded at once (default 2)")
      ->check(CLI::Range(1, 256));
  analyze->add_option("-o,--output", out.out_file, "Write the report to FILE (format from its extension)");
  analyze->add_option("--format", out.format, "Report format")->check(CLI::IsMember({"text", "json", "md", "html"}));
  add_common(analyze);
  add_rule_options(analyze, true);
  add_collector_options(analyze);
  analyze->footer(
      "\nWith a command after --, runs it under the profiler that is present and analyzes what it wrote:\n"
      "  npu-advisor analyze OUT -- python train.py --epochs 1\n"
      "OUT must be a new or empty folder. The command keeps its stdout, stderr and exit code; see `capture --help`\n"
      "and docs/collector.md.");
}

void Cli::add_capture() {
  capture = app.add_subcommand("capture", "Run a command under a profiler and keep its output (no analysis)");
  capture->add_option("-o,--output", cap.out_dir, "Folder for the profiler output (new or empty)")->required();
  add_collector_options(capture);
  capture->add_flag("-q,--quiet", cap.quiet, "No status lines of our own on stderr");
  capture->footer(
      "\nUsage: npu-advisor capture -o OUT [options] -- CMD ARGS...\n"
      "Python commands (python ..., a .py script, torchrun and other Python programs) are profiled with\n"
      "torch_npu.profiler when torch_npu can be imported, else torch.profiler, injected without editing the\n"
      "script: the recorded steps end at optimizer.step() (or npu_advisor_capture.step(); docs/collector.md).\n"
      "Other commands run under msprof. Exit code: the command's own, 2 when nothing was captured.\n"
      "Ctrl-C stops the command; what was recorded is still written.");
}

void Cli::add_rules() {
  auto* rules = app.add_subcommand("rules", "List, document and test rules");
  rules->require_subcommand(1);
  rules_list = rules->add_subcommand("list", "List the rules: id, category, title, the facts they need");
  add_rule_options(rules_list, false);
  rules_show = rules->add_subcommand("show", "Show a rule's documentation and parameters");
  rules_show->add_option("ID", show_id, "Rule id")->required();
  add_rule_options(rules_show, false);
  rules_doc = rules->add_subcommand(
      "doc", "The parameters of every verdict and rule as Markdown tables (docs/rules.md is generated from it)");
  add_rule_options(rules_doc, false);
  rules_test = rules->add_subcommand("test", "Run the test file of every rule in DIR (NAME.test.json beside NAME.lua)");
  rules_test->add_option("DIR", test_dir, "Folder of rule files and their test files")->required();
}

void Cli::add_facts() {
  facts = app.add_subcommand("facts",
                             "Compute the facts about a run (the input to rules and reports) "
                             "and write them as JSON");
  facts->add_option("PATH", facts_path, "A run folder or trace file")->required();
  facts->add_option("-o,--output", facts_out, "Write to FILE instead of stdout");
  add_common(facts);
}

void Cli::add_whatif() {
  whatif = app.add_subcommand("whatif",
                              "Replay a run's steps with fixes applied and print what each saves "
                              "(dataloader, graphs, syncs, pinned, tf32, bf16, gc, compile, task_queue, cpu_binding)");
  whatif->add_option("PATH", whatif_path, "A run folder or trace file")->required();
  // Names are checked before the run is loaded, whether or not its replay turns out available.
  whatif->add_option("--apply", whatif_apply, "Transformations to apply together, e.g. dataloader,graphs")
      ->delimiter(',')
      ->check(CLI::IsMember(npu::whatif::transform_names()));
  whatif->add_option("-o,--output", whatif_out.out_file, "Write to FILE (JSON when it ends in .json)");
  whatif->add_option("--format", whatif_out.format, "Output format")->check(CLI::IsMember({"text", "json"}));
  add_common(whatif);
}

void Cli::add_compare() {
  compare = app.add_subcommand("compare", "Compare two runs (or facts files): what got slower, and why");
  compare->add_option("BASE", cmp_base, "The baseline: a run folder, trace file or facts file")->required();
  compare->add_option("NEW", cmp_new, "The run to judge: a run folder, trace file or facts file")->required();
  compare->add_option("-o,--output", cmp_out.out_file, "Write the comparison to FILE (format from its extension)");
  compare->add_option("--format", cmp_out.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "md", "html"}));
  compare->add_flag("--keep-warmup", cmp_keep_warmup, "Keep the first step (dropped by default with 4+ steps)");
  add_common(compare);
  add_rule_options(compare, false);
}

void Cli::add_gate() {
  gate = app.add_subcommand("gate", "Fail (exit 1) when NEW regresses past the budgets against the baseline");
  gate->add_option("--baseline", gate_base, "The baseline: a run folder, trace file or facts file")->required();
  gate->add_option("NEW", gate_new, "The run to judge")->required();
  gate->add_option("--config", gate_opts.config, "Gate config: .yaml/.yml, or key = value lines (.conf, .toml)");
  gate->add_option("--max-regression", gate_opts.max_regression,
                   "Budget METRIC=VALUE, e.g. step_time=5%, free_ratio=0.03, comm_not_overlapped=2ms, "
                   "op_type:MatMulV3=10%, memory_peak=100MB, decode_token=5% (inference runs) (repeatable; overrides the "
                   "config)");
  gate->add_option("--fail-on-finding-saving", gate_opts.fail_on_finding_saving,
                   "Fail when a finding of NEW saves more than this share of a step (e.g. 10%)");
  gate->add_flag("--new-findings-only", gate_opts.new_findings_only,
                 "With --fail-on-finding-saving: only findings that are new or grew since the baseline");
  gate->add_flag("--keep-warmup", gate_opts.keep_warmup, "Keep the first step (dropped by default with 4+ steps)");
  gate->add_flag("--allow-partial", gate_opts.allow_partial,
                 "Gate even when the loaders rejected records of a side (by default that is bad input, exit 2)");
  gate->add_option("--junit", gate_opts.junit, "Write a JUnit XML report (one testcase per budget)");
  gate->add_option("--markdown", gate_opts.markdown, "Write a Markdown job summary");
  gate->add_option("--json", gate_opts.json, "Write the verdict and the comparison as JSON");
  add_common(gate);
  add_rule_options(gate, false);
}

void Cli::add_verify() {
  verify = app.add_subcommand("verify", "Check the findings' predicted savings: run the fixes (or read a run with "
                                        "them) and measure each against noise (docs/verify.md)");
  auto& v = verify_opts;
  verify->add_option("BASE", v.base, "The baseline run (BASE NEW mode)");
  verify->add_option("NEW", v.next, "The run with the fix applied");
  verify->add_option("-o,--output", v.out_dir, "Command mode: a new folder for every capture and verify.json");
  verify->add_option("--env", v.env, "A fix: set NAME=VALUE for the run (repeatable)");
  verify->add_option("--fixes", v.fixes, "auto: every finding whose command sets an environment variable")
      ->check(CLI::IsMember({"auto"}));
  verify->add_option("--after", v.after, "A fix: the changed command line to run instead (repeatable)");
  verify->add_option("--fix", v.fix_rule, "The finding (rule id) the --after command or NEW fixes (default: the top one)");
  verify->add_option("--whatif", v.whatif,
                     "The replay's transformation the --after command or NEW applies (e.g. tf32, where the finding's "
                     "saving is its bf16 alternative's): judged against that replay's saving");
  verify->add_option("--require", v.require, "Exit 1 unless every fix's verdict is one of these (repeatable)")
      ->check(CLI::IsMember({"confirmed", "confirmed, prediction off", "no effect", "slower", "inconclusive"}));
  verify->add_option("--format", v.format, "Output on stdout")->check(CLI::IsMember({"text", "json", "html"}));
  verify->add_flag("--allow-different-work", v.allow_different_work, "BASE NEW: judge runs that did different work");
  verify->add_flag("--keep-warmup", v.keep_warmup, "Keep the first step (dropped by default with 4+ steps)");
  verify->add_option("--runs", v.runs,
                     "Command mode: capture the baseline and each fix N times and pool their steps (jobs noisier "
                     "from run to run than from step to step)")
      ->check(CLI::Range(1, 20));
  add_common(verify);
  add_rule_options(verify, false);
  add_collector_options(verify);
  verify->footer("\nUsage: npu-advisor verify BASE NEW [--fix RULE]\n"
                 "       npu-advisor verify -o DIR [--env K=V]... [--fixes auto] [--after 'CMD2'] [options] -- CMD ARGS...\n"
                 "Exit codes: 0 verdicts given, 1 --require not met, 2 bad input or different work, 4 a run failed.");
}

void Cli::add_mcp() {
  mcp = app.add_subcommand("mcp",
                           "Serve the Model Context Protocol on stdin/stdout: analyze, facts, explain_finding, "
                           "compare, whatif and list_rules as tools for an AI assistant (docs/mcp.md)");
  mcp->add_option("--allow", mcp_allow, "A folder the tools may read (repeatable; at least one)")
      ->required()
      ->check(CLI::ExistingDirectory);
}

// CLI11's parse plus the checks it cannot express; on an error (or --help, --version) CLI11 has
// printed what to print and the exit code is returned.
std::optional<int> parse(Cli& cli, const ChildCommand& child, char** argv) {
  try {
    cli.app.parse(child.parse_argc, argv);
    if (*cli.capture && !child.has_command)
      throw CLI::ValidationError("capture",
                                 "give the command after --, e.g. "
                                 "capture -o OUT -- python train.py");
    if (child.has_command && child.command.empty()) throw CLI::ValidationError("--", "no command after --");
    reject_empty_values(cli.app);
    if (*cli.analyze && !child.has_command)
      for (const auto* o : cli.collector_options)
        if (o->count() > 0)
          throw CLI::ValidationError(o->get_name(), "only with a command to run: analyze OUT [options] -- CMD");
  } catch (const CLI::ParseError& e) {
    int rc = cli.app.exit(e);
    return rc == 0 ? kOk : kBadInput;
  }
  return std::nullopt;
}

// One output guard for every command and output flag, before anything is loaded.
bool outputs_are_safe(const Cli& cli) {
  std::vector<std::string> rule_inputs = cli.rule_opts.dirs;
  if (!cli.rule_opts.config.empty()) rule_inputs.push_back(cli.rule_opts.config);
  auto with_rules = [&](std::vector<std::string> in) {
    in.insert(in.end(), rule_inputs.begin(), rule_inputs.end());
    return in;
  };
  bool outputs_ok = true;
  if (*cli.analyze)
    outputs_ok = outputs_leave_inputs_alone({{"-o", cli.out.out_file}},
                                            with_rules({cli.analyze_path, cli.cluster_opts.facts_dir}),
                                            cli.cluster_opts.facts_dir);
  if (*cli.facts) outputs_ok = outputs_leave_inputs_alone({{"-o", cli.facts_out}}, {cli.facts_path});
  if (*cli.whatif) outputs_ok = outputs_leave_inputs_alone({{"-o", cli.whatif_out.out_file}}, {cli.whatif_path});
  if (*cli.compare)
    outputs_ok = outputs_leave_inputs_alone({{"-o", cli.cmp_out.out_file}}, with_rules({cli.cmp_base, cli.cmp_new}));
  if (*cli.gate)
    outputs_ok = outputs_leave_inputs_alone(
        {{"--junit", cli.gate_opts.junit}, {"--markdown", cli.gate_opts.markdown}, {"--json", cli.gate_opts.json}},
        with_rules({cli.gate_base, cli.gate_new, cli.gate_opts.config}));
  return outputs_ok;
}

// The command that was given, with its options.
int dispatch(Cli& cli, const ChildCommand& child) {
  if (*cli.inspect) return cmd_inspect(cli.inspect_path, cli.common, cli.inspect_json);
  if (*cli.capture) {
    cli.cap.command = child.command;
    return cmd_capture(cli.cap);
  }
  if (*cli.analyze && child.has_command) {
    if (cli.analyze_path.empty() || !cli.cluster_opts.facts_dir.empty()) {
      std::fprintf(stderr, "error: analyze OUT -- CMD needs the OUT folder to capture into (and no --facts)\n");
      return kBadInput;
    }
    cli.cap.command = child.command;
    cli.cap.out_dir = cli.analyze_path;
    cli.cap.quiet = cli.common.quiet;
    return cmd_analyze_command(cli.cap, cli.common, cli.out, cli.rule_opts);
  }
  if (*cli.analyze) {
    if (cli.analyze_path.empty() == cli.cluster_opts.facts_dir.empty()) {
      std::fprintf(stderr, "error: analyze needs PATH or --facts DIR (one of them)\n");
      return kBadInput;
    }
    return cmd_analyze(cli.analyze_path, cli.common, cli.out, cli.rule_opts, cli.cluster_opts);
  }
  if (*cli.rules_list) return cmd_rules_list(cli.rule_opts);
  if (*cli.rules_show) return cmd_rules_show(cli.show_id, cli.rule_opts);
  if (*cli.rules_doc) return cmd_rules_doc(cli.rule_opts);
  if (*cli.rules_test) return cmd_rules_test(cli.test_dir);
  if (*cli.facts) return cmd_facts(cli.facts_path, cli.common, cli.facts_out);
  if (*cli.whatif) return cmd_whatif(cli.whatif_path, cli.whatif_apply, cli.common, cli.whatif_out);
  if (*cli.compare)
    return cmd_compare(cli.cmp_base, cli.cmp_new, cli.common, cli.cmp_out, cli.rule_opts, cli.cmp_keep_warmup);
  if (*cli.gate) return cmd_gate(cli.gate_base, cli.gate_new, cli.common, cli.rule_opts, cli.gate_opts);
  if (*cli.mcp) return cmd_mcp(cli.mcp_allow);
  if (*cli.verify) {
    cli.cap.command = child.command;
    if (cli.verify->get_option("--steps")->count() == 0) cli.cap.active = 8;  // enough steps for a noise test
    return cmd_verify(cli.verify_opts, cli.cap, cli.common, cli.rule_opts);
  }
  return kBadInput;
}

// What escapes a command becomes one line on stderr and its exit code: bad input (2) for what
// the user can fix, internal (3) for the rest.
int dispatch_reporting_errors(Cli& cli, const ChildCommand& child) {
  try {
    return dispatch(cli, child);
  } catch (const npu::LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kBadInput;
  } catch (const std::filesystem::filesystem_error& e) {
    // A symbolic link loop, a folder that vanished: bad input, one line, naming the path (or,
    // where the library gives none, what was being done).
    if (e.path1().empty()) std::fprintf(stderr, "error: %s\n", e.what());
    else std::fprintf(stderr, "error: %s: %s\n", e.path1().c_str(), e.code().message().c_str());
    return kBadInput;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory\n");
    return kInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return kInternal;
  }
}

int run_cli(int argc, char** argv) {
  const ChildCommand child = take_child_command(argc, argv);
  Cli cli;
  if (const std::optional<int> rc = parse(cli, child, argv)) return *rc;
  if (!outputs_are_safe(cli)) return kBadInput;
  return dispatch_reporting_errors(cli, child);
}
}  // namespace

int main(int argc, char** argv) {
  int rc = run_cli(argc, argv);
  // Everything on stdout must have reached it: a full disk or a closed pipe is an error, not
  // a report (a CI step must not pass on a report nobody could read).
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "error: cannot write to stdout: %s\n", std::strerror(errno));
    return rc == npu::cli::kInternal ? rc : npu::cli::kBadInput;
  }
  return rc;
}
