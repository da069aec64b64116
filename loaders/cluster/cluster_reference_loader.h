// Finds and reads msprof-analyze's cluster_analysis_output/ (the folder itself, or under a
// cluster folder): cluster_step_trace_time.csv, cluster_communication(.json|_matrix.json),
// communication_group.json (with the groups' names, comm_group_parallel_info). Empty when there is none.
#pragma once
#include <string>

#include "model/cluster_reference.h"

namespace npu {

ClusterReference load_cluster_reference(const std::string& path);

}  // namespace npu
