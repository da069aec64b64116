// One guard for every command and every output flag: an output must never overwrite or
// touch an input (a typo in CI must not destroy the baseline it compares against).
#pragma once
#include <string>
#include <vector>

namespace npu::cli {

struct OutputTarget {
  std::string flag;  // "-o", "--junit", ... (for the message)
  std::string path;  // empty or "-": stdout, never refused
};

// True when every output leaves the inputs alone; otherwise prints one line naming the flag,
// the file and the input it would change, and returns false. Refused: an output that is (a
// hard or symbolic link to) an input file or folder, an existing file inside an input folder
// (a run's, a cluster's or a rule folder's), a new *.facts.json inside `facts_dir` (it
// would join the ranks being reduced), and two outputs naming the same file.
bool outputs_leave_inputs_alone(const std::vector<OutputTarget>& outputs, const std::vector<std::string>& inputs,
                                const std::string& facts_dir = "");

}  // namespace npu::cli
