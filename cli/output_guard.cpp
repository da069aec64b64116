#include "cli/output_guard.h"

#include <cstdio>
#include <filesystem>

namespace npu::cli {
namespace {

namespace fs = std::filesystem;

// The absolute path with symbolic links resolved as far as the path exists.
fs::path resolved(const std::string& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::path(p).lexically_normal() : r;
}

// True when `inner` is `outer` or lies below it (component-wise, both resolved).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin(), o = outer.begin();
  for (; o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

bool refuse(const OutputTarget& out, const std::string& why) {
  std::fprintf(stderr, "error: %s %s %s; choose another output file (nothing was written)\n", out.flag.c_str(),
               out.path.c_str(), why.c_str());
  return false;
}

}  // namespace

bool outputs_leave_inputs_alone(const std::vector<OutputTarget>& outputs, const std::vector<std::string>& inputs,
                                const std::string& facts_dir) {
  std::vector<fs::path> seen;
  for (const auto& out : outputs) {
    if (out.path.empty() || out.path == "-") continue;
    std::error_code ec;
    const fs::path o = resolved(out.path);
    const bool exists = fs::exists(out.path, ec);
    for (const auto& in : inputs) {
      if (in.empty()) continue;
      const fs::path i = resolved(in);
      bool same = o == i || (exists && fs::exists(in, ec) && fs::equivalent(out.path, in, ec));
      if (same) return refuse(out, "is an input (" + in + ")");
    }
    // The reduce reads every NAME.facts.json of the folder, and NAME.facts.missing (why a rank
    // has no facts): an output named either way would become, or overwrite, one of its inputs.
    if (!facts_dir.empty() && is_within(o, resolved(facts_dir)) &&
        (out.path.ends_with(".facts.json") || out.path.ends_with(".facts.missing")))
      return refuse(out, "would become one of the ranks in " + facts_dir);
    for (const auto& s : seen)
      if (s == o) return refuse(out, "is named by two output options");
    seen.push_back(o);
  }
  return true;
}

}  // namespace npu::cli
