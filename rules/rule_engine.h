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
  nlohmann::json params = nlohmann::json::object();
  // The time a finding's saving comes out of (rules/attribution.h): "idle", "communication" or
  // "compute"; from the category unless the rule says. A residual rule (the idle-time symptom)
  // gets what the causes before it left.
  std::string pool;
  // The what-if replay's transformation the rule's fix is (rules/replay_saving.h): its saving
  // replaces the rule's own estimate when the replay can be used. Empty: none.
  std::string whatif;
  bool residual = false;
  bool builtin = false;
};

struct RuleOutcome {
  enum class Status { Fired, Quiet, Skipped, NotApplicable, Failed };
  RuleMeta meta;
  Status status = Status::Quiet;
  std::string reason;  // why skipped / not applicable / failed ("file:line: message")
  std::vector<nlohmann::json> findings;
  size_t findings_dropped = 0;  // emitted beyond SandboxLimits::findings (reason says so)
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

  std::vector<RuleOutcome> run(const Facts& facts, const RuleRunOptions& opt = {});

 private:
  void load_meta();
  std::vector<RuleSource> sources_;
  std::vector<bool> builtin_;
  std::vector<RuleMeta> metas_;
  std::vector<std::string> load_errors_;  // per source, empty when fine
  bool loaded_ = false;
};

// The rule files under dir: every *.lua (recursively, sorted) except the rule library's
// (dir/lib/, rules/lua_library.h), so the source tree rules/lua can be passed as a rule folder.
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
