#include "facts/python_stacks.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "facts/facts.h"
#include "facts/module_ranges.h"

namespace npu {

namespace {

// "dir/file.py(12): func" -> {"dir/file.py", 12, "func"}; false when the name is not a frame.
struct Frame {
  std::string_view file, function;
  int64_t line = 0;
};
bool parse_frame(std::string_view n, Frame& f) {
  const size_t close = n.find("): ");
  if (close == std::string_view::npos || n.empty() || n[0] == '<') return false;
  const size_t open = n.rfind('(', close);
  if (open == std::string_view::npos || open == 0) return false;
  int64_t line = 0;
  for (size_t i = open + 1; i < close; ++i) {
    if (n[i] < '0' || n[i] > '9' || line > 1'000'000'000) return false;
    line = line * 10 + (n[i] - '0');
  }
  f.file = n.substr(0, open);
  f.line = line;
  f.function = n.substr(close + 3);
  return true;
}

std::string_view dir_of(std::string_view file) {
  const size_t slash = file.rfind('/');
  return slash == std::string_view::npos ? std::string_view{} : file.substr(0, slash);
}

// Files that are never the user's: the framework, installed packages, the interpreter's.
bool library_file(std::string_view file) {
  return file.rfind("torch/", 0) == 0 || file.rfind("torch_npu/", 0) == 0 ||
         file.find("site-packages/") != std::string_view::npos ||
         file.find("dist-packages/") != std::string_view::npos || file.find("/lib/python") != std::string_view::npos ||
         file == "runpy.py";
}

}  // namespace

PythonStacks::PythonStacks(const RunModel& m) : m_(m), python_function_(m.strings.find("python_function")) {}

uint32_t PythonStacks::parent(uint32_t slice) const {
  build();
  return slice < parent_.size() ? parent_[slice] : kNone32;
}

// Per track that holds Python frames: each slice's enclosing slice (a stack over the slices in
// start order). Then the user's files: the scripts run as `<module>` at the top of a stack, and
// the files of the frames around each step's start (the training loop), with the files in their
// folders when those are named (a relative path with no folder could be the interpreter's own).
void PythonStacks::build() const {
  std::call_once(once_, [this] {
    if (!available()) return;
    parent_.assign(m_.slices.size(), kNone32);
    std::vector<uint32_t> python_tracks;
    for (uint32_t t = 0; t < m_.tracks.size() && t < m_.track_slices.size(); ++t) {
      if (m_.tracks[t].kind == TrackKind::Device) continue;
      const auto r = m_.track_slices[t];
      bool python = false;
      std::vector<uint32_t> stack;
      for (uint32_t i = r.begin; i < r.end; ++i) {
        const Slice& s = m_.slices[i];
        while (!stack.empty() && m_.slices[stack.back()].end() < s.end()) stack.pop_back();
        parent_[i] = stack.empty() ? kNone32 : stack.back();
        stack.push_back(i);
        if (s.cat == python_function_) python = true;
      }
      if (!python) {
        for (uint32_t i = r.begin; i < r.end; ++i) parent_[i] = kNone32;
        continue;
      }
      python_tracks.push_back(t);
      for (uint32_t i = r.begin; i < r.end; ++i) {
        const Slice& s = m_.slices[i];
        Frame f;
        if (s.cat != python_function_ || !parse_frame(m_.str(s.name), f)) continue;
        uint32_t p = parent_[i];
        while (p != kNone32 && m_.slices[p].cat != python_function_) p = parent_[p];
        if (p == kNone32 && f.function == "<module>" && !library_file(f.file)) user_files_.emplace(f.file);
      }
    }
    for (const Step& st : m_.steps) {
      for (uint32_t t : python_tracks) {
        for (uint32_t p = m_.enclosing_slice(t, st.start); p != kNone32; p = parent_[p]) {
          Frame f;
          if (m_.slices[p].cat == python_function_ && parse_frame(m_.str(m_.slices[p].name), f) &&
              !library_file(f.file))
            user_files_.emplace(f.file);
        }
      }
    }
    for (const std::string& f : user_files_)
      if (!dir_of(f).empty()) user_dirs_.emplace(dir_of(f));
    user_name_.assign(m_.strings.size(), -1);
  });
}

// Fills the per-name cache (user_name_) as it goes: the diagnostics that ask (gpu, dataloader)
// run on the main thread, one at a time; a caller on another thread would need its own instance.
bool PythonStacks::is_user_frame(uint32_t slice) const {
  const Slice& s = m_.slices[slice];
  if (s.cat != python_function_) return false;
  int8_t& k = user_name_[s.name];
  if (k < 0) {
    Frame f;
    k = 0;
    if (parse_frame(m_.str(s.name), f) && !library_file(f.file)) {
      const std::string file(f.file);
      k = user_files_.count(file) || (!dir_of(file).empty() && user_dirs_.count(std::string(dir_of(file)))) ? 1 : 0;
    }
  }
  return k == 1;
}

CallSite PythonStacks::at(uint32_t slice) const {
  build();
  CallSite c;
  if (!available() || slice >= parent_.size()) return c;
  // Bounded: a pathological nesting costs at most this many steps per call.
  int budget = 512;
  for (uint32_t p = slice; p != kNone32 && budget-- > 0; p = parent_[p]) {
    // The innermost module range around the call, above or below the user's frame.
    if (c.module == kNone32 && module_range_kind(m_.str(m_.slices[p].name), m_.str(m_.slices[p].cat)) !=
                                   ModuleRangeKind::None)
      c.module = p;
    if (m_.slices[p].cat != python_function_) continue;
    const std::string_view name = m_.str(m_.slices[p].name);
    if (name.rfind("torch/profiler/", 0) == 0 || name.rfind("torch/autograd/profiler", 0) == 0) c.profiler = true;
    constexpr std::string_view kSync = "): synchronize";
    if (name.rfind("torch/cuda/__init__.py(", 0) == 0 && name.size() > kSync.size() &&
        name.substr(name.size() - kSync.size()) == kSync)
      c.explicit_sync = true;
    if (c.frame != kNone32) continue;
    if (is_user_frame(p)) {
      c.frame = p;
      continue;
    }
    if (name.rfind("<built-in method ", 0) == 0) c.call = m_.slices[p].name;
  }
  if (c.frame == kNone32) c.call = kEmptyStr, c.module = kNone32;  // no user frame: only what made it
  return c;
}

std::string PythonStacks::module_path(uint32_t module) const {
  build();
  std::vector<std::string_view> names;
  int budget = 512;
  for (uint32_t p = module; p != kNone32 && p < parent_.size() && budget-- > 0; p = parent_[p]) {
    const Slice& s = m_.slices[p];
    if (module_range_kind(m_.str(s.name), m_.str(s.cat)) != ModuleRangeKind::None)
      names.push_back(module_label(m_.str(s.name)));
  }
  std::string out;
  for (size_t i = names.size(); i-- > 0;) {
    out += names[i];
    if (i > 0) out += '/';
  }
  return out;
}

std::vector<uint32_t> PythonStacks::user_frames_inside(uint32_t slice) const {
  build();
  std::vector<uint32_t> out;
  if (!available() || slice >= parent_.size()) return out;
  const Slice& outer = m_.slices[slice];
  const auto r = m_.track_slices[outer.track];
  for (uint32_t i = slice + 1; i < r.end && m_.slices[i].ts <= outer.end(); ++i) {
    if (!is_user_frame(i)) continue;
    // Outermost: no user frame between it and the outer slice.
    bool outermost = true;
    int budget = 512;
    for (uint32_t p = parent_[i]; p != kNone32 && p != slice && budget-- > 0; p = parent_[p])
      if (is_user_frame(p)) {
        outermost = false;
        break;
      }
    if (outermost) out.push_back(i);
  }
  return out;
}

std::string PythonStacks::site_text(uint32_t frame) const {
  Frame f;
  if (frame == kNone32 || !parse_frame(m_.str(m_.slices[frame].name), f)) return {};
  return std::string(f.file) + ":" + std::to_string(f.line) + " " + std::string(f.function) + "()";
}

std::string PythonStacks::call_text(StrId call) const {
  // "<built-in method item of Tensor object at 0x7f..>" -> ".item()"
  const std::string_view n = m_.str(call);
  constexpr std::string_view kPrefix = "<built-in method ";
  if (call == kEmptyStr || n.rfind(kPrefix, 0) != 0) return {};
  std::string_view rest = n.substr(kPrefix.size());
  rest = rest.substr(0, rest.find(' '));
  return "." + std::string(rest) + "()";
}

void CallSiteTally::add(const RunModel& m, const CallSite& c, Ns ns, const char* harness) {
  if (c.frame == kNone32) return;
  // One row per (frame name, call): a site however often it ran.
  Row& r = by_[(uint64_t{m.slices[c.frame].name} << 32) | c.call];
  if (r.count++ == 0) r.frame = c.frame, r.harness = harness;
  r.ns += ns;
  if (c.module == kNone32) return;
  const StrId name = m.slices[c.module].name;
  for (uint32_t k : r.modules)
    if (m.slices[k].name == name) return;
  if (r.modules.size() < kModulesPerSite) r.modules.push_back(c.module);
}

nlohmann::json CallSiteTally::json(const RunModel& m, const PythonStacks& stacks, size_t top) const {
  std::vector<std::pair<uint64_t, Row>> rows(by_.begin(), by_.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.ns != b.second.ns ? a.second.ns > b.second.ns : a.first < b.first;
  });
  if (rows.size() > top) rows.resize(top);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, r] : rows) {
    Frame f;
    parse_frame(m.str(m.slices[r.frame].name), f);
    nlohmann::json modules = nlohmann::json::array();
    for (uint32_t k : r.modules) modules.push_back(stacks.module_path(k));
    nlohmann::json row = {{"site", stacks.site_text(r.frame)},
         {"modules", std::move(modules)},
         {"file", std::string(f.file)},
         {"line", f.line},
         {"function", std::string(f.function)},
         {"call", stacks.call_text(static_cast<StrId>(key & 0xffffffffu))},
         {"count", r.count},
         {"ns", r.ns},
         {"evidence", nlohmann::json::array({evidence_event(m, m.slices[r.frame].loc, "the calling frame")})}};
    if (r.harness) row["harness"] = r.harness;  // only where a harness made the calls (facts/harness.h)
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace npu
