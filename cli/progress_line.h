// A progress line on stderr for loads that take more than a second: nothing for quick
// loads, nothing when stderr is not a terminal (logs stay clean), cleared when done.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace npu::cli {

class ProgressLine {
 public:
  // `label` names what is loading (a file or run path). Disabled when `quiet` or when
  // stderr is not a TTY.
  ProgressLine(std::string label, bool quiet);
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Bytes read so far and the total (0: unknown, e.g. gzip).
  void update(uint64_t done, uint64_t total);
  // Erases the line if one was drawn.
  void finish();

  // The text of the line, without terminal control codes (tested on its own).
  static std::string format(const std::string& label, uint64_t done, uint64_t total);

 private:
  std::string label_;
  bool enabled_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace npu::cli
