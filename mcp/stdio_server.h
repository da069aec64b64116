// `npu-advisor mcp --allow DIR...`: the MCP server on stdin/stdout (docs/mcp.md). Messages are
// read one a line; stdout carries only replies (anything else the process writes there goes to
// stderr). The process writes files only in a private temporary folder (TMPDIR points into it),
// removed when it ends, however it ends: a small watcher process removes it once the server is
// gone, even after SIGKILL.
#pragma once
#include <string>
#include <vector>

namespace npu::mcp {

struct StdioOptions {
  std::vector<std::string> allow;  // --allow DIR (at least one)
  std::string version;             // the program's, for serverInfo
};

// Serves until stdin ends (exit code 0), or returns 2 after printing why it cannot start (an
// allowed folder that is not one, no temporary folder).
int serve_stdio(const StdioOptions& options);

// The largest message read; a longer line is answered with an error and skipped.
constexpr size_t kMaxMessageBytes = 4 * 1024 * 1024;

}  // namespace npu::mcp
