// The module view in the report (facts.modules; reports/module_text.cpp): the trimmed tree the
// document carries, the top modules and the coverage line, and the Modules part of the HTML,
// Markdown and terminal reports. The icicle itself is checked in a browser (tests/browser/).
#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/report_document.h"
#include "test_support.h"

namespace {

using nlohmann::json;

json node(const std::string& path, int64_t parent, int64_t depth, int64_t device_ns, int64_t comm_ns = 0) {
  const size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return {{"path", path},
          {"name", name},
          {"class", name},
          {"kind", "module"},
          {"depth", depth},
          {"parent", parent},
          {"calls", 3},
          {"device_ns", device_ns},
          {"self_ns", 0},
          {"computing_ns", device_ns - comm_ns},
          {"communication_ns", comm_ns},
          {"copies_ns", 0},
          {"host_ns", 2 * device_ns},
          {"total_device_ns", 3 * device_ns}};
}

// DDP_0 wraps Model_0 (all of its time); Model_0 has an encoder of `layers` Block_i, each with a
// Linear; a Loss_0 at the top level. 10 ms of step device work, 8 in modules.
json modules_doc(int layers) {
  json tree = json::array();
  const int64_t per = 6'000'000 / layers;
  tree.push_back(node("DDP_0", -1, 1, 7'500'000));
  tree.push_back(node("DDP_0/Model_0", 0, 2, 7'500'000));
  tree.push_back(node("DDP_0/Model_0/Encoder_0", 1, 3, 6'000'000));
  for (int i = 0; i < layers; ++i) {
    const std::string block = "DDP_0/Model_0/Encoder_0/Block_" + std::to_string(i);
    const int64_t dev = per + i;  // the later layers a little heavier
    const int64_t at = static_cast<int64_t>(tree.size());
    tree.push_back(node(block, 2, 4, dev));
    tree.push_back(node(block + "/Linear_" + std::to_string(i), at, 5, dev - 1000));
  }
  tree.push_back(node("DDP_0/Model_0/Head_0", 1, 3, 1'500'000, 1'000'000));
  tree.push_back(node("Loss_0", -1, 1, 500'000));
  json members = json::array();
  for (int i = 0; i < layers; ++i)
    members.push_back({{"path", "DDP_0/Model_0/Encoder_0/Block_" + std::to_string(i)}, {"device_ns", per + i}});
  json repeated = json::array();
  for (int k = 0; k < 20; ++k)
    repeated.push_back({{"class", k == 0 ? "Block" : "Other" + std::to_string(k)},
                        {"parent", k == 0 ? json("DDP_0/Model_0/Encoder_0") : json(nullptr)},
                        {"count", layers},
                        {"device_ns", 6'000'000},
                        {"median_ns", per},
                        {"mad_ns", 74},
                        {"min_ns", per},
                        {"max_ns", per + layers - 1},
                        {"members_listed", members.size()},
                        {"members", members}});
  return {{"steps", 3},
          {"ranges", 3 * tree.size()},
          {"nodes", tree.size()},
          {"nodes_listed", tree.size()},
          {"step_device_ns", 10'000'000},
          {"in_modules_ns", 8'000'000},
          {"outside_ns", 2'000'000},
          {"unjoined_ns", 0},
          {"coverage", 0.8},
          {"graph", {{"device_ns", 0}, {"share", 0.0}, {"mapped", false}}},
          {"tree", tree},
          {"repeated", repeated}};
}

json report_with(const json& modules) {
  json r = npu::test::report_around({{"run", {{"framework", "PyTorch"}}}, {"unavailable", json::array()}});
  if (!modules.is_null()) r["facts"]["modules"] = modules;
  return r;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

}  // namespace

TEST(ModuleView, SmallTreeIsCarriedAsItIs) {
  json m = modules_doc(4);
  json before = m;
  npu::trim_module_view(m);
  EXPECT_EQ(m["tree"], before["tree"]);
  EXPECT_EQ(m["repeated"].size(), 16u);  // the heaviest 16 of 20 repeated layers
  EXPECT_EQ(m["repeated"][0], before["repeated"][0]);
}

TEST(ModuleView, LargeTreeKeepsTheHeaviestWithTheirAncestors) {
  json m = modules_doc(400);  // 805 nodes
  const json before = m;
  npu::trim_module_view(m);
  const json& tree = m["tree"];
  ASSERT_EQ(tree.size(), npu::kReportModuleNodes);
  EXPECT_EQ(m["nodes_listed"], tree.size());
  EXPECT_EQ(m["nodes"], before["nodes"]);
  // Parents are earlier nodes whose path is the child's without its last name; preorder stays.
  for (size_t i = 0; i < tree.size(); ++i) {
    const int64_t p = tree[i]["parent"];
    const std::string path = tree[i]["path"];
    if (p < 0) {
      EXPECT_EQ(path.find('/'), std::string::npos) << path;
      continue;
    }
    ASSERT_LT(static_cast<size_t>(p), i);
    EXPECT_EQ(tree[static_cast<size_t>(p)]["path"].get<std::string>(), path.substr(0, path.rfind('/'))) << path;
  }
  // The heaviest layers (the last ones) are in, the lightest are not; the top level is whole.
  auto has = [&](const std::string& path) {
    return std::any_of(tree.begin(), tree.end(), [&](const json& n) { return n["path"] == path; });
  };
  EXPECT_TRUE(has("DDP_0/Model_0/Encoder_0/Block_399"));
  EXPECT_TRUE(has("DDP_0/Model_0/Encoder_0/Block_105"));
  EXPECT_FALSE(has("DDP_0/Model_0/Encoder_0/Block_104"));
  EXPECT_FALSE(has("DDP_0/Model_0/Encoder_0/Block_399/Linear_399"));  // lighter than 295 blocks
  EXPECT_TRUE(has("Loss_0"));
  EXPECT_TRUE(has("DDP_0/Model_0/Head_0"));
  // Repeated layers: 16, each with at most 32 members.
  ASSERT_EQ(m["repeated"].size(), 16u);
  for (const json& r : m["repeated"]) {
    EXPECT_EQ(r["members"].size(), 32u);
    EXPECT_EQ(r["members_listed"], 32);
    EXPECT_EQ(r["count"], 400);
  }
}

TEST(ModuleView, TrimLeavesOddDocumentsAlone) {
  for (json m : {json(), json::array(), json{{"tree", "x"}}, json{{"tree", json::array({1, 2})}}}) {
    const json before = m;
    EXPECT_NO_THROW(npu::trim_module_view(m));
    EXPECT_EQ(m, before);
  }
}

TEST(ModuleView, TopModulesNameTheChildOfAWrapper) {
  const json m = modules_doc(4);
  const auto top = npu::top_modules(m, 5, 3);
  std::vector<std::string> paths;
  for (size_t i : top) paths.push_back(m["tree"][i]["path"]);
  // DDP_0 holds nothing but Model_0: it is left out; Block_i are at depth 4.
  EXPECT_EQ(paths,
            (std::vector<std::string>{"DDP_0/Model_0", "DDP_0/Model_0/Encoder_0", "DDP_0/Model_0/Head_0", "Loss_0"}));
  EXPECT_EQ(npu::module_share_text(m, m["tree"][1]), "7.500 ms (75.0%)");
  EXPECT_TRUE(npu::top_modules(json::object(), 5, 3).empty());
}

// A stack of identical layers is one entry of the top list, its heaviest member, named as such
// (Block_i wraps its Linear_i: the Linear stands for it).
TEST(ModuleView, TopModulesGiveAStackOfLayersOnce) {
  json m = modules_doc(4);
  for (json& n : m["tree"]) {
    const std::string name = n["name"];
    if (name.rfind("Block_", 0) == 0) n["class"] = "Block";
    if (name.rfind("Linear_", 0) == 0) n["class"] = "Linear";
  }
  const auto top = npu::top_modules(m, 8, 5);
  std::vector<std::string> paths;
  for (size_t i : top) paths.push_back(m["tree"][i]["path"]);
  // Linear_0..2 run inside the other members of the Block stack: only Block_3's is listed.
  EXPECT_EQ(paths, (std::vector<std::string>{"DDP_0/Model_0", "DDP_0/Model_0/Encoder_0", "DDP_0/Model_0/Head_0",
                                             "DDP_0/Model_0/Encoder_0/Block_3/Linear_3", "Loss_0"}));
  EXPECT_EQ(npu::repeated_siblings(m, top[3]), 1u);  // each Linear is its Block's only child
  EXPECT_EQ(npu::module_label_text(m, top[3]), "Linear_3");
  size_t block = 0;
  for (size_t i = 0; i < m["tree"].size(); ++i)
    if (m["tree"][i]["path"] == "DDP_0/Model_0/Encoder_0/Block_3") block = i;
  EXPECT_EQ(npu::repeated_siblings(m, block), 4u);
  EXPECT_EQ(npu::module_label_text(m, block), "Block_3 (heaviest of 4 x Block)");
}

TEST(ModuleView, CoverageSaysWhatIsOutsideAndInGraphReplays) {
  json m = modules_doc(4);
  EXPECT_EQ(npu::module_coverage_text(m),
            "modules cover 80.0% of the step's device work (8.000 ms of 10.000 ms per step)");
  m["graph"] = {{"device_ns", 10'000'000}, {"share", 1.0}, {"mapped", false}};
  m["unjoined_ns"] = 500'000;
  EXPECT_EQ(npu::module_coverage_text(m),
            "modules cover 80.0% of the step's device work (8.000 ms of 10.000 ms per step); 5.0% of it is joined to "
            "no host launch; 100.0% of it runs in graph replays, not mapped to modules");
  EXPECT_EQ(npu::module_coverage_text(json()), "");
  EXPECT_EQ(npu::repeated_layer_text(m["repeated"][0]),
            "4 x Block in Encoder_0: median 1.500 ms (MAD 74 ns), 1.500 ms to 1.500 ms per step");
  EXPECT_NE(npu::repeated_layers_line(m, 2).find("; 18 more"), std::string::npos);
}

TEST(ModuleReport, HtmlHasTheIcicleTheTableAndTheRepeatedLayers) {
  json m = modules_doc(30);
  m["tree"][61]["path"] = "DDP_0/Model_0/Encoder_0/<script>alert(1)</script>";  // Block_29, in the table
  const std::string html = npu::render_html(report_with(m));
  EXPECT_NE(html.find("<section id=\"modules\" class=\"card\">"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#modules\">Modules</a>"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"icicle\""), std::string::npos);
  EXPECT_NE(html.find("modules cover 80.0% of the step&#39;s device work"), std::string::npos);
  EXPECT_NE(html.find("(the mean of 3 steps)"), std::string::npos);
  // 20 modules in the table, the heaviest first; hostile names escaped.
  const size_t table = html.find("<table class=\"sortable modules\"");
  ASSERT_NE(table, std::string::npos);
  const std::string rows = html.substr(table, html.find("</table>", table) - table);
  EXPECT_EQ(count(rows, "<tr>") - 1, 20u);
  ASSERT_NE(rows.find("<span class=\"mod-parents\">DDP_0/</span>Model_0<"), std::string::npos);
  EXPECT_LT(rows.find("Model_0</td>"), rows.find("Encoder_0</td>"));
  EXPECT_EQ(html.find("<script>alert(1)"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)"), std::string::npos);
  // Repeated layers: the first 8 and how many more.
  EXPECT_NE(html.find("<li>30 x Block in Encoder_0: median"), std::string::npos);
  EXPECT_NE(html.find("12 more in the JSON report"), std::string::npos);
  // The icicle's script is in the page.
  EXPECT_NE(html.find("npu-advisor HTML report: the module icicle"), std::string::npos);
}

TEST(ModuleReport, HtmlWithoutModulesSaysWhy) {
  json r = report_with(json());
  r["facts"]["unavailable"].push_back({{"fact", "modules"}, {"why", "no module ranges in the trace"}});
  const std::string html = npu::render_html(r);
  EXPECT_NE(html.find("<section id=\"modules\" class=\"card\">\n<h2>Modules</h2>\n<p class=\"na\">skipped: no module "
                      "ranges in the trace</p>\n</section>"),
            std::string::npos);
  // Graph replays only: the coverage and graph line, no table, why there is no tree.
  json m = modules_doc(2);
  m["tree"] = json::array();
  m["repeated"] = json::array();
  m["in_modules_ns"] = 0;
  m["outside_ns"] = 10'000'000;
  m["graph"] = {{"device_ns", 10'000'000}, {"share", 1.0}, {"mapped", false}};
  r = report_with(m);
  r["facts"]["unavailable"].push_back({{"fact", "modules.tree"}, {"why", "no module ranges in the trace"}});
  const std::string graph = npu::render_html(r);
  EXPECT_NE(graph.find("100.0% of it runs in graph replays, not mapped to modules"), std::string::npos);
  EXPECT_NE(graph.find("not available: no module ranges in the trace"), std::string::npos);
  EXPECT_EQ(graph.find("<table class=\"sortable modules"), std::string::npos);
  // Mistyped sections do not throw.
  for (const json& odd : {json("x"), json{{"tree", json::array({1, "x", json::object()})}, {"repeated", 3}}})
    EXPECT_NO_THROW(npu::render_html(report_with(odd)));
}

TEST(ModuleReport, MarkdownAndTerminalShowTheTopModules) {
  const json r = report_with(modules_doc(4));
  const std::string md = npu::render_markdown(r);
  EXPECT_NE(md.find("\n## Modules\n\nmodules cover 80.0% of the step's device work"), std::string::npos);
  EXPECT_NE(md.find("| DDP_0/Model_0 | 3 | 7.500 | 75.0% | 0.000 | 15.000 |"), std::string::npos);
  EXPECT_EQ(md.find("| DDP_0 |"), std::string::npos);  // the wrapper
  EXPECT_NE(md.find("Repeated layers: 4 x Block in Encoder_0"), std::string::npos);
  EXPECT_LT(md.find("## Modules"), md.find("## Findings"));

  const std::string term = npu::render_terminal(r, {});
  const size_t at = term.find("modules by device time per step: Model_0 7.500 ms (75.0%), Encoder_0 6.000 ms (60.0%)");
  ASSERT_NE(at, std::string::npos) << term;
  const std::string part = term.substr(at);
  EXPECT_NE(part.find("\n  modules cover 80.0%"), std::string::npos);
  EXPECT_NE(part.find("\n  repeated layers: 4 x Block in Encoder_0"), std::string::npos);
  EXPECT_LE(count(part, "\n"), 6u) << part;
  // Without the section: nothing in either.
  EXPECT_EQ(npu::render_terminal(report_with(json()), {}).find("modules"), std::string::npos);
  EXPECT_EQ(npu::render_markdown(report_with(json())).find("## Modules"), std::string::npos);
}

// Real runs: the sync run's module tree and the msinsight rank's reach every format.
TEST(ModuleReport, RealRunsCarryTheModuleView) {
  REQUIRE_REALDATA("kineto_h200/sync");
  const json r = npu::test::analyze_json(npu::test::real("kineto_h200/sync"));
  const json& m = r["facts"]["modules"];
  ASSERT_TRUE(m.is_object());
  EXPECT_EQ(m["tree"].size(), m["nodes_listed"].get<size_t>());
  EXPECT_LE(m["tree"].size(), npu::kReportModuleNodes);
  EXPECT_NE(npu::render_html(r).find("<div class=\"icicle\""), std::string::npos);
  EXPECT_NE(npu::render_terminal(r, {}).find("repeated layers: 24 x Sequential at the top level"), std::string::npos);
}
