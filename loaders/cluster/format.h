// Several runs: a parent folder of rank folders (or of PROF_ folders, or of trace files), and
// msprof-analyze's cluster_analysis_output/ without them (the profiler's own cluster analysis,
// read as the cluster's reference: loaders/cluster/cluster_reference_loader.h). The pipeline
// loads a cluster's members one by one; a folder around exactly one run is that run.
#pragma once
#include "loaders/format.h"

namespace npu {

InputFormat cluster_format();
InputFormat cluster_analysis_output_format();

}  // namespace npu
