// Which profiler `capture` uses, and why (said on stderr). Pure logic, unit-tested.
#pragma once
#include <optional>
#include <string>

namespace npu::collector {

enum class Profiler { Auto, TorchNpu, Msprof, Torch };
const char* to_string(Profiler p);  // "auto", "torch_npu", "msprof", "torch"
std::optional<Profiler> parse_profiler(const std::string& s);

// What is present: modules the command's Python can import (by import spec, without importing
// them) and msprof on PATH.
struct Probe {
  bool torch_npu = false;
  bool torch = false;
  bool msprof = false;
  std::string interpreter;  // the Python asked ("" for a non-Python command)
};

struct ProfilerChoice {
  Profiler profiler = Profiler::Auto;  // Auto only when `error` is set
  std::string why;                     // one line
  std::string error;                   // non-empty: no usable profiler (the reason)
};

// Order for --profiler auto: torch_npu (the Ascend PyTorch Profiler) when the command is Python
// and can import torch_npu; torch.profiler when it can import torch; msprof when it is on PATH
// (the only choice for non-Python commands). A forced profiler must be usable.
ProfilerChoice choose_profiler(Profiler requested, bool is_python, const Probe& probe);

}  // namespace npu::collector
