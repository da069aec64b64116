// The rule engine: loads built-in and user rule files (one Lua file per rule), runs each in
// its own sandbox against the facts, and ranks the findings by estimated saving.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/facts.h"
#include "rules/lua_sandbox.h"
#include "rules/rule_params.h"

namespace npu {

struct RuleSource {
  std::string path;  // "builtin:dispatch/task_queue.lua" or a file path
  std::string code;
};

// What a rule file declares in `rule { ... }`.
struct RuleMeta {
  std::string id, title, category, severity, doc, file;
  std::vector<std::string> needs;      // fact paths, e.g. "dispatch.steps"
  std::vector<std::string> platforms;  // "ascend", "gpu", "cpu"; empty = any
  // "torch_npu", "pytorch", "mindspore"; empty = any. A run whose framework is unknown (msprof)
  // is checked anyway.
  std::vector<std::string> frameworks;
  std::vector<ParamSpec> param_specs;                // declared once: type, range, meaning (rules/rule_params.h)
  nlohmann::json params = nlohmann::json::object();  // name -> default
  // The time a finding's saving comes out of (rules/attribution.h): "idle", "communication" or
  // "compute"; from the category unless the rule says. A residual rule (the idle-time symptom)
  // gets what the causes before it left.
  std::string pool;
  // The what-if replay's transformation the rule's fix is (rules/replay_saving.h): its saving
  // replaces the rule's own estimate when the replay can be used. Empty: none.
  std::string whatif;
  bool residual = false;
  bool builtin = false;
  bool verdict = false;  // a verdict (rules/verdicts.h), not a rule
};

struct RuleOutcome {
  enum class Status { Fired, Quiet, Skipped, NotApplicable, Failed };
  RuleMeta meta;
  Status status = Status::Quiet;
  std::string reason;  // why skipped / not applicable / failed ("file:line: message")
  std::vector<nlohmann::json> findings;
  size_t findings_dropped = 0;  // emitted beyond SandboxLimits::findings (reason says so)
  nlohmann::json decided;       // a verdict's decision (null: nothing to judge, or failed)
};
const char* to_string(RuleOutcome::Status s);

struct RuleRunOptions {
  // "rule_id.param" -> value (from --set or a config file); applied over the defaults.
  std::map<std::string, std::string> overrides;
  SandboxLimits limits;
};

class RuleEngine {
 public:
  // Built-in rules are compiled into the binary (rules/lua/**.lua).
  void add_builtin_rules();
  // Every rule file under dir (rule_files). Throws LoadError when dir is missing.
  void add_rule_dir(const std::string& dir);
  void add_rule_source(RuleSource src, bool builtin);

  // Loads metadata of every rule (running only the rule{} declaration). Rules whose file
  // fails to load come back as Failed outcomes from run().
  const std::vector<RuleMeta>& rules();
  // The verdicts (rules/verdicts.h): built in, decided before the rules on every run.
  const std::vector<RuleMeta>& verdicts();

  // Checks overrides against the declared parameters of the rules and verdicts: "" or a one-line
  // error naming the rule (or verdict) and the parameter.
  std::string check_overrides(const std::map<std::string, std::string>& overrides);

  // The rules' outcomes in the order of their sources, then the verdicts' (RuleMeta::verdict,
  // RuleOutcome::decided), which were decided before the rules ran.
  std::vector<RuleOutcome> run(const Facts& facts, const RuleRunOptions& opt = {});

 private:
  void load_meta();
  struct RunInputs;  // what every rule of one run shares (rule_engine.cpp)
  RuleOutcome run_rule(size_t i, const Facts& facts, const RuleRunOptions& opt, const RunInputs& in);
  std::vector<RuleSource> sources_;
  std::vector<bool> builtin_;
  std::vector<RuleMeta> metas_;
  std::vector<std::string> load_errors_;  // per source, empty when fine
  std::vector<RuleSource> verdict_sources_;
  std::vector<RuleMeta> verdict_metas_;
  std::vector<std::string> verdict_errors_;
  bool loaded_ = false;
};

// The rule files under dir: every *.lua (recursively, sorted) except the rule library's
// (dir/lib/, rules/lua_library.h) and the verdicts' (dir/verdicts/, rules/verdicts.h), so the
// source tree rules/lua can be passed as a rule folder.
// Throws LoadError when dir is missing.
std::vector<std::string> rule_files(const std::string& dir);

// The platform a facts document describes: "ascend", "gpu" or "cpu".
std::string facts_platform(const Facts& facts);

// All findings of all outcomes, ranked by score (saving x confidence), best first.
nlohmann::json ranked_findings(const std::vector<RuleOutcome>& outcomes);
// Skipped / not applicable / failed rules as a JSON list for reports.
nlohmann::json rule_status_list(const std::vector<RuleOutcome>& outcomes);

// Parses "id.param=value" into overrides; throws std::invalid_argument on bad syntax.
void parse_override(const std::string& text, std::map<std::string, std::string>& out);

}  // namespace npu
