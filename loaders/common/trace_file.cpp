#include "loaders/common/trace_file.h"

#include "base/json_file.h"
#include "base/text.h"
#include "loaders/common/input_files.h"

namespace npu {

void load_trace_file(RunModel& model, const std::filesystem::path& p, const LoadOptions& opt, const std::string& name) {
  TraceLoadResult r = load_trace_files(model, {p.string()}, opt.trace, name);
  if (!r.object_form) return;
  if (model.meta.framework.empty()) model.meta.framework = "pytorch";
  const auto& top = r.top_level;
  if (top.contains("distributedInfo") && top["distributedInfo"].is_object()) {
    const auto& di = top["distributedInfo"];
    if (di.contains("rank")) {
      if (auto rank = json_small_id(di["rank"])) model.meta.rank = *rank;
      else
        model.stats.warnings.push_back(p.string() + ": distributedInfo.rank " + json_scalar_text(di["rank"]) +
                                       " is not a rank (0.." + std::to_string(INT32_MAX) + "); rank unknown");
    }
    for (auto& [k, v] : di.items()) model.meta.distributed[text::clip(k)] = json_scalar_text(v);
  }
  // The GPU (Kineto deviceProperties): its name is the what-if replay's default copy bandwidth;
  // name, SM count and memory are what the roofline matches the device's peaks by.
  if (const auto dp = top.find("deviceProperties"); dp != top.end() && dp->is_array())
    for (const auto& d : *dp)
      if (d.is_object() && d.contains("name") && d["name"].is_string()) {
        model.meta.config["gpu_name"] = d["name"].get<std::string>();
        if (d.contains("numSms") && d["numSms"].is_number_integer())
          model.meta.config["gpu_sms"] = std::to_string(d["numSms"].get<int64_t>());
        if (d.contains("totalGlobalMem") && d["totalGlobalMem"].is_number_integer())
          model.meta.config["gpu_memory_bytes"] = std::to_string(d["totalGlobalMem"].get<int64_t>());
        break;
      }
  for (const char* k : {"schemaVersion", "displayTimeUnit", "trace_id"})
    if (top.contains(k)) model.meta.config[k] = json_scalar_text(top[k]);
}

void framework_from_tracks(RunModel& model) {
  if (!model.meta.framework.empty()) return;
  for (const auto& t : model.tracks)
    if (t.kind == TrackKind::Device || t.kind == TrackKind::HostCANN) {
      model.meta.framework = "torch_npu";
      return;
    }
}

}  // namespace npu
