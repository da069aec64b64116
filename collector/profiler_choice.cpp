#include "collector/profiler_choice.h"

namespace npu::collector {

const char* to_string(Profiler p) {
  switch (p) {
    case Profiler::Auto: return "auto";
    case Profiler::TorchNpu: return "torch_npu";
    case Profiler::Msprof: return "msprof";
    case Profiler::Torch: return "torch";
  }
  return "?";
}

std::optional<Profiler> parse_profiler(const std::string& s) {
  for (Profiler p : {Profiler::Auto, Profiler::TorchNpu, Profiler::Msprof, Profiler::Torch})
    if (s == to_string(p)) return p;
  return std::nullopt;
}

ProfilerChoice choose_profiler(Profiler requested, bool is_python, const Probe& probe) {
  ProfilerChoice c;
  const std::string py = probe.interpreter.empty() ? "the command's Python" : probe.interpreter;
  auto fail = [&](std::string why) {
    c.profiler = Profiler::Auto;
    c.error = std::move(why);
    return c;
  };
  switch (requested) {
    case Profiler::TorchNpu:
      if (!is_python) return fail("--profiler torch_npu needs a Python command (python ..., a .py script)");
      if (!probe.torch_npu) return fail("--profiler torch_npu: " + py + " cannot import torch_npu");
      c.profiler = Profiler::TorchNpu;
      c.why = "asked for (--profiler torch_npu)";
      return c;
    case Profiler::Torch:
      if (!is_python) return fail("--profiler torch needs a Python command (python ..., a .py script)");
      if (!probe.torch) return fail("--profiler torch: " + py + " cannot import torch");
      c.profiler = Profiler::Torch;
      c.why = "asked for (--profiler torch)";
      return c;
    case Profiler::Msprof:
      if (!probe.msprof) return fail("--profiler msprof: msprof is not on PATH (source the CANN set_env.sh)");
      c.profiler = Profiler::Msprof;
      c.why = "asked for (--profiler msprof)";
      return c;
    case Profiler::Auto: break;
  }
  if (is_python) {
    if (probe.torch_npu) {
      c.profiler = Profiler::TorchNpu;
      c.why = py + " can import torch_npu";
    } else if (probe.torch) {
      c.profiler = Profiler::Torch;
      c.why = py + " can import torch but not torch_npu";
    } else if (probe.msprof) {
      c.profiler = Profiler::Msprof;
      c.why = py + " can import neither torch_npu nor torch; msprof is on PATH";
    } else {
      return fail(py + " can import neither torch_npu nor torch, and msprof is not on PATH: no profiler to run");
    }
    return c;
  }
  if (probe.msprof) {
    c.profiler = Profiler::Msprof;
    c.why = "not a Python command; msprof is on PATH";
    return c;
  }
  return fail(
      "not a Python command, and msprof is not on PATH: only msprof can profile a non-Python "
      "command (source the CANN set_env.sh), or run the Python script with python directly");
}

}  // namespace npu::collector
