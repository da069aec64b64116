// How the pipeline loads a run: parser threads, and a progress display the caller supplies
// (the CLI draws a line on stderr; tests and scripts pass none).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "model/input.h"
#include "model/model.h"

namespace npu::pipeline {

class LoadProgress {
 public:
  virtual ~LoadProgress() = default;
  // Bytes read so far and the total (0: unknown, e.g. gzip).
  virtual void update(uint64_t done, uint64_t total) = 0;
};

struct LoadSettings {
  int threads = 0;  // trace parser threads; 0: the loader's default
  // Called once per load with the path being loaded; may be empty, may return null.
  std::function<std::unique_ptr<LoadProgress>(const std::string& path)> progress;
};

// What the path is (loaders/format.h: the most confident format's sniff). Throws LoadError
// when it is none, saying what was looked for.
Detection detect(const std::string& path);

// Loads one run (not a cluster) with these settings.
RunModel load(const Detection& d, const LoadSettings& settings);

}  // namespace npu::pipeline
