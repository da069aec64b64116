// Confinement of the inputs to a set of folders: once `confine_inputs` is called (the MCP server,
// `npu-advisor mcp --allow DIR`, docs/mcp.md), every file the loaders open, every folder they list
// and every SQLite database they read is opened beneath one of those folders by descriptor:
// openat2(RESOLVE_BENEATH) from the folder's own descriptor, so neither "..", a symbolic link
// leading out, nor a link swapped in after a check can reach a file outside; the descriptor the
// kernel checked is the one read. Where the kernel has no openat2 (before Linux 5.6) the path is
// walked a component at a time with O_NOFOLLOW; a symbolic link met on the way is resolved
// (realpath) and the path it leads to now walked again beneath the allowed folder holding it.
//
// A path outside is refused in the same words whether it exists or not, without looking at it:
// the refusal never tells what lies outside. Without confinement (the CLI) nothing changes: files
// open as the user named them.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace npu {

// The words every refusal of an outside path uses (a LoadError's message after the file name).
inline constexpr const char* kOutsideAllowed = "outside the folders this server may read: not read";

// Confines every later input open to `real_roots` (absolute, resolved folders). Throws
// std::invalid_argument naming a folder that cannot be opened. Called once, before any load.
// `use_openat2` false takes the walk even where the kernel has openat2 (the tests of the walk).
void confine_inputs(const std::vector<std::string>& real_roots, bool use_openat2 = true);
bool inputs_confined();

// Whether `path` lies (by its spelling, made absolute and normalised: nothing is looked at on
// disk) in or below an allowed folder. True for every path when inputs are not confined.
bool input_path_inside(const std::string& path);

// open(2) of an input under the confinement (plain open(2) without it). Returns the descriptor,
// or -1 with errno set; errno is EXDEV for a path outside the allowed folders, and for a path
// inside whose resolution leads out (a symbolic link or "..").
int open_confined(const std::string& path, int flags);

// The entries of folder `dir` (its paths joined to each name, in the folder's order, without "."
// and ".."), listed from a descriptor opened as open_confined opens: empty when it cannot be
// listed. What the loaders look into, so a folder swapped for a link out is not listed either.
std::vector<std::filesystem::path> list_input_dir(const std::filesystem::path& dir);

}  // namespace npu
