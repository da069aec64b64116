// `rules test DIR` (rules/rule_fixtures.h): every built-in rule passes its test file, and the
// runner refuses what would let a rule or a test file drift unnoticed.
#include "rules/rule_fixtures.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

// A rule that fires when overall.free_ratio > 1 (a key of the facts schema, as every need must be).
std::string rule_code(const std::string& id, const std::string& category) {
  return "rule { id = '" + id + "', title = 'T', category = '" + category +
         "', needs = { 'overall.free_ratio' } }\n"
         "function check(facts, p, emit) if facts.overall.free_ratio > 1 then emit { observed = 'x is ' .. "
         "facts.overall.free_ratio } end end\n";
}

const char* kTests = R"({"rule": "%ID%",
  "fires": [{"name": "x above 1", "contains": ["x is 2"], "facts": {"overall": {"free_ratio": 2}}}],
  "quiet": [{"name": "x at 1", "facts": {"overall": {"free_ratio": 1}}}],
  "skipped": [{"name": "no x", "reason": "missing overall.free_ratio", "facts": {"overall": {}}}]})";

std::string tests_for(const std::string& id) {
  std::string t = kTests;
  t.replace(t.find("%ID%"), 4, id);
  return t;
}

// Writes DIR/<path>.lua declaring `id` and `category`, with a passing test file beside it.
void write_rule(const npu::test::TempDir& dir, const std::string& path, const std::string& id,
                const std::string& category) {
  dir.write(path + ".lua", rule_code(id, category));
  dir.write(path + ".test.json", tests_for(id));
}

std::vector<std::string> failures(const npu::test::TempDir& dir) {
  std::vector<std::string> out;
  for (const auto& r : npu::run_rule_fixtures(dir.path().string()))
    if (!r.passed) out.push_back(r.fixture + ": " + r.message);
  return out;
}

}  // namespace

// Every built-in rule passes its own test file: firing, quiet and skipped cases at least.
TEST(RuleFixtures, BuiltinRules) {
  auto results = npu::run_rule_fixtures(npu::test::source_dir() + "/rules/lua");
  ASSERT_FALSE(results.empty());
  for (const auto& r : results) EXPECT_TRUE(r.passed) << r.rule_file << " " << r.fixture << ": " << r.message;
}

TEST(RuleFixtures, ACompleteRulePasses) {
  npu::test::TempDir dir;
  write_rule(dir, "team/check_x", "team.check_x", "team");
  EXPECT_TRUE(failures(dir).empty()) << ::testing::PrintToString(failures(dir));
  EXPECT_EQ(npu::run_rule_fixtures(dir.path().string()).size(), 3u);
}

// DIR/<category>/<name>.lua declares id "<category>.<name>" and category "<category>"; a rule
// directly in DIR an id ending in ".<name>".
TEST(RuleFixtures, IdAndCategoryFollowThePath) {
  npu::test::TempDir dir;
  write_rule(dir, "check_w", "team.check_w", "team");
  write_rule(dir, "check_z", "team.check_x2", "team");
  write_rule(dir, "team/check_x", "team.other_name", "team");
  write_rule(dir, "team/check_y", "team.check_y", "schedule");
  auto f = failures(dir);
  ASSERT_EQ(f.size(), 3u) << ::testing::PrintToString(f);
  EXPECT_NE(f[0].find("(path): rule id \"team.check_x2\" does not end in \".check_z\""), std::string::npos) << f[0];
  EXPECT_NE(f[1].find("(path): rule id \"team.other_name\" does not match its path: expected \"team.check_x\""),
            std::string::npos)
      << f[1];
  EXPECT_NE(f[2].find("(path): rule category \"schedule\" does not match its folder: expected \"team\""),
            std::string::npos)
      << f[2];
}

