// The `facts` tool's paths into a facts document (mcp/facts_lookup.h) and what the schema says.
#include "mcp/facts_lookup.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
using npu::mcp::facts_part;
using npu::mcp::facts_path_tokens;

using Tokens = std::vector<std::string>;

TEST(FactsPath, PointerAndDottedForms) {
  EXPECT_EQ(facts_path_tokens(""), Tokens{});
  EXPECT_EQ(facts_path_tokens("/"), Tokens{});
  EXPECT_EQ(facts_path_tokens("/steps/0/free_ns"), (Tokens{"steps", "0", "free_ns"}));
  EXPECT_EQ(facts_path_tokens("/run/env/A~1B~0"), (Tokens{"run", "env", "A/B~"}));
  EXPECT_EQ(facts_path_tokens("steps[0].free_ns"), (Tokens{"steps", "0", "free_ns"}));
  EXPECT_EQ(facts_path_tokens("steps.0.free_ns"), (Tokens{"steps", "0", "free_ns"}));
  EXPECT_EQ(facts_path_tokens("dispatch.steps[id=3]"), (Tokens{"dispatch", "steps", "id=3"}));
  EXPECT_EQ(facts_path_tokens("a[1][2]"), (Tokens{"a", "1", "2"}));
  EXPECT_THROW(facts_path_tokens("steps[0"), std::invalid_argument);
  EXPECT_THROW(facts_path_tokens("a..b"), std::invalid_argument);
  EXPECT_THROW(facts_path_tokens("/a/~2"), std::invalid_argument);
}

json doc() {
  return {{"schema", "npu-advisor.facts"},
          {"steps", json::array({{{"id", 1}, {"free_ns", 10}}, {{"id", 7}, {"free_ns", 20}}})},
          {"run", {{"env", {{"HCCL_X", "1"}}}}},
          {"dispatch", {{"steps", json::array({{{"id", "3"}, {"host_bound_free_ns", 5}}})}}}};
}

TEST(FactsPart, ValueWithItsSchemaEntry) {
  json p = facts_part(doc(), "/steps/1/free_ns");
  EXPECT_EQ(p["value"], 20);
  EXPECT_EQ(p["path"], "/steps/1/free_ns");
  EXPECT_EQ(p["schema_path"], "steps[].free_ns");
  EXPECT_EQ(p["unit"], "ns");
  EXPECT_FALSE(p["meaning"].get<std::string>().empty());
  EXPECT_EQ(facts_part(doc(), "steps[id=7].free_ns")["value"], 20);
  EXPECT_EQ(facts_part(doc(), "dispatch.steps[id=3].host_bound_free_ns")["value"], 5);
  // A map's keys are its "*" entry.
  EXPECT_EQ(facts_part(doc(), "run.env.HCCL_X")["schema_path"], "run.env.*");
}

TEST(FactsPart, ObjectsListTheirKeys) {
  json top = facts_part(doc(), "");
  EXPECT_EQ(top["path"], "/");
  ASSERT_TRUE(top["keys"].is_array());
  bool steps_seen = false;
  for (const auto& k : top["keys"])
    if (k["key"] == "steps") {
      steps_seen = true;
      EXPECT_EQ(k["length"], 2);
      EXPECT_FALSE(k["meaning"].get<std::string>().empty());
    }
  EXPECT_TRUE(steps_seen);
}

TEST(FactsPart, LargeValuesAreNotGivenWhole) {
  json big = doc();
  for (int i = 0; i < 3000; ++i) big["steps"].push_back({{"id", i}, {"free_ns", i}});
  json p = facts_part(big, "steps", 4096);
  EXPECT_FALSE(p.contains("value"));
  EXPECT_EQ(p["length"], 3002);
  EXPECT_EQ(p["first"]["id"], 1);
  EXPECT_NE(p["note"].get<std::string>().find("/steps/0"), std::string::npos);
  json top = facts_part(big, "", 4096);
  EXPECT_FALSE(top.contains("value"));
  EXPECT_TRUE(top.contains("keys"));
}

TEST(FactsPart, MissingPartsSayWhatIsThere) {
  try {
    facts_part(doc(), "/stepz");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("steps"), std::string::npos);
  }
  EXPECT_THROW(facts_part(doc(), "/steps/9"), std::invalid_argument);
  EXPECT_THROW(facts_part(doc(), "/steps/x"), std::invalid_argument);
  EXPECT_THROW(facts_part(doc(), "/steps/id=99"), std::invalid_argument);
  EXPECT_THROW(facts_part(doc(), "/schema/x"), std::invalid_argument);
}

}  // namespace
