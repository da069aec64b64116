#include "loaders/db/sqlite_wal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>
#include <vector>

#include "base/load_error.h"

namespace npu {
namespace {

constexpr uint64_t kHeaderBytes = 32, kFrameHeaderBytes = 24;

uint32_t be32(const unsigned char* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}

// SQLite's WAL checksum over `n` bytes (a multiple of 8), continuing from s[0], s[1]; the words
// are big-endian when the magic number's low bit is set, little-endian otherwise.
void checksum(const unsigned char* p, size_t n, bool big_endian, uint32_t s[2]) {
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint32_t x0, x1;
    if (big_endian) {
      x0 = be32(p + i);
      x1 = be32(p + i + 4);
    } else {
      x0 = uint32_t{p[i]} | uint32_t{p[i + 1]} << 8 | uint32_t{p[i + 2]} << 16 | uint32_t{p[i + 3]} << 24;
      x1 = uint32_t{p[i + 4]} | uint32_t{p[i + 5]} << 8 | uint32_t{p[i + 6]} << 16 | uint32_t{p[i + 7]} << 24;
    }
    s[0] += x0 + s[1];
    s[1] += x1 + s[0];
  }
}

// Reads exactly `n` bytes at `off`; false at the end of the file.
bool read_at(int fd, unsigned char* dst, size_t n, uint64_t off, const std::string& path) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, dst + got, n - got, static_cast<off_t>(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw LoadError::at_byte(path, off + got, std::string("read failed: ") + std::strerror(errno));
    if (r == 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

uint64_t wal_committed_bytes(int fd, uint64_t size, const std::string& path) {
  unsigned char h[kHeaderBytes];
  if (size < kHeaderBytes || !read_at(fd, h, sizeof h, 0, path)) return 0;
  const uint32_t magic = be32(h);
  if (magic != 0x377f0682 && magic != 0x377f0683) return 0;
  const bool big_endian = magic & 1;
  const uint32_t page = be32(h + 8);
  if (page < 512 || page > 65536 || (page & (page - 1)) != 0) return 0;
  uint32_t s[2] = {0, 0};
  checksum(h, 24, big_endian, s);
  if (s[0] != be32(h + 24) || s[1] != be32(h + 28)) return 0;
  uint64_t committed = 0;
  std::vector<unsigned char> frame(kFrameHeaderBytes + page);
  for (uint64_t off = kHeaderBytes; off + frame.size() <= size; off += frame.size()) {
    if (!read_at(fd, frame.data(), frame.size(), off, path)) break;
    // A frame belongs to this log when it carries the header's salts and its running checksum.
    if (std::memcmp(frame.data() + 8, h + 16, 8) != 0 || be32(frame.data()) == 0) break;
    checksum(frame.data(), 8, big_endian, s);
    checksum(frame.data() + kFrameHeaderBytes, page, big_endian, s);
    if (s[0] != be32(frame.data() + 16) || s[1] != be32(frame.data() + 20)) break;
    if (be32(frame.data() + 4) != 0) committed = off + frame.size();  // a commit frame: the database's size
  }
  return committed;
}

void copy_file_prefix(int from, const std::string& from_path, int to, uint64_t n) {
  std::vector<char> buf(1 << 20);
  for (uint64_t off = 0; off < n;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), n - off));
    const ssize_t r = ::pread(from, buf.data(), want, static_cast<off_t>(off));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw LoadError::at_byte(from_path, off, std::string("read failed: ") + std::strerror(errno));
    if (r == 0) throw LoadError::at_byte(from_path, off, "shorter than it was a moment ago: changed while read");
    for (ssize_t w = 0; w < r;) {
      const ssize_t k = ::write(to, buf.data() + w, static_cast<size_t>(r - w));
      if (k < 0 && errno == EINTR) continue;
      if (k < 0)
        throw LoadError::whole_file(from_path, std::string("cannot be copied to be read: ") + std::strerror(errno));
      w += k;
    }
    off += static_cast<uint64_t>(r);
  }
}

}  // namespace npu
