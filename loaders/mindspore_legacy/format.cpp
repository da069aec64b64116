#include "loaders/mindspore_legacy/format.h"

#include <algorithm>

#include "base/input_confinement.h"
#include "base/load_error.h"
#include "loaders/common/input_files.h"

namespace npu {
namespace fs = std::filesystem;

bool is_mindspore_legacy(const fs::path& dir, std::string* timeline) {
  bool legacy = false;
  std::vector<std::string> timelines;
  for (const auto& e : list_input_dir(dir)) {
    std::string n = e.filename().string();
    if (n.starts_with("ascend_timeline_display_") && n.ends_with(".json")) timelines.push_back(e.string());
    for (const char* prefix : {"output_format_data_hwts_", "framework_raw_", "step_trace_raw_", "hccl_raw_",
                               "ascend_timeline_display_", "minddata_pipeline_raw_"})
      legacy = legacy || n.starts_with(prefix);
  }
  std::sort(timelines.begin(), timelines.end());
  if (!timelines.empty()) *timeline = timelines[0];
  return legacy;
}

namespace {

Sniff sniff(const fs::path& p) {
  Sniff s;
  std::string timeline;
  if (!fs::is_directory(p) || !is_mindspore_legacy(p, &timeline)) return s;
  s.confidence = confidence::kFolderFiles;
  s.reason = "MindSpore legacy profiler folder " + p.string();
  s.found.framework = "mindspore";
  if (!timeline.empty()) s.found.files = {timeline};
  s.found.found = timeline;
  return s;
}

void load(const Detection& d, RunModel& model, const LoadOptions& opt) {
  const auto& timeline = std::any_cast<const std::string&>(d.found);
  model.meta.framework = "mindspore";
  model.meta.source_format = "MindSpore legacy profiler folder (MindInsight era)";
  model.meta.step_semantics = StepSemantics::CaptureSegments;  // no per-step rule of its own
  if (timeline.empty())
    throw LoadError::whole_file(d.path,
                                "MindSpore legacy profiler folder without ascend_timeline_display_N.json; "
                                "its raw files (hccl_raw, step_trace_raw, framework_raw, ...) are not "
                                "supported: profile with MindSpore 2.3+ (ASCEND_PROFILER_OUTPUT)");
  load_trace_files(model, {timeline}, opt.trace);
  // These timelines carry no process names: pid 1 holds the device operators, one thread per
  // stream (MindInsight's timeline writer). Name it so the device analyses see it.
  const StrId hw = model.strings.intern("Ascend Hardware");
  bool named = false;
  for (auto& t : model.tracks)
    if (t.process_name == kEmptyStr && t.pid == 1) {
      t.process_name = hw;
      named = true;
    }
  if (named)
    model.stats.warnings.push_back(timeline +
                                   ": no process names; pid 1 (device operators by stream) read as "
                                   "Ascend Hardware");
  model.stats.warnings.push_back(d.path +
                                 ": MindSpore legacy raw files (framework_raw, aicore_intermediate, "
                                 "step_trace_raw, minddata_*, hccl_raw) are not read: only the timeline is analysed");
  for (Role role : {Role::KernelDetails, Role::StepTraceTime, Role::OpStatistic})
    note_missing(model, role, "not in the MindSpore legacy layout (MindSpore 2.3+ writes it)");
}

}  // namespace

InputFormat mindspore_legacy_format() {
  return {"mindspore_legacy", "MindSpore legacy profiler folder", sniff, load, nullptr};
}

}  // namespace npu
