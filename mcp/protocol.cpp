#include "mcp/protocol.h"

#include <algorithm>
#include <new>

#include "base/json_file.h"
#include "base/text.h"

namespace npu::mcp {

using json = nlohmann::json;

namespace {

constexpr const char* kVersionKey = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kServerInfoKey = "io.modelcontextprotocol/serverInfo";
// A tool's text is cut past this, and says so (a client's context is not the place for a whole
// facts document: ask for a part of it).
constexpr size_t kMaxToolText = 256 * 1024;
// How long a client may keep a list or a resource (2026-07-28 cache hints): they are compiled in.
constexpr int64_t kCacheTtlMs = 3600 * 1000;

bool listed(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

json all_versions() {
  json v = modern_versions();
  for (const auto& s : legacy_versions()) v.push_back(s);
  return v;
}

void add_cache_hints(json& result) {
  result["ttlMs"] = kCacheTtlMs;
  result["cacheScope"] = "public";
}

}  // namespace

const std::vector<std::string>& modern_versions() {
  static const std::vector<std::string> v = {"2026-07-28"};
  return v;
}

const std::vector<std::string>& legacy_versions() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return v;
}

json error_response(const json& id, int code, const std::string& message, const json& data) {
  json e = {{"code", code}, {"message", message}};
  if (!data.is_null()) e["data"] = data;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(e)}};
}

std::string message_line(const json& message) { return message.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string Server::too_long_reply(size_t limit) {
  return message_line(
      error_response(nullptr, kInvalidRequest, "message longer than " + std::to_string(limit) + " bytes: not read"));
}

std::string Server::handle_line(std::string_view line) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return "";  // a blank line: nothing
  size_t too_deep = std::string_view::npos;
  json m = parse_json_or_discard(line, &too_deep);
  if (m.is_discarded())
    return message_line(error_response(
        nullptr, kParseError,
        too_deep != std::string_view::npos
            ? "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels at byte " + std::to_string(too_deep)
            : std::string("not valid JSON")));
  json reply = handle(m);
  return reply.is_null() ? "" : message_line(reply);
}

json Server::handle(const json& m) {
  if (m.is_array()) return error_response(nullptr, kInvalidRequest, "batches are not supported: one message a line");
  if (!m.is_object()) return error_response(nullptr, kInvalidRequest, "a message is a JSON object");
  const bool has_id = m.contains("id");
  const json id = has_id ? m["id"] : json();
  if (has_id && !id.is_string() && !id.is_number_integer())
    return error_response(nullptr, kInvalidRequest, "id must be a string or an integer");
  if (m.value("jsonrpc", json()) != "2.0") return error_response(id, kInvalidRequest, "jsonrpc must be \"2.0\"");
  if (!m.contains("method")) {
    if (has_id && (m.contains("result") || m.contains("error"))) return nullptr;  // we send no requests
    return error_response(id, kInvalidRequest, "a request needs a method");
  }
  if (!m["method"].is_string()) return error_response(id, kInvalidRequest, "method must be a string");
  const std::string method = m["method"];
  const json params = m.value("params", json::object());
  // A notification (notifications/initialized, notifications/cancelled: the calls run one at a time,
  // so there is nothing to cancel) is never answered.
  if (!has_id) return nullptr;
  if (!params.is_object()) return error_response(id, kInvalidParams, "params must be an object");

  // The era of this request: a version in _meta (2026-07-28: no handshake), else the session's.
  std::string modern;
  const json meta = params.value("_meta", json());
  if (meta.is_object() && meta.contains(kVersionKey)) {
    const json& v = meta[kVersionKey];
    const std::string requested = v.is_string() ? v.get<std::string>() : v.dump();
    if (listed(modern_versions(), requested)) modern = requested;
    else if (!listed(legacy_versions(), requested))
      return error_response(id, kUnsupportedProtocolVersion, "Unsupported protocol version",
                            {{"supported", all_versions()}, {"requested", v}});
  } else if (legacy_version_.empty() && method != "initialize" && method != "ping" && method != "server/discover") {
    return error_response(id, kInvalidRequest,
                          "not initialized: send initialize first (or, with protocol 2026-07-28, the version in "
                          "params._meta)");
  }
  try {
    json result = dispatch(method, params, modern);
    if (!modern.empty() || method == "server/discover") {
      result["resultType"] = "complete";
      result["_meta"][kServerInfoKey] = {{"name", info_.name}, {"version", info_.version}};
    }
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
  } catch (const ProtocolError& e) {
    // 2026-07-28 answers an unknown resource as invalid params.
    const int code = e.code == kResourceNotFound && !modern.empty() ? kInvalidParams : e.code;
    return error_response(id, code, e.message, e.data);
  } catch (const std::bad_alloc&) {
    return error_response(id, kInternalError, "out of memory");
  } catch (const std::exception& e) {
    return error_response(id, kInternalError, std::string("internal error: ") + e.what());
  }
}

