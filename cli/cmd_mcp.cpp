// `npu-advisor mcp --allow DIR...`: the Model Context Protocol server on stdin/stdout (docs/mcp.md).
#include "cli/commands.h"
#include "mcp/stdio_server.h"

#ifndef NPU_ADVISOR_VERSION
#define NPU_ADVISOR_VERSION "0.0.0"
#endif

namespace npu::cli {

int cmd_mcp(const std::vector<std::string>& allow) { return mcp::serve_stdio({allow, NPU_ADVISOR_VERSION}); }

}  // namespace npu::cli
