// Every file the loaders open for reading in this process, by device and inode: the CLI
// checks each output file against it right before writing, so no flag of any command can
// overwrite what it read (a cluster member's trace, a facts file, a gate's baseline), however
// the path was spelled (symbolic or hard links, "..").
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

struct stat;

namespace npu {

// Records an opened input (thread-safe; the loaders read files from several threads).
void note_input_file(const struct stat& st);
// Opens `path` read-only as an input (beneath the allowed folders when inputs are confined,
// base/input_confinement.h): a regular file, recorded with note_input_file. Returns the
// descriptor (the caller closes it) and fills *st; throws LoadError naming the file otherwise.
int open_input_file(const std::string& path, struct stat* st);
// Closes a descriptor (one open_input_file returned, say) at the end of its scope; -1 is none.
struct FdCloser {
  explicit FdCloser(int d) : fd(d) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser();
  const int fd;
};
// True when `path` is (same device and inode as) a file opened as an input.
bool is_input_file(const std::string& path);

// The recorded inputs as (device, inode), and recording one so: a cluster's ranks are loaded in
// child processes (pipeline/child_processes.h), whose inputs the parent's output check must know.
std::vector<std::pair<uint64_t, uint64_t>> input_file_ids();
void note_input_file_id(uint64_t device, uint64_t inode);

}  // namespace npu
