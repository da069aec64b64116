#include "loaders/chrome_trace/capture_traces.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "base/input_confinement.h"
#include "base/json_file.h"
#include "base/load_error.h"
#include "loaders/common/trace_file.h"

namespace npu {
namespace fs = std::filesystem;

namespace {

// Whether `p` opens as an input: beneath the allowed folders when inputs are confined
// (base/input_confinement.h), so nothing outside is looked at, not even whether it exists; errno
// says why not (EXDEV: outside).
bool opens(const fs::path& p) {
  const int fd = open_confined(p.string(), O_RDONLY | O_NONBLOCK);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

// One entry of the index, checked: its file, batch size and mode, or a reason it is not one.
struct Entry {
  fs::path file;
  int64_t batch = -1;
  std::string mode, bad;
};

Entry read_entry(const nlohmann::json& e, const fs::path& dir, size_t i) {
  Entry out;
  const std::string at = "entry " + std::to_string(i + 1);
  if (!e.is_object() || !e.contains("file") || !e["file"].is_string()) {
    out.bad = at + " has no \"file\" name";
    return out;
  }
  const std::string name = e["file"].get<std::string>();
  if (name.empty() || name.find('/') != std::string::npos || name == "..") {
    out.bad = at + ": \"" + name + "\" is not a file name in the folder";
    return out;
  }
  out.file = dir / name;
  if (e.contains("batch_size") && e["batch_size"].is_number_integer()) out.batch = e["batch_size"].get<int64_t>();
  if (e.contains("mode") && e["mode"].is_string()) out.mode = e["mode"].get<std::string>();
  if (out.batch < 1) out.bad = at + " (" + name + ") has no positive integer batch_size";
  else if (!opens(out.file))
    out.bad = at + ": " + name + (errno == EXDEV ? std::string(" ") + kOutsideAllowed : " is not there");
  return out;
}

}  // namespace

void load_capture_traces(const fs::path& trace, RunModel& model, const LoadOptions& opt) {
  const fs::path dir = trace.parent_path() / "capture_traces";
  const fs::path index = dir / "execution_details.json";
  std::error_code ec;
  if (!opens(index)) return;  // no captures beside the trace (or none this server may read)
  nlohmann::json list;
  try {
    list = read_json_file(index.string());
  } catch (const LoadError& e) {
    model.stats.warnings.push_back(std::string(e.what()) + ": graph captures not read (replays stay opaque)");
    return;
  }
  if (!list.is_array()) {
    model.stats.warnings.push_back(index.string() + ": not a list of captures: graph captures not read");
    return;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const Entry e = read_entry(list[i], dir, i);
    if (!e.bad.empty()) {
      model.stats.warnings.push_back(index.string() + ": " + e.bad + ": that capture is not read");
      continue;
    }
    RunModel cap;
    try {
      load_trace_file(cap, e.file, opt);
      cap.finalize();
    } catch (const LoadError& err) {
      model.stats.warnings.push_back(std::string(err.what()) + ": graph capture not read (its replays stay opaque)");
      continue;
    }
    InputFile f;
    f.role = "graph capture trace";
    f.path = e.file.string();
    f.status = InputFile::Status::Loaded;
    f.bytes = fs::file_size(e.file, ec);
    f.records = cap.stats.trace_events;
    f.note = "batch size " + std::to_string(e.batch) + (e.mode.empty() ? "" : ", " + e.mode);
    const uint16_t id = model.add_file(std::move(f));
    add_graph_captures(model, cap, id, e.batch, e.mode);
  }
}

}  // namespace npu
