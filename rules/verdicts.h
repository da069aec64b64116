// Verdicts: judgements that several rules and the reports share ("is this step host-bound?"),
// decided once per run in the rules layer, before the rules, with parameters declared once
// (docs/rules.md, Verdicts). Each is a built-in file rules/lua/verdicts/NAME.lua with a
// `verdict { id = ..., title = ..., doc = ..., params = ... }` declaration and a
// `decide(facts, params)` function returning the verdict as a table (nil: nothing to judge).
// Rules read the decisions through the rule library (lib.steps: steps.verdict), and the report
// document carries them (`verdicts`, at the id's path: verdicts.dispatch.step_class), so
// `--set dispatch.step_class.host_bound_free_ratio=0.2` moves every rule and every report.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/rule_engine.h"

namespace npu {

// The built-in verdict files ("builtin:verdicts/step_class.lua").
std::vector<RuleSource> builtin_verdict_sources();
// Whether a path under rules/lua (relative) belongs to the verdicts.
bool is_verdict_path(std::string_view rel);

// Loads a verdict file's declaration into `meta` (RuleMeta::verdict set); "" or an error text.
std::string load_verdict(const RuleSource& src, RuleMeta& meta);

// Runs decide(facts, params) of one verdict into `o` (status Fired with `decided`, Quiet when
// it returned nil, Failed with the reason).
void decide_verdict(const RuleSource& src, const nlohmann::json& facts, const nlohmann::json& params,
                    const SandboxLimits& limits, RuleOutcome& o);

// The decided verdicts of `outcomes`, each at its id's path ({"dispatch": {"step_class": ...}}).
nlohmann::json verdict_document(const std::vector<RuleOutcome>& outcomes);

// Sets the global `verdicts` of a rule's sandbox to a read-only view of `doc` (kept alive by the
// caller while the sandbox lives). Pushes trusted data: call it where facts are pushed.
void set_verdicts_global(LuaSandbox& sb, const nlohmann::json& doc);

}  // namespace npu
