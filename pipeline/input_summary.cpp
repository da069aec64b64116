#include "pipeline/input_summary.h"

#include "base/load_error.h"
#include "pipeline/run_summary.h"

namespace npu::pipeline {

nlohmann::json summarize_input(const std::string& path, const LoadSettings& settings, bool* any_member_failed) {
  Detection d = detect(path);
  *any_member_failed = false;
  if (!d.cluster) {
    RunModel m = load(d, settings);
    return summarize_run(m, d);
  }
  // Each rank is loaded, summarised and dropped before the next: memory stays at one rank's worth.
  std::vector<nlohmann::json> members;
  for (const auto& member : d.members) {
    try {
      Detection md = detect(member);
      RunModel m = load(md, settings);
      members.push_back(summarize_run(m, md));
    } catch (const LoadError& e) {
      *any_member_failed = true;
      members.push_back({{"input", {{"path", member}}}, {"error", e.what()}});
    }
  }
  return summarize_cluster(d, members);
}

}  // namespace npu::pipeline
