#include "loaders/common/input_files.h"

namespace npu {
namespace fs = std::filesystem;

uint64_t size_on_disk(const fs::path& p) {
  std::error_code ec;
  auto s = fs::file_size(p, ec);
  return ec ? 0 : s;
}

void note_missing(RunModel& model, Role role, const std::string& why) {
  InputFile f;
  f.role_id = role;
  f.role = role_name(role);
  f.status = InputFile::Status::Missing;
  f.note = why;
  model.add_file(std::move(f));
}

uint16_t register_found(RunModel& model, Role role, const fs::path& p, const std::string& name) {
  InputFile f;
  f.role_id = role;
  f.role = name.empty() ? role_name(role) : name;
  f.path = p.string();
  f.bytes = size_on_disk(p);
  f.status = f.bytes == 0 ? InputFile::Status::Empty : InputFile::Status::Loaded;
  return model.add_file(std::move(f));
}

TraceLoadResult load_trace_files(RunModel& model, const std::vector<std::string>& paths, const TraceLoadOptions& opt,
                                 const std::string& name) {
  TraceLoadResult first;
  const bool parts = paths.size() > 1;
  for (size_t i = 0; i < paths.size(); ++i) {
    uint16_t id = register_found(model, Role::Trace, paths[i], name);
    if (model.files[id].status == InputFile::Status::Empty) {
      model.files[id].note = "file is empty";
      continue;
    }
    const size_t s0 = model.slices.size(), f0 = model.flows.size(), c0 = model.counters.size();
    const uint64_t e0 = model.stats.trace_events;
    TraceLoadResult r = load_trace_json(paths[i], id, model, opt);
    model.files[id].records = model.stats.trace_events - e0;
    if (i == 0) {
      first = std::move(r);
      model.trace_file = id;
    }
    if (!parts) continue;
    // Tag this file's locations (byte offsets) with its part.
    uint16_t part = model.add_trace_part(id, "");
    for (size_t k = s0; k < model.slices.size(); ++k)
      model.slices[k].loc = RunModel::make_loc(part, model.slices[k].loc);
    for (size_t k = f0; k < model.flows.size(); ++k) {
      model.flows[k].start_loc = RunModel::make_loc(part, model.flows[k].start_loc);
      model.flows[k].end_loc = RunModel::make_loc(part, model.flows[k].end_loc);
    }
    for (size_t k = c0; k < model.counters.size(); ++k)
      model.counters[k].loc = RunModel::make_loc(part, model.counters[k].loc);
  }
  return first;
}

}  // namespace npu
