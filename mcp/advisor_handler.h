// The MCP server's tools and resources (docs/mcp.md): npu-advisor's pipeline behind the protocol
// (mcp/protocol.h). Every path a tool is given goes through the PathGuard first; the analyses of
// the last two paths are kept (by the path and a fingerprint of its files), so `facts` and
// `explain_finding` after `analyze` do not load the run again.
#pragma once
#include <list>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "mcp/path_guard.h"
#include "mcp/protocol.h"

namespace npu::mcp {

// A tool's arguments are wrong (a missing path, an unknown finding): the model reads why.
class ToolInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AdvisorHandler : public Handler {
 public:
  explicit AdvisorHandler(PathGuard guard) : guard_(std::move(guard)) {}
  nlohmann::json tools() override;
  ToolResult call_tool(const std::string& name, const nlohmann::json& arguments) override;
  nlohmann::json resources() override;
  nlohmann::json read_resource(const std::string& uri) override;
  const PathGuard& guard() const { return guard_; }

 private:
  nlohmann::json run_tool(const std::string& name, const nlohmann::json& args);
  // The report (docs/report.schema.json, facts included) of a run or cluster, from the cache
  // when its files have not changed.
  const nlohmann::json& report_of(const std::string& path);

  PathGuard guard_;
  struct Cached {
    std::string real, fingerprint;
    nlohmann::json report;
  };
  std::list<Cached> cache_;  // most recent first
};

// The tools' work (mcp/advisor_tools.cpp), on resolved paths and reports. Each throws
// ToolInputError for arguments that do not fit, LoadError for inputs that cannot be read.
namespace tools {
nlohmann::json analyze_report(const std::string& real_path);   // the full report, facts included
nlohmann::json analyze_summary(const nlohmann::json& report);  // what `analyze` returns: trimmed
nlohmann::json explain_finding(const nlohmann::json& report, const nlohmann::json& finding);
nlohmann::json compare_runs(const std::string& base, const std::string& next, bool keep_warmup);
nlohmann::json whatif(const std::string& real_path, const std::vector<std::string>& apply);
nlohmann::json list_rules(const std::string& id);
}  // namespace tools

}  // namespace npu::mcp
