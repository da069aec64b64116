// The folders the MCP server may read (`npu-advisor mcp --allow DIR`, docs/mcp.md). Every path a
// tool is given is resolved (realpath: symbolic links, "..", relative to the server's working
// folder) and must lie inside one of them; so must every symbolic link found below a folder
// given, so a link cannot lead a load outside. Nothing else is readable through a tool.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace npu::mcp {

// Why a path was refused, in words for the model to read.
class PathRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ResolvedPath {
  std::string real;         // the resolved path, to load (not the spelling given)
  std::string fingerprint;  // changes when the file, or a file below the folder, changes
};

class PathGuard {
 public:
  // Throws std::invalid_argument naming an allowed folder that is not an existing folder.
  explicit PathGuard(const std::vector<std::string>& allowed);
  const std::vector<std::string>& roots() const { return roots_; }
  // Throws PathRefused when `path` is missing, outside the allowed folders, or a folder with a
  // symbolic link below it that leads outside (or with more than `max_entries` entries to check).
  ResolvedPath resolve(const std::string& path) const;
  // Whether a resolved (real) path is an allowed folder or lies below one.
  bool inside(const std::string& real) const;

  size_t max_entries = 200000;

 private:
  std::string outside_message(const std::string& path) const;
  // Whether the symbolic link `link` leads (by its target, resolved as far as it exists) inside.
  bool link_stays_inside(const std::string& link) const;
  std::vector<std::string> roots_;
};

}  // namespace npu::mcp
