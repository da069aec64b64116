#include "cli/progress_line.h"

#include <cstdio>
#include <unistd.h>

namespace npu::cli {

namespace {
constexpr auto kQuietPeriod = std::chrono::seconds(1);         // quick loads show nothing
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);  // at most 10 redraws a second

std::string megabytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}
}  // namespace

ProgressLine::ProgressLine(std::string label, bool quiet)
    : label_(std::move(label)),
      enabled_(!quiet && isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

std::string ProgressLine::format(const std::string& label, uint64_t done, uint64_t total) {
  std::string s = "loading " + label + ": ";
  if (total > 0 && done >= total) return s + megabytes(done) + " read, indexing events...";
  s += megabytes(done);
  if (total > 0) s += " of " + megabytes(total) + " (" + std::to_string(done * 100 / total) + "%)";
  return s;
}

void ProgressLine::update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < kQuietPeriod || (drawn_ && now - last_ < kRedrawEvery && done < total)) return;
  last_ = now;
  drawn_ = true;
  std::fprintf(stderr, "\r\033[K%s", format(label_, done, total).c_str());
  std::fflush(stderr);
}

void ProgressLine::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace npu::cli
