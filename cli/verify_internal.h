// Shared by cli/cmd_verify.cpp (BASE NEW, the document's output) and cli/verify_command.cpp
// (verify -o DIR -- CMD).
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "compare/verify.h"

namespace npu::cli {

namespace verify {
nlohmann::json new_document(const std::string& mode);
void describe_baseline(nlohmann::json& doc, const compare::CompareSide& base);
// The prediction a changed run (--after, or NEW) is judged against: the finding of --fix (else the
// top one), its replay of --whatif when given; what could not be had, or which alternative the
// finding's saving is, goes into `notes` with `label`.
std::optional<compare::Prediction> changed_run_prediction(const compare::CompareSide& base, const VerifyOptions& v,
                                                          const std::string& label, nlohmann::json& notes);
// One fix's verdict against the baseline (its compare document is built and dropped).
nlohmann::json judge(const compare::CompareSide& base, const compare::CompareSide& fixed, const VerifyOptions& v,
                     const std::optional<compare::Prediction>& pred);
// Writes DIR/verify.json and DIR/verify.html (command mode, or -o DIR), prints the document, and
// returns the exit code: `rc` when not kOk, else kGated when a verdict is not one --require allows.
int finish(nlohmann::json& doc, const VerifyOptions& v, const CommonOptions& common, int rc);
}  // namespace verify

int verify_command(const VerifyOptions& v, collector::CaptureOptions cap, const CommonOptions& common,
                   const RuleOptions& rules);

}  // namespace npu::cli
