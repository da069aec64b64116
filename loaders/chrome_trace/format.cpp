#include "loaders/chrome_trace/format.h"

#include "base/load_error.h"
#include "loaders/chrome_trace/capture_traces.h"
#include "loaders/common/trace_file.h"

namespace npu {
namespace fs = std::filesystem;

bool is_trace_name(const std::string& n) {
  return n.ends_with(".pt.trace.json") || n.ends_with(".pt.trace.json.gz") || n.ends_with(".json.gz") ||
         n.ends_with(".json");
}

namespace {

Sniff sniff(const fs::path& p) {
  if (!fs::is_regular_file(p)) return {};
  Sniff s{confidence::kAnyFile, "trace file " + p.filename().string(), {}, {}};
  s.found.files = {p.string()};
  return s;
}

void load(const Detection& d, RunModel& model, const LoadOptions& opt) {
  // The file named on the command line is all there is: empty is an error, not a run with no
  // findings (exit 0).
  std::error_code ec;
  if (fs::is_regular_file(d.path, ec) && fs::file_size(d.path, ec) == 0 && !ec)
    throw LoadError::whole_file(d.path, "file is empty (0 bytes)");
  model.meta.source_format = "trace file";
  // The lone file is the run's trace whatever its name: evidence names it (it named a
  // "trace_view.json" that does not exist for every Kineto trace).
  load_trace_file(model, d.path, opt, fs::path(d.path).filename().string());
  // A graph replay trace with its captures beside it (TraceLens's layout): the replays are paired
  // after finalize (load_run: pair_graph_replays).
  load_capture_traces(d.path, model, opt);
}

}  // namespace

InputFormat chrome_trace_format() {
  return {"chrome_trace", "trace file", sniff, load,
          [](const Detection&, RunModel& model) { framework_from_tracks(model); }};
}

}  // namespace npu
