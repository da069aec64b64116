// What every command shares: the load settings (progress line) and writing the output.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "base/input_registry.h"
#include "cli/commands.h"
#include "cli/progress_line.h"

namespace npu::cli {

namespace {

// The progress line as the pipeline's progress display.
class ProgressLineSink : public pipeline::LoadProgress {
 public:
  ProgressLineSink(const std::string& label, bool quiet) : line_(label, quiet) {}
  void update(uint64_t done, uint64_t total) override { line_.update(done, total); }

 private:
  ProgressLine line_;
};

}  // namespace

pipeline::LoadSettings load_settings(const CommonOptions& common) {
  pipeline::LoadSettings s;
  s.threads = common.threads;
  bool quiet = common.quiet;
  s.progress = [quiet](const std::string& path) { return std::make_unique<ProgressLineSink>(path, quiet); };
  return s;
}

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool write_output(const std::string& file, const std::string& text) {
  // Every write is checked through the flush and the close: a full disk fails at either.
  if (file.empty() || file == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
      std::fprintf(stderr, "error: cannot write to stdout: %s\n", std::strerror(errno));
      return false;
    }
    return true;
  }
  // The last line of the output guard (cli/output_guard.h): whatever the flag, never over a
  // file this process read as input.
  if (is_input_file(file)) {
    std::fprintf(stderr,
                 "error: %s is an input file read by this command; choose another output file (it was not written)\n",
                 file.c_str());
    return false;
  }
  std::FILE* f = std::fopen(file.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  int err = errno;
  if (f && std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) std::fprintf(stderr, "error: cannot write %s: %s\n", file.c_str(), std::strerror(err));
  return ok;
}

bool output_is_an_input(const std::string& out_file, const Detection& d, const RunModel* model) {
  if (out_file.empty() || out_file == "-") return false;
  std::error_code ec;
  if (!std::filesystem::exists(out_file, ec)) return false;
  std::vector<std::string> inputs = d.files;
  inputs.push_back(d.path);
  if (model)
    for (const auto& f : model->files) inputs.push_back(f.path);
  for (const auto& in : inputs) {
    if (in.empty() || !std::filesystem::is_regular_file(in, ec)) continue;
    if (std::filesystem::equivalent(out_file, in, ec)) {
      std::fprintf(stderr, "error: -o %s is an input file of this run; choose another output file\n", out_file.c_str());
      return true;
    }
  }
  return false;
}

std::string output_format(const OutputOptions& o) {
  if (!o.format.empty()) return o.format;
  auto ends = [&](const char* ext) {
    std::string e(ext);
    return o.out_file.size() >= e.size() && o.out_file.compare(o.out_file.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".json")) return "json";
  if (ends(".md")) return "md";
  if (ends(".html") || ends(".htm")) return "html";
  return "text";
}

bool stdout_is_color_terminal() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) != 0;
}

}  // namespace npu::cli
