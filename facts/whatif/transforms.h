// The transformations of the what-if replay: each is what one fix does to the traced steps,
// written as an edit of the replay graph (replay.h), with its assumptions (docs/whatif.md).
//   dataloader  the host's time in DataLoader fetches goes to worker processes: removed, except
//               what the workers cannot supply (a single-process loader given 8 workers, as the
//               advice says, still waits fetch/8 less the rest of its step; a multi-process one
//               waits half as long, as with twice the workers)
//   graphs      each run of launches between two host waits (syncs, blocking copies, fetches,
//               step ends, pauses over 1 ms) becomes one graph launch: its host time is one graph launch (the
//               trace's own cost per graph node, else 1 us per node) and its kernels follow each
//               other at the graph's gap (measured in the trace's graph replays, else 0.1 us);
//               not where graph replays already run 90% of the steps' device time
//   syncs       every host wait for the device inside a step but the step's last stops waiting
//   pinned      copies from pageable memory run at pinned bandwidth (measured from the trace's
//               pinned copies of 1 MiB or more in the same direction, else 50 GB/s on PCIe Gen5
//               GPUs (H100, H200, B200, ...) and 25 GB/s elsewhere) and no longer block the host
//   tf32, bf16  fp32 matrix kernels on the CUDA cores run on the tensor cores, in TF32 or bf16
//               (autocast), at the durations the roofline gives their operator groups
//               (facts/roofline/tensor_cores.h); kernels without a model keep theirs
//   gc          Python garbage collection in the step removed (gc.freeze / a manual collect)
//   compile     online operator compilation removed (compiled once, cached)
#pragma once
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/host_causes.h"
#include "facts/roofline/tensor_cores.h"
#include "facts/whatif/replay.h"

namespace npu::whatif {

struct Transform {
  std::string name;
  bool applicable = false;
  std::string why;      // when not applicable: why not
  std::string formula;  // what the replay changed, in words, with the numbers it used
  Edit edit;
  // Replayed on the two-stage host graph (the host-pipeline transformations, transform_parts.h),
  // not the run's graph: never combined with the others.
  bool two_stage = false;
  nlohmann::json detail = nlohmann::json::object();  // more keys of its facts entry (docs/whatif.md)
};

// The names, in the order they are listed and combined.
const std::vector<std::string>& transform_names();

// Every transformation for this graph; the host-pipeline ones (task_queue, cpu_binding) on
// `host`, the two-stage graph (the run's graph when the trace has no task queue);
// `tensor_core_times`: {tf32, bf16} from the roofline.
std::vector<Transform> make_transforms(const RunModel& m, const Graph& g, const Graph& host, const HostCauseSlices& causes,
                                       const std::array<roofline::TensorCoreTimes, 2>& tensor_core_times);
// Whether a transformation is replayed on the two-stage host graph.
bool two_stage_transform(const std::string& name);

}  // namespace npu::whatif
