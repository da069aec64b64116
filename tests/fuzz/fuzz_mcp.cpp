// libFuzzer target: the MCP server's request path (docs/mcp.md). The input is one JSON-RPC line
// as a client would send it, through the protocol (mcp/protocol.h), the tools' argument checks
// and the folder guard (mcp/advisor_handler.cpp, mcp/path_guard.cpp), to the confined input
// open (base/input_confinement.h), with the analysis replaced by a stand-in that reads every
// file of the path it is given (the loaders have fuzzers of their own).
//
// In the input, "@A" stands for the allowed folder and "@S" for a folder beside it holding a
// secret file (and the allowed folder holds a link leading to it). Oracles beyond "no crash,
// no exception out of the server":
//   mcp-reply    every reply is one line of JSON (or nothing, for a notification)
//   mcp-secret   no reply holds the secret file's text
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/byte_source.h"
#include "base/input_confinement.h"
#include "base/load_error.h"
#include "fuzz_util.h"
#include "mcp/advisor_handler.h"

namespace npu {
// The documents the server embeds (generated in the real build): two small ones here.
std::string_view mcp_doc(std::string_view name) { return name == "facts.md" ? "# facts\n" : ""; }
std::vector<std::string_view> mcp_doc_names() { return {"facts.md"}; }
}  // namespace npu

namespace npu::mcp::tools {
namespace {
using json = nlohmann::json;

// What a load would read of `path`: every regular file of a folder (one level) or the file.
json read_all(const std::string& path) {
  namespace fs = std::filesystem;
  json files = json::object();
  std::error_code ec;
  std::vector<std::string> paths;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec)) paths.push_back(e.path().string());
  } else {
    paths.push_back(path);
  }
  for (const auto& p : paths) {
    try {
      files[p] = read_small_file(p);
    } catch (const LoadError& e) {
      files[p] = std::string("error: ") + e.what();
    }
  }
  return files;
}
}  // namespace

json analyze_report(const std::string& real_path) {
  return {{"facts", {{"files", read_all(real_path)}, {"steps", json::array()}}}, {"findings", json::array()}};
}
json analyze_summary(const json& report) { return report; }
json explain_finding(const json& report, const json& finding) {
  return {{"finding", finding}, {"n", report["findings"].size()}};
}
json compare_runs(const std::string& base, const std::string& next, bool) {
  return {{"base", read_all(base)}, {"new", read_all(next)}};
}
json whatif(const std::string& real_path, const std::vector<std::string>&) { return read_all(real_path); }
json list_rules(const std::string& id) { return {{"rules", json::array()}, {"id", id}}; }

}  // namespace npu::mcp::tools

namespace {

constexpr const char* kSecret = "SECRET-4f1d9c";

struct Setup {
  std::string allowed, secret;
  std::unique_ptr<npu::mcp::AdvisorHandler> handler;
  std::unique_ptr<npu::mcp::Server> server;

  Setup() {
    namespace fs = std::filesystem;
    const char* tmp = std::getenv("TMPDIR");
    const fs::path base = fs::path(tmp && *tmp ? tmp : "/tmp") / ("npu_fuzz_mcp_" + std::to_string(getpid()));
    fs::create_directories(base / "allowed/run");
    fs::create_directories(base / "allowed/linked");
    fs::create_directories(base / "secret");
    allowed = (base / "allowed").string();
    secret = (base / "secret").string();
    std::ofstream(base / "secret/s.json") << "{\"" << kSecret << "\": 1}";
    std::ofstream(base / "allowed/run/t.json") << "{\"traceEvents\": []}";
    std::error_code ec;
    fs::create_symlink(base / "secret/s.json", base / "allowed/linked/out.json", ec);
    fs::create_symlink("../../secret", base / "allowed/linked/up", ec);
    static const std::string remove_at_exit = base.string();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(remove_at_exit, ec);
    });
    npu::confine_inputs({allowed});
    handler = std::make_unique<npu::mcp::AdvisorHandler>(npu::mcp::PathGuard({allowed}));
    server = std::make_unique<npu::mcp::Server>(*handler, npu::mcp::ServerInfo{});
    server->handle_line(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
  }
};

// `s` with every "@A" and "@S" replaced by the folders' paths.
std::string expand(std::string s, const Setup& st) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"@A", st.allowed}, {"@S", st.secret}})
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Setup setup;
  const std::string line = expand(std::string(reinterpret_cast<const char*>(data), size), setup);
  const std::string reply = setup.server->handle_line(line);
  if (reply.empty()) return 0;
  if (npu_fuzz::enabled("mcp-reply") &&
      (reply.find('\n') != std::string::npos || nlohmann::json::parse(reply, nullptr, false).is_discarded()))
    npu_fuzz::finding("the reply is not one line of JSON: " + reply.substr(0, 300));
  if (npu_fuzz::enabled("mcp-secret") && reply.find(kSecret) != std::string::npos &&
      line.find(kSecret) == std::string::npos)  // not an echo of the request
    npu_fuzz::finding("a reply holds the secret file's text: " + line.substr(0, 300));
  return 0;
}
