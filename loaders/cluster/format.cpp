#include "loaders/cluster/format.h"

#include <algorithm>

#include "base/input_confinement.h"
#include "loaders/chrome_trace/format.h"
#include "loaders/common/ascend_layout.h"
#include "loaders/mindspore_legacy/format.h"
#include "loaders/msprof/format.h"

namespace npu {
namespace fs = std::filesystem;

namespace {

struct Inside {
  std::vector<std::string> runs, profs, traces, legacy;
};

Inside look_inside(const fs::path& p) {
  Inside in;
  std::error_code ec;
  for (const auto& e : list_input_dir(p)) {
    if (fs::is_directory(e, ec)) {
      std::string timeline;
      if (is_run_folder(e)) in.runs.push_back(e.string());
      else if (is_prof_folder_name(e)) in.profs.push_back(e.string());
      else if (is_mindspore_legacy(e, &timeline)) in.legacy.push_back(e.string());
    } else if (fs::is_regular_file(e, ec) && is_trace_name(e.filename().string())) {
      in.traces.push_back(e.string());
    }
  }
  for (auto* v : {&in.runs, &in.profs, &in.traces}) std::sort(v->begin(), v->end());
  return in;
}

Sniff members(int confidence, const std::vector<std::string>& of, const char* what) {
  Sniff s;
  s.confidence = confidence;
  if (of.size() == 1) {
    s.descend = of[0];
    s.reason = std::string("a folder around one ") + what;
    return s;
  }
  s.reason = "cluster of " + std::to_string(of.size()) + " " + what + "s";
  s.found.members = of;
  return s;
}

Sniff sniff_cluster(const fs::path& p) {
  if (!fs::is_directory(p)) return {};
  Inside in = look_inside(p);
  if (!in.runs.empty()) return members(confidence::kRunsInside, in.runs, "rank folder");
  if (!in.profs.empty()) return members(confidence::kOthersInside, in.profs, "msprof PROF_ folder");
  if (!in.traces.empty()) return members(confidence::kOthersInside, in.traces, "trace file");
  // A MindSpore job folder holding its profiler/ folder.
  if (in.legacy.size() == 1)
    return {confidence::kAnyFile, "a folder around one MindSpore legacy profiler folder", {}, in.legacy[0]};
  return {};
}

// msprof-analyze's cluster_analysis_output/ (or a folder holding only it).
Sniff sniff_analysis(const fs::path& p) {
  if (!fs::is_directory(p)) return {};
  if (!fs::is_regular_file(p / "cluster_step_trace_time.csv") &&
      !fs::is_regular_file(p / "cluster_communication.json") && !fs::is_directory(p / "cluster_analysis_output"))
    return {};
  return {confidence::kAnalysisInside,
          "msprof-analyze cluster_analysis_output (the profiler's cluster analysis, no rank folders)",
          {},
          {}};
}

}  // namespace

InputFormat cluster_format() { return {"cluster", kClusterKind, sniff_cluster, nullptr, nullptr, true}; }

InputFormat cluster_analysis_output_format() {
  return {"cluster_analysis_output", kClusterKind, sniff_analysis, nullptr, nullptr, true};
}

}  // namespace npu
