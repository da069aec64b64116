// What the profiler's own cluster analysis wrote (msprof-analyze's cluster_analysis_output/),
// loaded by loaders/cluster_reference_loader.cpp in the record shapes of
// loaders/communication_loader.h. The cluster facts compare the ranks against it.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/parallel_group.h"

namespace npu {

struct ClusterReference {
  std::string dir;
  std::vector<std::string> files;
  nlohmann::json rank_steps = nlohmann::json::array();  // cluster_step_trace_time.csv rank rows
  nlohmann::json ops = nlohmann::json::array();         // cluster_communication.json
  nlohmann::json links = nlohmann::json::array();       // cluster_communication_matrix.json
  nlohmann::json groups = nlohmann::json::array();      // communication_group.json
  std::vector<ParallelGroup> parallel_groups;           // communication_group.json comm_group_parallel_info
  nlohmann::json stages = nlohmann::json::array();      // cluster_step_trace_time.csv stage rows (pipeline stages)
  bool empty() const { return files.empty(); }
};

}  // namespace npu
