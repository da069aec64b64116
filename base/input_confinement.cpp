#include "base/input_confinement.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <unistd.h>

#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

namespace npu {
namespace {

namespace fs = std::filesystem;

struct Root {
  std::string path;  // absolute, resolved, no trailing '/' (except "/")
  int fd = -1;       // O_PATH descriptor of the folder
};

// Set once, before any load (and before the parser threads start): read without a lock.
std::vector<Root>& roots() {
  static std::vector<Root> r;
  return r;
}
bool g_confined = false;
std::atomic<bool> g_openat2{true};  // cleared at the first ENOSYS (parser threads open files too)

// `path` made absolute and normalised by its spelling alone ("a/../b" is "b"; links are not read).
std::string normal_absolute(const std::string& path) {
  fs::path p(path);
  if (p.is_relative()) {
    std::error_code ec;
    p = fs::current_path(ec) / p;
  }
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// The allowed folder `abs` lies in, with the rest of the path below it ("." for the folder
// itself); nullptr when it lies in none. The longest folder wins (nested --allow folders).
const Root* root_of(const std::string& abs, std::string* rest) {
  const Root* best = nullptr;
  for (const Root& r : roots()) {
    if (best && best->path.size() >= r.path.size()) continue;
    if (abs == r.path) {
      best = &r;
      *rest = ".";
    } else if (r.path == "/" ? abs.size() > 1 && abs[0] == '/'
                             : abs.size() > r.path.size() && abs.compare(0, r.path.size(), r.path) == 0 &&
                                   abs[r.path.size()] == '/') {
      best = &r;
      *rest = abs.substr(r.path == "/" ? 1 : r.path.size() + 1);
    }
  }
  return best;
}

// Without openat2: one component at a time, no symbolic link followed (EXDEV, as a link that
// leads out would get), the last component opened with `flags`.
int open_walk(int root_fd, const std::string& rest, int flags) {
  int cur = ::fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
  size_t begin = 0;
  while (cur >= 0) {
    const size_t slash = rest.find('/', begin);
    const std::string part = rest.substr(begin, slash == std::string::npos ? std::string::npos : slash - begin);
    struct stat st {};
    if (part != "." && ::fstatat(cur, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      ::close(cur);
      errno = EXDEV;
      return -1;
    }
    const bool last = slash == std::string::npos;
    const int next = ::openat(cur, part.c_str(),
                              last ? flags | O_NOFOLLOW | O_CLOEXEC : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int err = errno;
    ::close(cur);
    errno = err;
    if (last || next < 0) return next;
    cur = next;
    begin = slash + 1;
  }
  return -1;
}

// `rest` opened beneath `root` (openat2 RESOLVE_BENEATH; the walk above without it).
int open_beneath(const Root& root, const std::string& rest, int flags) {
  if (!g_openat2) return open_walk(root.fd, rest, flags);
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const long fd = ::syscall(SYS_openat2, root.fd, rest.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno == ENOSYS || errno == EPERM) {  // no openat2 (or a seccomp filter that refuses it)
      g_openat2 = false;
      return open_walk(root.fd, rest, flags);
    }
    if (errno != EAGAIN) return -1;  // EAGAIN: a rename raced the lookup; the kernel asks to try again
  }
  return -1;
}

}  // namespace

void confine_inputs(const std::vector<std::string>& real_roots, bool use_openat2) {
  std::vector<Root> out;
  for (const auto& r : real_roots) {
    Root root{normal_absolute(r), ::open(r.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
    if (root.fd < 0) throw std::invalid_argument(r + ": not an existing folder");
    out.push_back(std::move(root));
  }
  for (Root& r : roots())
    if (r.fd >= 0) ::close(r.fd);
  roots() = std::move(out);
  g_openat2 = use_openat2;
  g_confined = true;
}

bool inputs_confined() { return g_confined; }

bool input_path_inside(const std::string& path) {
  if (!g_confined) return true;
  std::string rest;
  return root_of(normal_absolute(path), &rest) != nullptr;
}

int open_confined(const std::string& path, int flags) {
  if (!g_confined) return ::open(path.c_str(), flags | O_CLOEXEC);
  std::string rest;
  const Root* root = root_of(normal_absolute(path), &rest);
  if (!root) {
    errno = EXDEV;  // outside by its spelling: not looked at
    return -1;
  }
  const int fd = open_beneath(*root, rest, flags);
  if (fd >= 0 || errno != EXDEV) return fd;
  // A link that leads elsewhere (into another allowed folder; or any link, without openat2):
  // opened again where it leads now, beneath the folder that holds that. Whatever it leads to by
  // then, what opens lies beneath an allowed folder.
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  const Root* other = real ? root_of(real.get(), &rest) : nullptr;
  if (!other) {
    errno = EXDEV;
    return -1;
  }
  return open_beneath(*other, rest, flags);
}

std::vector<fs::path> list_input_dir(const fs::path& dir) {
  std::vector<fs::path> out;
  const int fd = open_confined(dir.string(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return out;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return out;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string_view n = e->d_name;
    if (n != "." && n != "..") out.push_back(dir / n);
  }
  ::closedir(d);
  return out;
}

}  // namespace npu