json Server::dispatch(const std::string& method, const json& params, const std::string& modern) {
  const bool is_modern = !modern.empty();
  if (method == "initialize") return initialize(params);
  if (method == "server/discover") return discover();
  if (method == "ping") return json::object();
  json result;
  if (method == "tools/list") {
    result = {{"tools", handler_.tools()}};
  } else if (method == "tools/call") {
    // structuredContent is 2025-06-18 and later (the versions sort as dates).
    return call_tool(params, is_modern || legacy_version_ >= "2025-06-18");
  } else if (method == "resources/list") {
    result = {{"resources", handler_.resources()}};
  } else if (method == "resources/templates/list") {
    result = {{"resourceTemplates", json::array()}};
  } else if (method == "resources/read") {
    result = read_resource(params);
  } else {
    throw ProtocolError{kMethodNotFound, "method not found: " + method, nullptr};
  }
  if (is_modern) add_cache_hints(result);
  return result;
}

json Server::initialize(const json& params) {
  if (!legacy_version_.empty()) throw ProtocolError{kInvalidRequest, "already initialized", nullptr};
  const json v = params.value("protocolVersion", json());
  if (!v.is_string())
    throw ProtocolError{kInvalidParams, "initialize needs params.protocolVersion (a string)", nullptr};
  // The client's revision when it is one of ours, else our newest one with a handshake.
  legacy_version_ = listed(legacy_versions(), v.get<std::string>()) ? v.get<std::string>() : legacy_versions()[0];
  json result = {{"protocolVersion", legacy_version_},
                 {"capabilities", {{"tools", json::object()}, {"resources", json::object()}}},
                 {"serverInfo", {{"name", info_.name}, {"title", info_.title}, {"version", info_.version}}}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return result;
}

json Server::discover() const {
  json result = {{"supportedVersions", all_versions()},
                 {"capabilities", {{"tools", json::object()}, {"resources", json::object()}}}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  add_cache_hints(result);
  return result;
}

json Server::call_tool(const json& params, bool structured) {
  const json name = params.value("name", json());
  if (!name.is_string()) throw ProtocolError{kInvalidParams, "tools/call needs params.name (a string)", nullptr};
  const json args = params.value("arguments", json::object());
  if (!args.is_object()) throw ProtocolError{kInvalidParams, "params.arguments must be an object", nullptr};
  ToolResult r = handler_.call_tool(name.get<std::string>(), args);
  if (!r.error.empty()) return {{"content", json::array({{{"type", "text"}, {"text", r.error}}})}, {"isError", true}};
  std::string text = message_line(r.value);
  const bool cut = text.size() > kMaxToolText;
  if (cut) {
    const size_t total = text.size();
    text.resize(text::utf8_prefix(text, kMaxToolText));
    text += "\n[cut: the result is " + std::to_string(total) + " bytes, only the first " + std::to_string(text.size()) +
            " are shown; ask for less (a facts path, one finding)]";
  }
  json result = {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})}, {"isError", false}};
  if (structured && !cut && r.value.is_object()) result["structuredContent"] = std::move(r.value);
  return result;
}

json Server::read_resource(const json& params) {
  const json uri = params.value("uri", json());
  if (!uri.is_string()) throw ProtocolError{kInvalidParams, "resources/read needs params.uri (a string)", nullptr};
  return {{"contents", json::array({handler_.read_resource(uri.get<std::string>())})}};
}

}  // namespace npu::mcp
