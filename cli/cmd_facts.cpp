// `npu-advisor facts PATH [-o FILE]`: the facts document (docs/facts.md) of one run.
#include <cstdio>

#include "base/load_error.h"
#include "cli/commands.h"
#include "pipeline/run_facts.h"

namespace npu::cli {

int cmd_facts(const std::string& path, const CommonOptions& common, const std::string& out_file) {
  Detection d = pipeline::detect(path);
  if (d.cluster) throw LoadError::whole_file(path, "is a cluster: run `facts` on each rank folder (the map step)");
  if (output_is_an_input(out_file, d)) return kBadInput;
  RunModel m = pipeline::load(d, load_settings(common));
  if (output_is_an_input(out_file, d, &m)) return kBadInput;
  Facts f = pipeline::run_facts(m, path, d);
  const bool written = write_output(out_file, json_text(f.doc) + "\n");
  // The process ends after this command: the facts are left for the exit to take back whole
  // (freeing a 100 MB rank's node by node took 0.4 s; the map step of a cluster pays it per rank).
  (void)new Facts(std::move(f));
  if (!written) return kBadInput;
  if (!out_file.empty() && !common.quiet) std::fprintf(stderr, "facts written to %s\n", out_file.c_str());
  return kOk;
}

}  // namespace npu::cli
