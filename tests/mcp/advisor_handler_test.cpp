// Every tool and resource of the MCP server (mcp/advisor_handler.h) on the shipped sample, through
// the protocol (mcp/protocol.h), in process.
#include "mcp/advisor_handler.h"

#include <filesystem>
#include <memory>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class Advisor : public ::testing::Test {
 protected:
  void SetUp() override {
    handler = std::make_unique<npu::mcp::AdvisorHandler>(
        npu::mcp::PathGuard({npu::test::source_dir() + "/testdata", dir.path().string()}));
    server = std::make_unique<npu::mcp::Server>(*handler, npu::mcp::ServerInfo{});
    server->handle_line(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
  }
  // The tool's JSON, or its error text as a string.
  json call(const std::string& name, const json& args) {
    json req = {
        {"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", name}, {"arguments", args}}}};
    json r = json::parse(server->handle_line(req.dump()));
    if (!r.contains("result")) return r;
    const std::string text = r["result"]["content"][0]["text"];
    return r["result"]["isError"] == true ? json(text) : json::parse(text);
  }
  std::string sample() const { return npu::test::source_dir() + "/testdata/sample"; }

  npu::test::TempDir dir;
  std::unique_ptr<npu::mcp::AdvisorHandler> handler;
  std::unique_ptr<npu::mcp::Server> server;
};

