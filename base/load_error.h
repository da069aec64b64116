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
  // One line, always: control characters from the input (a quoted CSV cell may hold a
  // newline) are written as escapes.
  static std::string one_line(const std::string& msg) {
    std::string out;
    for (char c : msg) {
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (static_cast<unsigned char>(c) < 0x20) out += '?';
      else out += c;
    }
    return out;
  }
  static std::string format(const std::string& file, Where where, uint64_t pos, const std::string& raw) {
    std::string msg = one_line(raw);
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
