// The MCP server's JSON-RPC handling (mcp/protocol.h) with a stand-in handler: the message
// checks, the legacy handshake and the 2026-07-28 per-request version, errors and tool results.
#include "mcp/protocol.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
using npu::mcp::ProtocolError;
using npu::mcp::Server;
using npu::mcp::ToolResult;

class FakeHandler : public npu::mcp::Handler {
 public:
  json tools() override { return json::array({{{"name", "echo"}, {"inputSchema", {{"type", "object"}}}}}); }
  ToolResult call_tool(const std::string& name, const json& args) override {
    if (name == "big") return {{{"text", std::string(300 * 1024, 'x')}}, ""};
    if (name == "fail") return {json(), "it failed"};
    if (name != "echo") throw ProtocolError{npu::mcp::kInvalidParams, "unknown tool: " + name, nullptr};
    return {{{"echo", args}}, ""};
  }
  json resources() override { return json::array({{{"uri", "x://a"}, {"name", "a"}}}); }
  json read_resource(const std::string& uri) override {
    if (uri != "x://a") throw ProtocolError{npu::mcp::kResourceNotFound, "unknown resource", {{"uri", uri}}};
    return {{"uri", uri}, {"mimeType", "text/plain"}, {"text", "A"}};
  }
};

class Protocol : public ::testing::Test {
 protected:
  json send(const json& m) {
    std::string line = server.handle_line(m.dump());
    return line.empty() ? json() : json::parse(line);
  }
  json request(const std::string& method, json params = json::object(), json id = 1) {
    return send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  }
  void initialize(const std::string& version = "2025-11-25") {
    json r = request("initialize", {{"protocolVersion", version},
                                    {"capabilities", json::object()},
                                    {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    ASSERT_TRUE(r.contains("result")) << r;
    EXPECT_TRUE(send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).is_null());
  }
  static json modern_meta(const std::string& v = "2026-07-28") {
    return {{"_meta", {{"io.modelcontextprotocol/protocolVersion", v}}}};
  }
  FakeHandler handler;
  Server server{handler, npu::mcp::ServerInfo{"npu-advisor", "t", "9.9", "use it"}};
};

TEST_F(Protocol, InitializeAgreesOnTheClientsVersionOrOurLatest) {
  json r = request("initialize", {{"protocolVersion", "2025-06-18"}});
  EXPECT_EQ(r["id"], 1);
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "npu-advisor");
  EXPECT_EQ(r["result"]["serverInfo"]["version"], "9.9");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  EXPECT_TRUE(r["result"]["capabilities"].contains("resources"));
  EXPECT_EQ(r["result"]["instructions"], "use it");
  EXPECT_EQ(request("initialize", {{"protocolVersion", "2025-06-18"}})["error"]["code"], -32600);  // only once

  Server other(handler, {});
  json r2 = json::parse(other.handle_line(
      R"({"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2099-01-01"}})"));
  EXPECT_EQ(r2["id"], "a");
  EXPECT_EQ(r2["result"]["protocolVersion"], npu::mcp::legacy_versions()[0]);
  EXPECT_EQ(
      json::parse(other.handle_line(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{}})"))["error"]["code"],
      -32600);
}

TEST_F(Protocol, InitializeWithoutVersionIsInvalidParams) {
  EXPECT_EQ(request("initialize", json::object())["error"]["code"], -32602);
}

TEST_F(Protocol, JsonRpcErrors) {
  EXPECT_EQ(json::parse(server.handle_line("{not json"))["error"]["code"], -32700);
  EXPECT_TRUE(json::parse(server.handle_line("{not json"))["id"].is_null());
  EXPECT_EQ(json::parse(server.handle_line(std::string(300, '[') + std::string(300, ']')))["error"]["code"], -32700);
  EXPECT_EQ(json::parse(server.handle_line("[]"))["error"]["code"], -32600);  // batches
  EXPECT_EQ(json::parse(server.handle_line("42"))["error"]["code"], -32600);
  EXPECT_EQ(send({{"id", 1}, {"method", "ping"}})["error"]["code"], -32600);  // no jsonrpc
  EXPECT_EQ(send({{"jsonrpc", "2.0"}, {"id", 1.5}, {"method", "ping"}})["error"]["code"], -32600);
  EXPECT_EQ(send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", 7}})["error"]["code"], -32600);
  EXPECT_EQ(send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}, {"params", 3}})["error"]["code"], -32602);
  EXPECT_EQ(server.handle_line(""), "");
  initialize();
  EXPECT_EQ(request("prompts/list")["error"]["code"], -32601);
  EXPECT_EQ(request("no/such")["error"]["code"], -32601);
  EXPECT_TRUE(send({{"jsonrpc", "2.0"}, {"method", "no/such/notification"}}).is_null());     // never answered
  EXPECT_TRUE(send({{"jsonrpc", "2.0"}, {"id", 9}, {"result", json::object()}}).is_null());  // a response
  json tl = json::parse(Server::too_long_reply(10));
  EXPECT_EQ(tl["error"]["code"], -32600);
}

