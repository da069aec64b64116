// Detection by the registry: every format sniffs, the most confident claims the path.
#include <algorithm>

#include "base/load_error.h"
#include "loaders/detect.h"
#include "loaders/format.h"

namespace npu {
namespace fs = std::filesystem;

std::vector<InputFormat>& registered_formats();  // loaders/formats.cpp

const std::vector<InputFormat>& input_formats() { return registered_formats(); }

void register_input_format(InputFormat format) {
  auto& all = registered_formats();
  for (auto& f : all)
    if (f.name == format.name) {
      f = std::move(format);
      return;
    }
  all.push_back(std::move(format));
}

const InputFormat* find_input_format(std::string_view name) {
  for (const auto& f : registered_formats())
    if (f.name == name) return &f;
  return nullptr;
}

Detection detect_input(const std::string& path) {
  std::error_code ec;
  fs::path p(path);
  if (!fs::exists(p, ec)) throw LoadError::whole_file(path, "no such file or folder");
  if (!fs::is_regular_file(p) && !fs::is_directory(p))
    throw LoadError::whole_file(path, "neither a regular file nor a folder");
  const InputFormat* best = nullptr;
  Sniff found;
  std::string tied;  // the other formats as sure as the best: "a (why), b (why)"
  for (const auto& f : registered_formats()) {
    Sniff s = f.sniff(p);
    if (s.confidence <= 0 || s.confidence < found.confidence) continue;
    if (s.confidence == found.confidence) {
      tied += (tied.empty() ? "" : ", ") + f.name + " (" + s.reason + ")";
      continue;
    }
    best = &f;
    found = std::move(s);
    tied.clear();
  }
  if (!best)
    throw LoadError::whole_file(path,
                                "not a profiler output: looked for ASCEND_PROFILER_OUTPUT/, trace_view.json, "
                                "kernel_details.csv, step_trace_time.csv, *_ascend_pt / *_ascend_ms rank folders, "
                                "PROF_* folders, *.db exports and *.json / *.pt.trace.json[.gz] traces");
  if (!tied.empty())
    throw LoadError::whole_file(path,
                                "two formats claim it alike: " + best->name + " (" + found.reason + ") and " + tied);
  if (!found.descend.empty()) return detect_input(found.descend);
  Detection d = std::move(found.found);
  d.format = best->name;
  d.kind = best->kind;
  d.cluster = best->cluster;
  d.path = path;
  d.description = std::move(found.reason);
  d.confidence = found.confidence;
  return d;
}

}  // namespace npu
