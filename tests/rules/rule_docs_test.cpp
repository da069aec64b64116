// A rule's doc names its parameters and never retypes their defaults: the default has one home,
// the declaration, which the generated parameter tables show (docs/rules.md, `npu-advisor rules
// show ID`). "`min_share` (5 %)" in the prose would stay behind when the declaration moves.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "rules/rule_engine.h"

namespace {

// The retyped defaults in `doc`: a parameter's name followed by "(" or "," and a number (or "half").
std::vector<std::string> retyped_defaults(const std::string& doc, const std::vector<npu::ParamSpec>& specs) {
  std::vector<std::string> out;
  for (const auto& p : specs) {
    const std::regex re("(^|[^A-Za-z0-9_.])`?" + p.name + "`?\\s*[(,]\\s*(half\\b|~?-?[0-9])");
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), re); it != std::sregex_iterator(); ++it)
      out.push_back(it->str());
  }
  return out;
}

}  // namespace

TEST(RuleDocs, NoDocRetypesItsDeclaredDefaults) {
  npu::RuleEngine engine;
  engine.add_builtin_rules();
  std::vector<npu::RuleMeta> all = engine.rules();
  for (const auto& v : engine.verdicts()) all.push_back(v);
  ASSERT_GT(all.size(), 30u);
  for (const auto& m : all)
    for (const std::string& hit : retyped_defaults(m.doc, m.param_specs))
      ADD_FAILURE() << m.id << " retypes a default in its doc: \"" << hit
                    << "\"; name the parameter only (its default is in the parameter table)";
}

TEST(RuleDocs, TheRetypedDefaultCheckFindsThem) {
  std::vector<npu::ParamSpec> specs(2);
  specs[0].name = "min_share";
  specs[1].name = "factor";
  EXPECT_EQ(retyped_defaults("at least `min_share` (5 %) of compute", specs).size(), 1u);
  EXPECT_EQ(retyped_defaults("Saving = factor (0.5) x idle", specs).size(), 1u);
  EXPECT_EQ(retyped_defaults("at least `graph_share`, half, of", specs).size(), 0u);
  EXPECT_EQ(retyped_defaults("at least `min_share` of compute; `factor` x idle (the reference's)", specs).size(), 0u);
  EXPECT_EQ(retyped_defaults("facts.x.factor (0.5) is a fact", specs).size(), 0u);
}