TEST_F(Protocol, RequestsBeforeInitializeAreRefusedButPing) {
  EXPECT_EQ(request("tools/list")["error"]["code"], -32600);
  EXPECT_EQ(request("ping")["result"], json::object());
  initialize();
  EXPECT_EQ(request("tools/list")["result"]["tools"][0]["name"], "echo");
  EXPECT_FALSE(request("tools/list")["result"].contains("resultType"));  // a legacy result
}

TEST_F(Protocol, ToolsCall) {
  initialize();
  json ok = request("tools/call", {{"name", "echo"}, {"arguments", {{"a", 1}}}}, "s1");
  EXPECT_EQ(ok["id"], "s1");
  EXPECT_EQ(ok["result"]["isError"], false);
  EXPECT_EQ(json::parse(ok["result"]["content"][0]["text"].get<std::string>())["echo"]["a"], 1);
  EXPECT_EQ(ok["result"]["structuredContent"]["echo"]["a"], 1);
  json failed = request("tools/call", {{"name", "fail"}});
  EXPECT_EQ(failed["result"]["isError"], true);
  EXPECT_EQ(failed["result"]["content"][0]["text"], "it failed");
  EXPECT_EQ(request("tools/call", {{"name", "nope"}})["error"]["code"], -32602);
  EXPECT_EQ(request("tools/call", json::object())["error"]["code"], -32602);
  EXPECT_EQ(request("tools/call", {{"name", "echo"}, {"arguments", json::array()}})["error"]["code"], -32602);
  json big = request("tools/call", {{"name", "big"}});
  const std::string text = big["result"]["content"][0]["text"];
  EXPECT_LT(text.size(), 257 * 1024u);
  EXPECT_NE(text.find("[cut: the result is"), std::string::npos);
  EXPECT_FALSE(big["result"].contains("structuredContent"));
}

TEST_F(Protocol, NoStructuredContentBefore20250618) {
  initialize("2025-03-26");
  EXPECT_FALSE(request("tools/call", {{"name", "echo"}})["result"].contains("structuredContent"));
}

TEST_F(Protocol, Resources) {
  initialize();
  EXPECT_EQ(request("resources/list")["result"]["resources"][0]["uri"], "x://a");
  EXPECT_EQ(request("resources/templates/list")["result"]["resourceTemplates"], json::array());
  EXPECT_EQ(request("resources/read", {{"uri", "x://a"}})["result"]["contents"][0]["text"], "A");
  json missing = request("resources/read", {{"uri", "x://b"}});
  EXPECT_EQ(missing["error"]["code"], -32002);
  EXPECT_EQ(missing["error"]["data"]["uri"], "x://b");
  EXPECT_EQ(request("resources/read", json::object())["error"]["code"], -32602);
}

TEST_F(Protocol, ModernRequestsNeedNoHandshake) {
  json d = request("server/discover", modern_meta());
  EXPECT_EQ(d["result"]["resultType"], "complete");
  EXPECT_EQ(d["result"]["supportedVersions"][0], "2026-07-28");
  EXPECT_TRUE(d["result"]["capabilities"].contains("tools"));
  EXPECT_EQ(d["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "npu-advisor");
  EXPECT_GT(d["result"]["ttlMs"], 0);
  EXPECT_EQ(d["result"]["cacheScope"], "public");

  json meta = modern_meta();
  json tl = request("tools/list", meta);
  EXPECT_EQ(tl["result"]["resultType"], "complete");
  EXPECT_EQ(tl["result"]["tools"][0]["name"], "echo");
  EXPECT_TRUE(tl["result"].contains("ttlMs"));
  json call = request("tools/call", {{"_meta", meta["_meta"]}, {"name", "echo"}});
  EXPECT_EQ(call["result"]["resultType"], "complete");
  EXPECT_FALSE(call["result"].contains("ttlMs"));  // not a cacheable result
  EXPECT_TRUE(call["result"].contains("structuredContent"));
  json rr = request("resources/read", {{"_meta", meta["_meta"]}, {"uri", "x://a"}});
  EXPECT_TRUE(rr["result"].contains("ttlMs"));
  // An unknown resource is invalid params on 2026-07-28.
  EXPECT_EQ(request("resources/read", {{"_meta", meta["_meta"]}, {"uri", "x://b"}})["error"]["code"], -32602);
  EXPECT_EQ(server.negotiated_version(), "");  // no session was opened
}

TEST_F(Protocol, UnsupportedModernVersion) {
  json r = request("tools/list", modern_meta("1900-01-01"));
  EXPECT_EQ(r["error"]["code"], -32022);
  EXPECT_EQ(r["error"]["data"]["requested"], "1900-01-01");
  EXPECT_EQ(r["error"]["data"]["supported"][0], "2026-07-28");
  EXPECT_EQ(request("server/discover", modern_meta("2999-01-01"))["error"]["code"], -32022);
}

}  // namespace
