// `rules test DIR`: every rule file in DIR with its fixtures beside it
// (NAME.fires*.json must produce findings, NAME.quiet*.json must not). A fixture is
// {"facts": {...}, "params": {...}?, "expect": {"findings": N?, "contains": ["text"]?,
//  "min_saving_ns": X?, "max_saving_ns": X?}}.
#pragma once
#include <string>
#include <vector>

namespace npu {

struct FixtureResult {
  std::string rule_file, fixture;
  bool passed = false;
  std::string message;
};

// Runs every fixture under dir; rules without any fixture are reported as failures
// (each rule must ship one that fires and one that stays quiet).
std::vector<FixtureResult> run_rule_fixtures(const std::string& dir);

}  // namespace npu
