// `npu-advisor verify`: did a fix save what its finding predicted? (docs/verify.md)
//
// A fix's verdict reads the compare document of the baseline and the run with the fix (its step
// time, the noise test of its per-step series and the same-work check) and the prediction of the
// finding the fix belongs to. Pure: the runs are captured and compared elsewhere (cli/cmd_verify).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu::compare {

constexpr const char* kVerifySchema = "npu-advisor.verify";
constexpr int kVerifySchemaVersion = 1;

// The verdicts, in the JSON as written.
constexpr const char* kConfirmed = "confirmed";
constexpr const char* kConfirmedOff = "confirmed, prediction off";
constexpr const char* kNoEffect = "no effect";
constexpr const char* kSlower = "slower";
constexpr const char* kInconclusive = "inconclusive";

struct Prediction {
  std::string rule, title;
  double saving_ns = 0;
  std::string method;   // replay | formula
  std::string formula;  // the finding's saving_formula
  std::string chosen;   // why this finding: "--fix RULE", "the top finding", "its command sets K=V"
};

struct VerifyBand {
  double low = 0.75;   // the prediction may be 25% under the realised saving...
  double high = 1.33;  // ...or 33% over it
  // With no prediction, "no effect" needs the interval to rule out a saving of this share of the step.
  double no_effect_share = 0.10;
};

// The finding of `rule` (empty: the first, the largest saving) in a ranked findings list;
// nullopt (and *why) when there is none.
std::optional<Prediction> prediction_of(const nlohmann::json& findings, const std::string& rule, std::string* why);

// The fix applied is the replay's transformation `whatif` (facts.whatif.transforms, e.g. tf32 when
// the finding's saving is its bf16 alternative's): the prediction is that replay's saving, for
// the finding `p` (nullopt: a finding of no rule). Nullopt (and *why) when the rules could not use
// that replay's saving either (rules/replay_saving.h, replay_unusable).
std::optional<Prediction> prediction_of_whatif(const nlohmann::json& facts, const std::optional<Prediction>& p,
                                               const std::string& whatif, std::string* why);
// A note when the finding offers more than one command but its saving is one alternative's (the
// replay of its whatif): which one, and how to judge another (--whatif NAME). Empty otherwise.
std::string alternatives_note(const nlohmann::json& findings, const Prediction& p);

// NAME=VALUE when a finding's command is an environment variable assignment ("export K=V",
// "K=V", a trailing # comment allowed), else nullopt.
std::optional<std::string> env_assignment(const std::string& command);
// The findings whose command sets an environment variable (--fixes auto), with that assignment.
std::vector<std::pair<std::string, Prediction>> env_fixes(const nlohmann::json& findings);
// The finding whose command sets NAME=VALUE, if any.
std::optional<Prediction> prediction_for_env(const nlohmann::json& findings, const std::string& assignment);

// One fix's verdict: {verdict, why, prediction, realised, prediction_off_ratio}. `compare_doc`:
// build_compare(baseline, run with the fix).
nlohmann::json verify_fix(const nlohmann::json& compare_doc, const std::optional<Prediction>& p,
                          const VerifyBand& band = {});
// Why a baseline's predicted saving cannot be checked by comparing steps, or "": a serving run
// whose iterations have the host's turn between them (facts.whatif.period) predicts savings of the
// period (window and turn, docs/whatif.md "Serving"), and the steps compared are the windows.
std::string period_unverifiable(const nlohmann::json& base_facts);

}  // namespace npu::compare
