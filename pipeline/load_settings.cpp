#include "pipeline/load_settings.h"

#include "loaders/detect.h"
#include "loaders/run_loader.h"

namespace npu::pipeline {

Detection detect(const std::string& path) { return detect_input(path); }

RunModel load(const Detection& d, const LoadSettings& settings) {
  std::unique_ptr<LoadProgress> progress = settings.progress ? settings.progress(d.path) : nullptr;
  LoadOptions opt;
  opt.trace.threads = settings.threads;
  if (progress) opt.trace.progress = [&progress](uint64_t done, uint64_t total) { progress->update(done, total); };
  return load_run(d, opt);
}

}  // namespace npu::pipeline
