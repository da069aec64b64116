// Shared helpers of the libFuzzer targets: a scratch file per process for the loaders
// (which read paths, not buffers) and the checks every LoadError must pass.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unistd.h>

#include "base/load_error.h"

namespace npu_fuzz {

// A file in $TMPDIR (or /tmp) private to this process, removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& suffix) {
    const char* dir = std::getenv("TMPDIR");
    std::string base = (dir && *dir) ? dir : "/tmp";
    path_ = base + "/npu_fuzz_" + std::to_string(getpid()) + "_" + std::to_string(counter()++) + suffix;
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& path() const { return path_; }

  void write(const void* data, size_t size) const {
    FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f) {
      std::perror(path_.c_str());
      std::abort();
    }
    if (size && std::fwrite(data, 1, size, f) != size) {
      std::perror(path_.c_str());
      std::abort();
    }
    std::fclose(f);
  }
  void write(std::string_view s) const { write(s.data(), s.size()); }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string path_;
};

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "\n==npu-fuzz== FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Named checks can be turned off with NPU_FUZZ_SKIP="name,name" (to keep fuzzing past a
// finding that is already known and reported).
inline bool enabled(std::string_view check) {
  static const std::string skip = [] {
    const char* v = std::getenv("NPU_FUZZ_SKIP");
    return "," + std::string(v ? v : "") + ",";
  }();
  return skip.find("," + std::string(check) + ",") == std::string::npos;
}

// What the CLI relies on: one line (msg-one-line), naming the file first (msg-file), and a
// byte offset inside the file (msg-offset). `size` is the file's size (UINT64_MAX when
// unknown, e.g. for gzip input).
inline void check_load_error(const npu::LoadError& e, const std::string& path, uint64_t size) {
  std::string_view w = e.what();
  if (enabled("msg-one-line") && w.find_first_of("\n\r") != std::string_view::npos)
    finding("LoadError message is not one line: " + std::string(w));
  if (enabled("msg-file") && (w.substr(0, path.size()) != path || e.file() != path))
    finding("LoadError message does not start with the file: " + std::string(w));
  if (enabled("msg-offset") && e.where() == npu::LoadError::Where::Byte && e.position() > size)
    finding("LoadError byte offset " + std::to_string(e.position()) + " is past the end of the file (" +
            std::to_string(size) + " bytes): " + std::string(w));
}

}  // namespace npu_fuzz

// UBSan is built recoverable so that a suppressions file can silence findings already
// reported (tests/fuzz/ubsan_known.supp); every other report must still stop the run.
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }
