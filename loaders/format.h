// An input format as a unit: a name, a sniff that says how sure it is that a path is this format
// (and why: `inspect` prints it) and a load that reads it into a RunModel. Each format lives in
// its own folder under loaders/ and is listed once in loaders/formats.cpp; docs/adding-a-format.md
// is the guide.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "loaders/common/load_options.h"
#include "model/input.h"
#include "model/model.h"

namespace npu {

// How sure a sniff is. The highest claims the path; a tie at the top is an error that names both.
// The scale orders what a folder can hold, most specific first:
namespace confidence {
inline constexpr int kLayout = 100;         // the format's own layout or file type (ASCEND_PROFILER_OUTPUT, *.db)
inline constexpr int kFolderName = 90;      // the folder's name says it (PROF_*)
inline constexpr int kFolderFiles = 80;     // files only this format writes (MindSpore's *_raw_* dumps)
inline constexpr int kRunsInside = 60;      // a parent of rank folders
inline constexpr int kAnalysisInside = 50;  // the profiler's own cluster analysis, no rank folders
inline constexpr int kOthersInside = 40;    // a parent of PROF_ folders or trace files
inline constexpr int kLooseFiles = 30;      // files of the format loose in a folder (a lone *.db)
inline constexpr int kAnyFile = 10;         // a guess: any file, or a folder with one legacy folder inside
}  // namespace confidence

struct Sniff {
  int confidence = 0;   // 0: not this format
  std::string reason;   // one line: what was recognised (`inspect` prints it)
  Detection found;      // what the format found; the registry fills format, kind, path, confidence
  std::string descend;  // set: the path is a folder around one input: that input is detected instead
};

struct InputFormat {
  std::string name;  // "torch_npu_text": Detection::format, `inspect` and the docs name it so
  std::string kind;  // the kind in words reports print ("ascend run folder")
  // Looks at the path (a file or a folder that exists) without reading it whole. May throw
  // LoadError when the path is clearly this format's and broken (a CSV with an unknown header).
  std::function<Sniff(const std::filesystem::path& path)> sniff;
  // Fills the model from what the sniff found (before RunModel::finalize), each file or table
  // under its role (model/role.h), and says which rule its steps follow: model.meta.step_semantics
  // (model.h StepSemantics; left alone it is CaptureSegments, and a GPU trace's is LaunchedWork,
  // found by RunModel::finalize). Null for a cluster: the pipeline loads its members one by one.
  std::function<void(const Detection& d, RunModel& model, const LoadOptions& options)> load;
  // Runs after finalize and the steps every run shares (HCCL task arguments): what needs the
  // whole run, such as the rank's communication records (loaders/communication/).
  std::function<void(const Detection& d, RunModel& model)> finish;
  bool cluster = false;  // several runs
};

// The registry: the formats listed in loaders/formats.cpp, then those registered at run time.
const std::vector<InputFormat>& input_formats();
// Adds a format (a test's toy format, a plugin); a name already there is replaced.
void register_input_format(InputFormat format);
const InputFormat* find_input_format(std::string_view name);

}  // namespace npu
