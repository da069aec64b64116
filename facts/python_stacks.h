// The user's own code around a host call, from the Python ranges a profiler records with stacks
// (torch.profiler / torch_npu `with_stack=True`: category python_function, named
// "FILE(LINE): FUNCTION", LINE being the function's first line). A call site is the innermost
// frame of the user's files that encloses the call, with the built-in method just below it (the
// `.item()`, `.cpu()`, `.to()` the user wrote). Built once, on first use, only for the tracks
// that hold Python ranges.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace npu {

struct CallSite {
  uint32_t frame = kNone32;  // the user's frame (a python_function slice), kNone32 when none
  StrId call = kEmptyStr;    // "<built-in method item of Tensor object at 0x..>" below it, if any
  uint32_t module = kNone32;  // the innermost module range around it (facts/module_ranges.h), if any
  bool profiler = false;       // a torch.profiler frame is around it (the profiler's own call)
  bool explicit_sync = false;  // torch.cuda.synchronize() made it
};

class PythonStacks {
 public:
  explicit PythonStacks(const RunModel& m);
  // Whether the run recorded Python frames at all (with_stack).
  bool available() const { return python_function_ != kNone32; }
  // The call site of a host slice (its own frame when it is a user frame).
  CallSite at(uint32_t slice) const;
  // The outermost user frames inside `slice` (where a fetch spends its time), slice indexes.
  std::vector<uint32_t> user_frames_inside(uint32_t slice) const;
  // The enclosing slice on the same track, kNone32 at the top.
  uint32_t parent(uint32_t slice) const;

  // "w_sync.py:11 step()" for a user frame; "" for kNone32.
  std::string site_text(uint32_t frame) const;
  // The module path of a module range: the module ranges from the outermost down to it, joined
  // with / as the modules facts write them ("Sequential_3/Linear_3").
  std::string module_path(uint32_t module) const;
  // ".item()" for "<built-in method item of Tensor object at 0x..>", "" when none.
  std::string call_text(StrId call) const;

 private:
  void build() const;
  bool is_user_frame(uint32_t slice) const;

  const RunModel& m_;
  StrId python_function_ = kNone32;
  mutable std::once_flag once_;
  mutable std::vector<uint32_t> parent_;   // per slice of a track with Python frames, else kNone32
  mutable std::vector<int8_t> user_name_;  // per StrId: -1 unseen, 0 library, 1 user
  mutable std::unordered_set<std::string> user_files_, user_dirs_;
};

// Call sites tallied: count and time per (frame name, call), the largest first.
class CallSiteTally {
 public:
  // `harness`: what made the call when a harness did (facts/harness.h), else nullptr.
  void add(const RunModel& m, const CallSite& c, Ns ns, const char* harness = nullptr);
  bool empty() const { return by_.empty(); }
  // [{site, file, line, function, call, count, ns, harness, evidence}], the `top` largest by ns.
  nlohmann::json json(const RunModel& m, const PythonStacks& stacks, size_t top = 5) const;

 private:
  struct Row {
    uint64_t count = 0;
    Ns ns = 0;
    uint32_t frame = kNone32;
    const char* harness = nullptr;
    std::vector<uint32_t> modules;  // module ranges around its calls, one per distinct name
  };
  static constexpr size_t kModulesPerSite = 3;
  std::unordered_map<uint64_t, Row> by_;  // key: frame name << 32 | call
};

}  // namespace npu
