#include "loaders/run_loader.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/load_error.h"
#include "loaders/format.h"
#include "loaders/hccl_task_args.h"

namespace npu {

namespace {

// Correlation ids carried by several host launches (model.h: correlation_launches) leave their
// device work unpaired: the run is judged on what could be paired, and says so (it is partial,
// so `gate` refuses it unless told --allow-partial).
void say_ambiguous_launches(RunModel& m) {
  const std::vector<int64_t>& ids = m.correlation.ambiguous;
  if (ids.empty()) return;
  uint64_t tasks = 0;
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].kind != TrackKind::Device) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i)
      if (m.slices[i].corr != kNoId && std::binary_search(ids.begin(), ids.end(), m.slices[i].corr)) ++tasks;
  }
  const std::string file =
      m.trace_file < m.files.size() && !m.files[m.trace_file].path.empty() ? m.files[m.trace_file].path : "the trace";
  m.stats.reject(file + ": " + std::to_string(ids.size()) + " correlation id" + (ids.size() == 1 ? " is" : "s are") +
                 " each carried by several host launches that do not nest (first: id " + std::to_string(ids.front()) +
                 "; ids reused across steps?): which launch started their " + std::to_string(tasks) + " device task" +
                 (tasks == 1 ? "" : "s") + " is unknown, so they were left unpaired");
}

}  // namespace

RunModel load_run(const Detection& d, const LoadOptions& opt) {
  const InputFormat* format = find_input_format(d.format);
  if (!format) throw LoadError::whole_file(d.path, "no input format named \"" + d.format + "\" is registered");
  if (format->cluster || !format->load)
    throw LoadError::whole_file(d.path, "is a cluster: load each member on its own");
  RunModel model;
  format->load(d, model, opt);
  model.finalize();
  say_ambiguous_launches(model);
  load_hccl_task_args(model);  // needs the final slice order
  if (format->finish) format->finish(d, model);
  pair_graph_replays(model);  // graph replays with their captures (model/graph_capture.h)
  return model;
}

}  // namespace npu
