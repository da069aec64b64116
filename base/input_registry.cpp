#include "base/input_registry.h"

#include <mutex>
#include <set>
#include <utility>

#include <sys/stat.h>

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

bool is_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  std::lock_guard<std::mutex> lock(g_mutex);
  return inputs().count({st.st_dev, st.st_ino}) > 0;
}

}  // namespace npu
