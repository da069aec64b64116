// Sequential reading of a file that may be gzip-compressed (Kineto writes .json.gz), so the
// JSON loader can stream either without holding the whole file in memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace npu {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes; returns 0 at end of input. Throws LoadError on I/O or gzip errors.
  virtual size_t read(char* dst, size_t n) = 0;
  // Size on disk (compressed size for .gz).
  virtual uint64_t file_bytes() const = 0;
  virtual bool compressed() const = 0;

  // Opens `path`, sniffing the gzip magic bytes rather than trusting the extension.
  static std::unique_ptr<ByteSource> open(const std::string& path);
};

// Reads a whole (small) file into a string; throws LoadError when it cannot be read.
// The most read_small_file() reads (after decompression) before it refuses the file.
constexpr size_t kMaxSmallFileBytes = size_t{256} << 20;
std::string read_small_file(const std::string& path);

}  // namespace npu
