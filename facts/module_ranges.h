// Which host ranges name a part of the model (docs/facts-modules.md): an nn.Module forward that
// a profiler recorded with stacks ("nn.Module: Linear_3"), a record_function / user annotation
// or an mstx range, ProfilerStep#N aside (the step itself). The module view (modules.cpp) and
// the call sites (python_stacks.cpp) both ask here.
#pragma once
#include <cstdint>
#include <string_view>

namespace npu {

enum class ModuleRangeKind : uint8_t { None, Module, Annotation };

inline ModuleRangeKind module_range_kind(std::string_view name, std::string_view cat) {
  if (name.rfind("nn.Module: ", 0) == 0) return ModuleRangeKind::Module;
  if ((cat == "user_annotation" || cat == "mstx") && name.rfind("ProfilerStep#", 0) != 0)
    return ModuleRangeKind::Annotation;
  return ModuleRangeKind::None;
}

// The name a module path uses: "Linear_3" for "nn.Module: Linear_3", other ranges as named.
inline std::string_view module_label(std::string_view name) {
  return name.rfind("nn.Module: ", 0) == 0 ? name.substr(11) : name;
}

}  // namespace npu
