// `npu-advisor facts PATH [-o FILE]`: the facts document (docs/facts.md) of one run.
#include <cstdio>

#include "cli/commands.h"
#include "pipeline/analysis.h"

namespace npu::cli {

int cmd_facts(const std::string& path, const CommonOptions& common, const std::string& out_file) {
  pipeline::AnalysisOptions opt;
  opt.stop = pipeline::StopAfter::Facts;
  opt.load = load_settings(common);
  opt.summary = pipeline::Keep::Never;
  opt.if_cluster = "run `facts` on each rank folder (the map step)";
  opt.accept_input = [&](const Detection& d, const RunModel* m) { return !output_is_an_input(out_file, d, m); };
  pipeline::Analysis a = pipeline::analyze(path, opt);
  if (a.refused) return kBadInput;
  const bool written = write_output(out_file, json_text(a.facts.doc) + "\n");
  // The process ends after this command: the facts are left for the exit to take back whole
  // (freeing a 100 MB rank's node by node took 0.4 s; the map step of a cluster pays it per rank).
  (void)new Facts(std::move(a.facts));
  if (!written) return kBadInput;
  if (!out_file.empty() && !common.quiet) std::fprintf(stderr, "facts written to %s\n", out_file.c_str());
  return kOk;
}

}  // namespace npu::cli
