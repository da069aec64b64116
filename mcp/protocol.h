// The Model Context Protocol (MCP) over JSON-RPC 2.0, one message a line (docs/mcp.md): the
// message checks, the lifecycle and the two protocol eras. Legacy revisions (2025-11-25 and
// earlier) open with `initialize`; the modern revision 2026-07-28 has no handshake: each request
// names its version in params._meta, and its results carry resultType (and cache hints). What the
// tools and resources do is the Handler's business (mcp/advisor_handler.h); this file knows only
// the protocol.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu::mcp {

// The revisions served, newest first.
const std::vector<std::string>& modern_versions();  // per-request _meta (2026-07-28)
const std::vector<std::string>& legacy_versions();  // `initialize` (2025-11-25 ... 2024-11-05)

// JSON-RPC error codes.
enum ErrorCode {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kResourceNotFound = -32002,            // legacy revisions; 2026-07-28 uses kInvalidParams
  kUnsupportedProtocolVersion = -32022,  // 2026-07-28
};

// A protocol error a handler raises (an unknown tool or resource): answered as a JSON-RPC error.
struct ProtocolError {
  int code;
  std::string message;
  nlohmann::json data;  // null: none
};

// A tool's result: JSON for the client, or an error for the model to read (isError: true).
struct ToolResult {
  nlohmann::json value;  // object: sent as text, and as structuredContent where the revision has it
  std::string error;     // not empty: the call failed, this says why
};

class Handler {
 public:
  virtual ~Handler() = default;
  virtual nlohmann::json tools() = 0;  // [{name, description, inputSchema}, ...]
  // Throws ProtocolError for an unknown tool; a failure of the tool itself is a ToolResult error.
  virtual ToolResult call_tool(const std::string& name, const nlohmann::json& arguments) = 0;
  virtual nlohmann::json resources() = 0;  // [{uri, name, mimeType, ...}, ...]
  // The contents of one resource ({uri, mimeType, text}); throws ProtocolError when unknown.
  virtual nlohmann::json read_resource(const std::string& uri) = 0;
};

struct ServerInfo {
  std::string name = "npu-advisor", title = "npu-advisor performance advisor", version = "0.0.0";
  std::string instructions;
};

class Server {
 public:
  Server(Handler& handler, ServerInfo info) : handler_(handler), info_(std::move(info)) {}
  // One message in (a line, without its newline); the reply to write as one line, or "" when
  // there is none (a notification, or a response from the client).
  std::string handle_line(std::string_view line);
  // The reply to a parsed message (null: none).
  nlohmann::json handle(const nlohmann::json& message);
  // The legacy revision agreed by `initialize` ("" before it).
  const std::string& negotiated_version() const { return legacy_version_; }
  // A line over the size limit (the transport's): the error to send back.
  static std::string too_long_reply(size_t limit);

 private:
  nlohmann::json dispatch(const std::string& method, const nlohmann::json& params, const std::string& modern);
  nlohmann::json initialize(const nlohmann::json& params);
  nlohmann::json discover() const;
  nlohmann::json call_tool(const nlohmann::json& params, bool structured);
  nlohmann::json read_resource(const nlohmann::json& params);

  Handler& handler_;
  ServerInfo info_;
  std::string legacy_version_;
};

// A JSON-RPC error response (id null when the request's id is unknown).
nlohmann::json error_response(const nlohmann::json& id, int code, const std::string& message,
                              const nlohmann::json& data = nullptr);
// A message as one line of text: compact, invalid UTF-8 from an input replaced (U+FFFD).
std::string message_line(const nlohmann::json& message);

}  // namespace npu::mcp
