// The one error type loaders throw: a file, a place in it, and what was wrong there.
// The CLI prints what() on one line and exits with code 2.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace npu {

class LoadError : public std::runtime_error {
 public:
  enum class Where { None, Byte, Line };
  LoadError(std::string file, Where where, uint64_t pos, const std::string& message)
      : std::runtime_error(format(file, where, pos, message)), file_(std::move(file)), where_(where), pos_(pos) {}

  static LoadError at_byte(const std::string& file, uint64_t offset, const std::string& msg) {
    return LoadError(file, Where::Byte, offset, msg);
  }
  static LoadError at_line(const std::string& file, uint64_t line, const std::string& msg) {
    return LoadError(file, Where::Line, line, msg);
  }
  static LoadError whole_file(const std::string& file, const std::string& msg) {
    return LoadError(file, Where::None, 0, msg);
  }

  const std::string& file() const { return file_; }
  Where where() const { return where_; }
  uint64_t position() const { return pos_; }

 private:
  static std::string format(const std::string& file, Where where, uint64_t pos, const std::string& msg) {
    switch (where) {
      case Where::Byte: return file + ": byte " + std::to_string(pos) + ": " + msg;
      case Where::Line: return file + ":" + std::to_string(pos) + ": " + msg;
      case Where::None: break;
    }
    return file + ": " + msg;
  }
  std::string file_;
  Where where_;
  uint64_t pos_;
};

}  // namespace npu