TEST_F(Advisor, ToolsListHasSchemas) {
  json r = json::parse(server->handle_line(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"));
  std::set<std::string> names;
  for (const auto& t : r["result"]["tools"]) {
    names.insert(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
    EXPECT_FALSE(t["description"].get<std::string>().empty());
  }
  EXPECT_EQ(names, (std::set<std::string>{"analyze", "facts", "explain_finding", "compare", "whatif", "list_rules"}));
}

TEST_F(Advisor, AnalyzeFactsExplain) {
  json a = call("analyze", {{"path", sample()}});
  ASSERT_TRUE(a.is_object()) << a;
  ASSERT_GE(a["findings"].size(), 3u);
  EXPECT_EQ(a["findings"][0]["rank"], 1);
  EXPECT_FALSE(a["findings"][0].contains("evidence"));  // trimmed: explain_finding has it
  EXPECT_GT(a["findings"][0]["evidence_items"], 0);
  EXPECT_NE(a["step_split"].get<std::string>().find("computing"), std::string::npos);
  EXPECT_EQ(a["input"]["kind"], "ascend run folder");
  EXPECT_GT(a["rules"]["fired"], 0);

  const std::string rule = a["findings"][0]["rule"];
  json e = call("explain_finding", {{"path", sample()}, {"finding", rule}});
  ASSERT_TRUE(e.is_object()) << e;
  const json& f = e["findings"][0];
  EXPECT_EQ(f["rule"], rule);
  ASSERT_FALSE(f["evidence"].empty());
  bool has_offset = false;
  for (const auto& ev : f["evidence"])
    has_offset |= ev.contains("file") && (ev.contains("byte") || ev.contains("line"));
  EXPECT_TRUE(has_offset);
  EXPECT_FALSE(f["how_the_saving_was_computed"]["in_words"].get<std::string>().empty());
  EXPECT_EQ(call("explain_finding", {{"path", sample()}, {"finding", 1}})["findings"][0]["rule"], rule);
  EXPECT_EQ(call("explain_finding", {{"path", sample()}, {"finding", "2"}})["findings"][0]["rank"], 2);
  json none = call("explain_finding", {{"path", sample()}, {"finding", "no.such_rule"}});
  ASSERT_TRUE(none.is_string());
  EXPECT_NE(none.get<std::string>().find(rule), std::string::npos);  // lists the findings there are

  json free = call("facts", {{"path", sample()}, {"facts_path", "/steps/0/free_ns"}});
  EXPECT_TRUE(free["value"].is_number_integer()) << free;
  EXPECT_EQ(free["unit"], "ns");
  json top = call("facts", {{"path", sample()}});
  EXPECT_TRUE(top.contains("keys"));
  EXPECT_TRUE(call("facts", {{"path", sample()}, {"facts_path", "/nope"}}).is_string());
}

TEST_F(Advisor, CompareWhatifRules) {
  json c = call("compare", {{"baseline", sample()}, {"new", sample()}});
  ASSERT_TRUE(c.is_object()) << c;
  EXPECT_TRUE(c.contains("step_time")) << c.dump().substr(0, 500);
  json w = call("whatif", {{"path", sample()}, {"apply", {"dataloader"}}});
  ASSERT_TRUE(w.is_object()) << w;
  EXPECT_TRUE(w.contains("transforms"));
  EXPECT_TRUE(w.contains("result"));
  json rules = call("list_rules", json::object());
  EXPECT_GT(rules["rules"].size(), 10u);
  json one = call("list_rules", {{"id", "dispatch.host_bound"}});
  ASSERT_EQ(one["rules"].size(), 1u);
  EXPECT_TRUE(one["rules"][0]["options"].is_object());
  EXPECT_TRUE(call("list_rules", {{"id", "x.y"}}).is_string());
}

TEST_F(Advisor, ArgumentsAndPathsAreChecked) {
  EXPECT_NE(call("analyze", json::object()).get<std::string>().find("missing"), std::string::npos);
  EXPECT_NE(call("analyze", {{"path", 3}}).get<std::string>().find("must be"), std::string::npos);
  EXPECT_NE(call("analyze", {{"path", sample()}, {"x", 1}}).get<std::string>().find("unknown argument"),
            std::string::npos);
  EXPECT_NE(call("whatif", {{"path", sample()}, {"apply", {1}}}).get<std::string>().find("must be"), std::string::npos);
  EXPECT_NE(call("whatif", {{"path", sample()}, {"apply", {"faster"}}}).get<std::string>().find("unknown \"faster\""),
            std::string::npos);
  const std::string out = call("analyze", {{"path", npu::test::source_dir() + "/README.md"}});
  EXPECT_EQ(out.rfind("refused: ", 0), 0u) << out;
  // A symbolic link inside an allowed folder that leads outside it.
  fs::create_symlink(npu::test::source_dir() + "/docs", dir.path() / "docs");
  EXPECT_NE(call("facts", {{"path", (dir.path() / "docs").string()}}).get<std::string>().find("outside"),
            std::string::npos);
  EXPECT_NE(call("compare", {{"baseline", sample()}, {"new", "/etc"}}).get<std::string>().find("outside"),
            std::string::npos);
  EXPECT_EQ(call("no_such_tool", json::object())["error"]["code"], -32602);
  // Something that is not a profiler output is a tool error naming it, not a crash.
  dir.write("junk/readme.txt", "hello");
  EXPECT_EQ(call("analyze", {{"path", (dir.path() / "junk").string()}}).get<std::string>().rfind("cannot load: ", 0),
            0u);
}

TEST_F(Advisor, Resources) {
  json r = json::parse(server->handle_line(R"({"jsonrpc":"2.0","id":1,"method":"resources/list"})"));
  std::set<std::string> uris;
  for (const auto& x : r["result"]["resources"]) uris.insert(x["uri"]);
  for (const char* u : {"npu-advisor://docs/mcp.md", "npu-advisor://docs/facts.md",
                        "npu-advisor://docs/report.schema.json", "npu-advisor://facts-schema/steps.json"}) {
    ASSERT_TRUE(uris.count(u)) << u;
    json req = {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "resources/read"}, {"params", {{"uri", u}}}};
    json c = json::parse(server->handle_line(req.dump()))["result"]["contents"][0];
    EXPECT_EQ(c["uri"], u);
    EXPECT_FALSE(c["text"].get<std::string>().empty());
  }
}

}  // namespace
