#include "base/input_registry.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <unistd.h>
#include <utility>

#include <sys/stat.h>

#include "base/input_confinement.h"
#include "base/load_error.h"

namespace npu {
namespace {

std::mutex g_mutex;
std::set<std::pair<dev_t, ino_t>>& inputs() {
  static std::set<std::pair<dev_t, ino_t>> s;
  return s;
}

}  // namespace

void note_input_file(const struct stat& st) {
  std::lock_guard<std::mutex> lock(g_mutex);
  inputs().emplace(st.st_dev, st.st_ino);
}

int open_input_file(const std::string& path, struct stat* st) {
  // O_NONBLOCK: a FIFO put where a file was (after the loader looked) is refused below, not
  // waited on; it changes nothing for a regular file.
  int fd = open_confined(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0 && errno == EXDEV) throw LoadError::whole_file(path, kOutsideAllowed);
  if (fd < 0) throw LoadError::whole_file(path, std::string("cannot open: ") + std::strerror(errno));
  if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
    close(fd);
    throw LoadError::whole_file(path, "not a regular file");
  }
  note_input_file(*st);
  return fd;
}

FdCloser::~FdCloser() {
  if (fd >= 0) ::close(fd);
}

bool is_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  std::lock_guard<std::mutex> lock(g_mutex);
  return inputs().count({st.st_dev, st.st_ino}) > 0;
}

std::vector<std::pair<uint64_t, uint64_t>> input_file_ids() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [dev, ino] : inputs()) out.emplace_back(dev, ino);
  return out;
}

void note_input_file_id(uint64_t device, uint64_t inode) {
  std::lock_guard<std::mutex> lock(g_mutex);
  inputs().emplace(static_cast<dev_t>(device), static_cast<ino_t>(inode));
}

}  // namespace npu
