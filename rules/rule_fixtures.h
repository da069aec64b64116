// `rules test DIR`: every rule file DIR/.../NAME.lua with its test file NAME.test.json beside
// it, in the manner of ESLint's RuleTester (docs/rules.md, "Test files"):
//   {"rule": ID, "fires": [CASE...], "quiet": [...], "skipped": [...], "not_applicable": [...]}
// where each CASE is {"name", "facts", "params"?} plus, for "fires", "findings"?, "contains"?,
// "not_contains"?, "min_saving_ns"?, "max_saving_ns"?, and for "skipped"/"not_applicable" a
// "reason"? text. Each case must end in the status of its list. Also checks that the rule's id
// and category follow its path (DIR/<category>/<name>.lua: id "<category>.<name>").
#pragma once
#include <string>
#include <vector>

namespace npu {

struct FixtureResult {
  std::string rule_file;
  std::string fixture;  // "<list>: <case name>", "(path)" or the test file's name
  bool passed = false;
  std::string message;
};

// Runs every case of every rule under dir (its rule library folder dir/lib/ aside). A rule
// without a test file, or without a fires, a quiet or a skipped case, is a failure; so is a
// key a case may not have.
std::vector<FixtureResult> run_rule_fixtures(const std::string& dir);

}  // namespace npu