TEST(RuleFixtures, EveryRuleHasFiresQuietAndSkippedCases) {
  npu::test::TempDir dir;
  dir.write("team/check_x.lua", rule_code("team.check_x", "team"));
  auto f = failures(dir);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("every rule has a test file beside it"), std::string::npos) << f[0];
  dir.write("team/check_x.test.json", R"({"rule": "team.check_x",
    "fires": [{"name": "x above 1", "facts": {"overall": {"free_ratio": 2}}}]})");
  f = failures(dir);
  ASSERT_EQ(f.size(), 2u) << ::testing::PrintToString(f);
  EXPECT_NE(f[0].find("quiet: (none): no quiet case"), std::string::npos) << f[0];
  EXPECT_NE(f[1].find("skipped: (none): no skipped case"), std::string::npos) << f[1];
}

// A case that ends in another status than its list says fails, and says what happened.
TEST(RuleFixtures, StatusMustMatchTheList) {
  npu::test::TempDir dir;
  dir.write("team/check_x.lua", rule_code("team.check_x", "team"));
  dir.write("team/check_x.test.json", R"({"rule": "team.check_x",
    "fires": [{"name": "x at 1", "facts": {"overall": {"free_ratio": 1}}}],
    "quiet": [{"name": "x above 1", "facts": {"overall": {"free_ratio": 2}}}],
    "skipped": [{"name": "x present", "facts": {"overall": {"free_ratio": 1}}},
                {"name": "wrong reason", "reason": "missing y", "facts": {}}],
    "not_applicable": [{"name": "x present", "facts": {"overall": {"free_ratio": 1}}}]})");
  auto f = failures(dir);
  ASSERT_EQ(f.size(), 5u) << ::testing::PrintToString(f);
  EXPECT_EQ(f[0], "fires: x at 1: expected fired, got quiet");
  EXPECT_EQ(f[1], "quiet: x above 1: expected quiet, got fired (x is 2)");
  EXPECT_EQ(f[2], "skipped: x present: expected skipped, got quiet");
  EXPECT_EQ(f[3], "skipped: wrong reason: the reason \"missing overall.free_ratio\" does not mention \"missing y\"");
  EXPECT_EQ(f[4], "not_applicable: x present: expected not applicable, got quiet");
}

// A misspelled expectation is an error, never an expectation silently not checked.
TEST(RuleFixtures, UnknownKeysFail) {
  npu::test::TempDir dir;
  dir.write("team/check_x.lua", rule_code("team.check_x", "team"));
  std::string t = tests_for("team.check_x");
  t.replace(t.find("\"contains\""), 10, "\"contain\"");
  t.replace(t.find("\"quiet\""), 7, "\"quiet\": [], \"quite\"");
  dir.write("team/check_x.test.json", t);
  auto f = failures(dir);
  ASSERT_EQ(f.size(), 3u) << ::testing::PrintToString(f);
  EXPECT_NE(f[0].find("unknown key \"quite\""), std::string::npos) << f[0];
  EXPECT_NE(f[1].find("unknown key \"contain\" in a fires case"), std::string::npos) << f[1];
  EXPECT_NE(f[2].find("no quiet case"), std::string::npos) << f[2];
}

// A test file of the wrong shape is that file's failure, named, not an internal error.
TEST(RuleFixtures, AMalformedTestFileFailsItself) {
  for (const char* text : {R"({"rule": 5, "fires": "x"})", R"({"rule": "team.check_x", "fires": [{"name": 3}]})",
                           R"({"rule": "team.check_x", "fires": [{"name": "n", "findings": "one", "facts": {}}]})"}) {
    npu::test::TempDir dir;
    write_rule(dir, "team/check_x", "team.check_x", "team");
    dir.write("team/check_x.test.json", text);
    const auto f = failures(dir);
    ASSERT_FALSE(f.empty()) << text;
    if (std::string(text).find("\"rule\": 5") != std::string::npos)
      EXPECT_NE(::testing::PrintToString(f).find("malformed test file"), std::string::npos) << ::testing::PrintToString(f);
  }
}
