#include "loaders/cluster/cluster_reference_loader.h"

#include <filesystem>

#include "base/json_file.h"
#include "loaders/communication/communication_files.h"
#include "loaders/parallel_groups.h"

namespace npu {
namespace fs = std::filesystem;

ClusterReference load_cluster_reference(const std::string& path) {
  ClusterReference ref;
  fs::path dir = path;
  if (!fs::is_regular_file(dir / "cluster_step_trace_time.csv") &&
      !fs::is_regular_file(dir / "cluster_communication.json"))
    dir = dir / "cluster_analysis_output";
  if (!fs::is_directory(dir)) return ref;
  ref.dir = dir.string();
  auto take = [&](const char* name) {
    fs::path p = dir / name;
    if (!fs::is_regular_file(p)) return std::string();
    ref.files.push_back(p.string());
    return p.string();
  };
  if (auto p = take("cluster_step_trace_time.csv"); !p.empty()) {
    ref.rank_steps = load_cluster_step_trace_time(p);
    ref.stages = load_cluster_pipeline_stages(p);
  }
  if (auto p = take("cluster_communication.json"); !p.empty()) ref.ops = load_cluster_communication_ops(p);
  if (auto p = take("cluster_communication_matrix.json"); !p.empty()) ref.links = load_cluster_communication_links(p);
  if (auto p = take("communication_group.json"); !p.empty()) {
    const nlohmann::json doc = read_json_file(p);
    ref.groups = communication_groups(doc);
    ref.parallel_groups = parse_comm_group_parallel_info(doc);
  }
  return ref;
}

}  // namespace npu
