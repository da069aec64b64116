#include "loaders/hccl_task_args.h"

#include <algorithm>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "base/input_registry.h"
#include "base/load_error.h"

namespace npu {
namespace {

bool moves_data(std::string_view name) {
  return !(name.rfind("Notify", 0) == 0 || name.empty());  // Notify_Record / Notify_Wait carry no payload
}

// The event object starting at `buf[0]` ('{'): its length, or 0 when it does not end in `buf`.
size_t object_length(std::string_view buf) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < buf.size(); ++i) {
    char c = buf[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return i + 1;
    }
  }
  return 0;
}

}  // namespace

void load_hccl_task_args(RunModel& m) {
  struct Want {
    uint64_t offset;
    uint32_t slice;
  };
  std::vector<std::vector<Want>> by_file(m.files.size());
  for (uint32_t t = 0; t < m.tracks.size(); ++t) {
    const Track& tr = m.tracks[t];
    if (tr.kind != TrackKind::Communication || m.str(tr.thread_name).rfind("Plane", 0) != 0) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      if (!moves_data(m.str(m.slices[i].name))) continue;
      RunModel::DecodedLoc loc = m.decode_loc(m.slices[i].loc);
      if (!loc.table.empty() || loc.file >= by_file.size()) continue;
      by_file[loc.file].push_back({loc.offset, i});
    }
  }
  const StrId k_none = kEmptyStr;
  for (size_t f = 0; f < by_file.size(); ++f) {
    auto& want = by_file[f];
    if (want.empty()) continue;
    const std::string& path = m.files[f].path;
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
      m.stats.warnings.push_back(path + ": gzipped trace: HCCL task sizes not read (byte alignment unchecked)");
      continue;
    }
    // Opened again as an input (beneath the allowed folders when confined); one that cannot be
    // is said, not skipped in silence.
    struct stat st {};
    int fd = -1;
    try {
      fd = open_input_file(path, &st);
    } catch (const LoadError& e) {
      m.stats.warnings.push_back(std::string(e.what()) + ": HCCL task sizes not read (byte alignment unchecked)");
      continue;
    }
    const FdCloser closer{fd};
    std::sort(want.begin(), want.end(), [](const Want& a, const Want& b) { return a.offset < b.offset; });
    std::string buf(4096, '\0');
    size_t skipped = 0;
    for (const Want& w : want) {
      const ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(w.offset));
      std::string_view got(buf.data(), n > 0 ? static_cast<size_t>(n) : 0);
      size_t len = got.empty() || got[0] != '{' ? 0 : object_length(got);
      nlohmann::json ev = len ? nlohmann::json::parse(got.substr(0, len), nullptr, false) : nlohmann::json();
      const nlohmann::json* args =
          ev.is_object() && ev.contains("args") && ev["args"].is_object() ? &ev["args"] : nullptr;
      if (!args) {
        ++skipped;
        continue;
      }
      CommTaskArgs a;
      a.slice = w.slice;
      if (auto it = args->find("size(Byte)"); it != args->end() && it->is_number_integer())
        a.size_bytes = it->get<int64_t>();
      auto str = [&](const char* key) {
        auto it = args->find(key);
        return it != args->end() && it->is_string() ? m.strings.intern(it->get<std::string>()) : k_none;
      };
      a.transport = str("transport type");
      a.link = str("link type");
      m.comm_task_args.push_back(a);
    }
    if (skipped)
      m.stats.warnings.push_back(path + ": " + std::to_string(skipped) +
                                 " HCCL plane tasks without readable args "
                                 "(byte alignment checks them as unknown)");
  }
  std::sort(m.comm_task_args.begin(), m.comm_task_args.end(),
            [](const CommTaskArgs& a, const CommTaskArgs& b) { return a.slice < b.slice; });
}

}  // namespace npu
