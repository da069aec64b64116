// A finding's saving from the what-if replay (facts.whatif, docs/whatif.md). A rule names the
// transformation its fix is (rule{ whatif = "dataloader" }, or emit{ whatif = ... } per
// finding); its own formula stays the fallback when the replay is unavailable, does not
// reproduce the measured steps, or finds nothing to change.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu {

// Whether `name` is a transformation of the replay (facts/whatif/transforms.h).
bool is_whatif_transform(const std::string& name);
// "dataloader, graphs, ...": the names, for error messages and docs.
std::string whatif_transform_list();

// Why the replay's saving for transformation `name` cannot be used ("" when it can: the replay is
// available, gives the measured steps back, and applies `name` with a finite saving), `*t` then
// the transformation's facts. The one test of it: findings (apply_replay_saving) and verify's
// --whatif predictions.
std::string replay_unusable(const nlohmann::json& facts, const std::string& name, const nlohmann::json** t);

// Sets finding.saving_ns from facts.whatif.transforms[name] when the replay can be used
// (saving_method "replay", saving_formula the transformation, saving_rule_ns the rule's own
// estimate), else keeps the rule's estimate (saving_method "formula", saving_note why).
void apply_replay_saving(nlohmann::json& finding, const nlohmann::json& facts, const std::string& name);

}  // namespace npu
