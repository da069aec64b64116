// `compare` of the module trees (compare/compare_modules.cpp, docs/compare-gate.md "Modules"):
// matched by path, then by order where names differ; the first place a change shows; a side
// without modules says why. Facts written by hand, so every number is known.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compare/compare.h"
#include "reports/compare_render.h"

namespace {

using nlohmann::json;

json node(const char* path, const char* cls, int depth, int parent, long long device) {
  return {{"path", path},
          {"name", path},
          {"class", cls},
          {"kind", "module"},
          {"depth", depth},
          {"parent", parent},
          {"calls", 3},
          {"device_ns", device},
          {"self_ns", 0},
          {"host_ns", 1000},
          {"evidence", json::array()}};
}

npu::compare::CompareSide side(json tree, long long step) {
  npu::compare::CompareSide s;
  s.path = "x";
  s.kind = "facts file";
  s.facts.doc = {{"schema", "npu-advisor.facts"},
                 {"schema_version", 1},
                 {"unavailable", json::array()},
                 {"modules",
                  {{"tree", tree},
                   {"step_device_ns", step},
                   {"in_modules_ns", step / 2},
                   {"outside_ns", step - step / 2},
                   {"coverage", 0.5}}}};
  return s;
}

json base_tree() {
  return json::array({node("Model_0", "Model", 1, -1, 1000), node("Model_0/Layer_0", "Layer", 2, 0, 300),
                      node("Model_0/Layer_0/Attn_0", "Attn", 3, 1, 200), node("Model_0/Layer_1", "Layer", 2, 0, 300),
                      node("Model_0/Layer_1/Attn_1", "Attn", 3, 3, 200), node("Head_0", "Head", 1, -1, 100)});
}

TEST(CompareModules, MatchedByPathFirstPlaceGoesDownToTheChildThatCarriesTheChange) {
  json next = base_tree();
  next[0]["device_ns"] = 1500;  // +500: Layer_1 +450 of it, its Attn_1 +400
  next[3]["device_ns"] = 750;
  next[4]["device_ns"] = 600;
  json doc = npu::compare::build_compare(side(base_tree(), 2000), side(next, 2500));
  const json& m = doc["modules"];
  ASSERT_TRUE(m["available"].get<bool>());
  EXPECT_EQ(m["rows"][0]["path"], "Model_0");
  EXPECT_EQ(m["rows"][0]["delta_device_ns"], 500);
  EXPECT_EQ(m["rows"][0]["matched_by"], "path");
  ASSERT_EQ(m["first_place"].size(), 3u);
  EXPECT_EQ(m["first_place"][2]["path"], "Model_0/Layer_1/Attn_1");
  EXPECT_EQ(m["first_place"][2]["delta_device_ns"], 400);
  EXPECT_EQ(m["totals"][0]["delta"], 500);
  const std::string text = npu::reports::render_compare_text(doc);
  EXPECT_NE(text.find("first shows in: Model_0 "), std::string::npos) << text;
  EXPECT_NE(text.find(" -> Model_0/Layer_1/Attn_1 "), std::string::npos) << text;
  EXPECT_NE(npu::reports::render_compare_markdown(doc).find("## Modules"), std::string::npos);
}

TEST(CompareModules, NamesThatDifferAreMatchedByOrderUnderTheSameParent) {
  json next = base_tree();
  // The new run numbered its instances differently (another model built first).
  next[1]["path"] = "Model_0/Layer_7";
  next[2]["path"] = "Model_0/Layer_7/Attn_7";
  next[3]["path"] = "Model_0/Layer_8";
  next[4]["path"] = "Model_0/Layer_8/Attn_8";
  json doc = npu::compare::build_compare(side(base_tree(), 2000), side(next, 2000));
  const json& m = doc["modules"];
  ASSERT_TRUE(m["available"].get<bool>());
  EXPECT_EQ(m["rows_total"], 6);  // every base node found its partner: no new, no vanished
  for (const auto& r : m["rows"]) {
    EXPECT_EQ(r["status"], "unchanged") << r.dump();
    if (r["path"] == "Model_0/Layer_1/Attn_1") {
      EXPECT_EQ(r["matched_by"], "order");
      EXPECT_EQ(r["new"]["path"], "Model_0/Layer_8/Attn_8");
    }
  }
  EXPECT_NE(m["note"].get<std::string>().find("4 module(s) matched by order"), std::string::npos);
}

TEST(CompareModules, ASideWithoutModulesSaysWhy) {
  auto base = side(base_tree(), 2000);
  auto next = side(base_tree(), 2000);
  next.facts.doc.erase("modules");
  next.facts.doc["unavailable"].push_back({{"fact", "modules"}, {"why", "no module ranges in the trace"}});
  json doc = npu::compare::build_compare(base, next);
  EXPECT_FALSE(doc["modules"]["available"].get<bool>());
  EXPECT_EQ(doc["modules"]["note"],
            "the new run has no module tree (no module ranges in the trace): no module comparison");
}

TEST(CompareModules, OneSideWithoutStacksIsNotReadAsEveryModuleGone) {
  json annotations_only = json::array({node("Optimizer.step#SGD.step", "Optimizer.step#SGD.step", 1, -1, 10)});
  annotations_only[0]["kind"] = "annotation";
  json doc = npu::compare::build_compare(side(base_tree(), 2000), side(annotations_only, 2000));
  EXPECT_FALSE(doc["modules"]["available"].get<bool>());
  EXPECT_NE(doc["modules"]["note"].get<std::string>().find("the base run recorded nn.Module ranges and the new run did "
                                                           "not (profile both with with_stack=True)"),
            std::string::npos);
}

}  // namespace
