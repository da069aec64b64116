#include "mcp/path_guard.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>

#include <sys/stat.h>

namespace npu::mcp {

namespace fs = std::filesystem;

namespace {

// realpath(3): "" when the path cannot be resolved (errno says why).
std::string real_path(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> r(::realpath(path.c_str(), nullptr), &std::free);
  return r ? std::string(r.get()) : std::string();
}

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

PathGuard::PathGuard(const std::vector<std::string>& allowed) {
  for (const auto& a : allowed) {
    std::string r = real_path(a);
    struct stat st {};
    if (r.empty() || ::stat(r.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw std::invalid_argument(a + ": not an existing folder");
    roots_.push_back(r);
  }
}

bool PathGuard::link_stays_inside(const std::string& link) const {
  std::error_code ec;
  const fs::path target = fs::read_symlink(link, ec);
  if (ec) return false;
  // Where it points by its spelling (from the link's folder), and where it resolves now.
  const fs::path spelled = (target.is_absolute() ? target : fs::path(link).parent_path() / target).lexically_normal();
  const std::string resolved = fs::weakly_canonical(spelled, ec).string();
  return !ec && inside(resolved);
}

bool PathGuard::inside(const std::string& real) const {
  for (const auto& root : roots_) {
    if (real == root) return true;
    const std::string prefix = root == "/" ? root : root + "/";
    if (real.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

std::string PathGuard::outside_message(const std::string& path) const {
  std::string list;
  for (const auto& r : roots_) list += (list.empty() ? "" : ", ") + r;
  return path + " is outside the folders this server may read (" + list + ")";
}

ResolvedPath PathGuard::resolve(const std::string& path) const {
  if (path.empty()) throw PathRefused("no path given");
  if (path.find('\0') != std::string::npos) throw PathRefused("a path cannot hold a NUL character");
  const std::string real = real_path(path);
  if (real.empty()) {
    const int err = errno;
    // Whether something exists outside is not said: a path whose existing part does not lie below
    // an allowed folder is refused as outside, found or not.
    std::error_code ec;
    const std::string nearest = fs::weakly_canonical(path, ec).string();  // its existing part resolved
    if (ec || !inside(nearest)) throw PathRefused(outside_message(path));
    // A broken link on the way (weakly_canonical stops there) that points out is refused as an
    // outside path, as it would be if what it points to existed.
    fs::path prefix;
    for (const auto& part : fs::absolute(path, ec).lexically_normal()) {
      prefix /= part;
      struct stat lst {};
      if (::lstat(prefix.c_str(), &lst) != 0) break;
      if (S_ISLNK(lst.st_mode) && !link_stays_inside(prefix.string())) throw PathRefused(outside_message(path));
    }
    throw PathRefused(path + ": " + std::strerror(err));
  }
  // Where an outside path leads is not said either (that would tell it exists).
  if (!inside(real)) throw PathRefused(outside_message(path));

  struct stat st {};
  if (::stat(real.c_str(), &st) != 0) throw PathRefused(path + ": " + std::strerror(errno));
  ResolvedPath out{real, ""};
  if (!S_ISDIR(st.st_mode)) {
    out.fingerprint = std::to_string(st.st_size) + ":" + std::to_string(mtime_ns(st));
    return out;
  }
  // A folder: every symbolic link below it must stay inside too, and a link to a folder is
  // followed (once) as the loaders would; the sizes and times of its files make the fingerprint.
  uint64_t count = 0, bytes = 0;
  int64_t newest = mtime_ns(st);
  std::set<std::string> seen = {real};
  std::vector<std::string> folders = {real};
  while (!folders.empty()) {
    const std::string folder = folders.back();
    folders.pop_back();
    std::error_code ec;
    for (fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (++count > max_entries)
        throw PathRefused(path + " holds more than " + std::to_string(max_entries) + " files and folders to check");
      const std::string entry = it->path().string();
      struct stat est {};
      if (::lstat(entry.c_str(), &est) != 0) continue;
      std::string dir;  // a folder to look into
      if (S_ISLNK(est.st_mode)) {
        // Refused by where the link points, whether or not anything is there: a broken link out
        // and a link to an outside file get the same answer.
        if (!link_stays_inside(entry))
          throw PathRefused(path + " holds a symbolic link " + entry +
                            " leading outside the folders this server may read");
        const std::string target = real_path(entry);
        if (target.empty()) continue;  // a broken link inside: nothing can be read through it
        if (::stat(target.c_str(), &est) == 0 && S_ISDIR(est.st_mode)) dir = target;
      } else if (S_ISDIR(est.st_mode)) {
        dir = entry;
      }
      if (!dir.empty()) {
        if (seen.insert(dir).second) folders.push_back(dir);
        continue;
      }
      bytes += static_cast<uint64_t>(est.st_size);
      newest = std::max(newest, mtime_ns(est));
    }
    if (ec) throw PathRefused(folder + ": cannot be listed: " + ec.message());
  }
  out.fingerprint = std::to_string(count) + ":" + std::to_string(bytes) + ":" + std::to_string(newest);
  return out;
}

}  // namespace npu::mcp
