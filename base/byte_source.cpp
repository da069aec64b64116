#include "base/byte_source.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <sys/stat.h>

#include "base/input_registry.h"
#include "base/load_error.h"

namespace npu {
namespace {

class PlainSource : public ByteSource {
 public:
  PlainSource(std::string path, int fd, uint64_t size) : path_(std::move(path)), fd_(fd), size_(size) {
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~PlainSource() override { close(fd_); }
  size_t read(char* dst, size_t n) override {
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::read(fd_, dst + got, n - got);
      if (r < 0) {
        if (errno == EINTR) continue;
        throw LoadError::at_byte(path_, pos_ + got, std::string("read failed: ") + std::strerror(errno));
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    pos_ += got;
    return got;
  }
  uint64_t file_bytes() const override { return size_; }
  bool compressed() const override { return false; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

// zlib prefixes its messages with "<fd:3>: ", which means nothing to a user.
std::string strip_fd(const char* msg) {
  std::string m = msg ? msg : "?";
  if (m.rfind("<fd:", 0) == 0) {
    auto colon = m.find(": ");
    if (colon != std::string::npos) m.erase(0, colon + 2);
  }
  return m;
}

class GzipSource : public ByteSource {
 public:
  GzipSource(std::string path, gzFile gz, uint64_t size) : path_(std::move(path)), gz_(gz), size_(size) {
    gzbuffer(gz_, 1 << 20);
  }
  ~GzipSource() override { gzclose(gz_); }
  size_t read(char* dst, size_t n) override {
    size_t got = 0;
    while (got < n) {
      unsigned want = static_cast<unsigned>(std::min<size_t>(n - got, 1u << 30));
      int r = gzread(gz_, dst + got, want);
      if (r < 0) {
        int code = 0;
        const char* msg = gzerror(gz_, &code);
        throw LoadError::at_byte(path_, static_cast<uint64_t>(gzoffset(gz_)),
                                 std::string("gzip data is corrupt (compressed offset; ") + std::to_string(pos_ + got) +
                                     " bytes decompressed): " + strip_fd(msg));
      }
      if (r == 0) {
        int code = 0;
        gzerror(gz_, &code);
        if (code == Z_BUF_ERROR)
          throw LoadError::at_byte(
              path_, static_cast<uint64_t>(gzoffset(gz_)),
              "gzip stream ends early (truncated file?) after " + std::to_string(pos_ + got) + " decompressed bytes");
        break;
      }
      got += static_cast<size_t>(r);
    }
    pos_ += got;
    return got;
  }
  uint64_t file_bytes() const override { return size_; }
  bool compressed() const override { return true; }

 private:
  std::string path_;
  gzFile gz_;
  uint64_t size_;
  uint64_t pos_ = 0;  // uncompressed position
};

}  // namespace

std::unique_ptr<ByteSource> ByteSource::open(const std::string& path) {
  struct stat st {};
  int fd = open_input_file(path, &st);
  unsigned char magic[2] = {0, 0};
  ssize_t n = pread(fd, magic, 2, 0);
  if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
      close(fd);
      throw LoadError::whole_file(path, "cannot open gzip stream");
    }
    return std::make_unique<GzipSource>(path, gz, static_cast<uint64_t>(st.st_size));
  }
  return std::make_unique<PlainSource>(path, fd, static_cast<uint64_t>(st.st_size));
}

std::string read_small_file(const std::string& path) {
  auto src = ByteSource::open(path);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    size_t n = src->read(buf, sizeof buf);
    if (n == 0) break;
    // A side file (metadata, communication, facts, rules) is read whole and parsed into memory
    // several times its size: past the cap it is not a profiler's, and reading it on would end
    // in "out of memory" with no file named (a 3 GiB sparse file, a .gz of whitespace).
    if (out.size() + n > kMaxSmallFileBytes)
      throw LoadError::whole_file(path, "larger than " + std::to_string(kMaxSmallFileBytes >> 20) +
                                            " MiB (after decompression): too large for this kind of file; not read");
    out.append(buf, n);
  }
  return out;
}

}  // namespace npu
