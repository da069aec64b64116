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

// Checked before anything is loaded (a typo should not cost a load); write_output() checks
// again, at the write, against every file the loaders opened (base/input_registry.h), which
// covers the files inside input folders (a cluster member's trace, a baseline run's CSV).
//
// True when every output leaves the inputs alone; otherwise prints one line naming the flag,
// the file and the input, and returns false. Refused: an output that is (a hard or symbolic
// link to) an input file or folder, a *.facts.json inside `facts_dir` (it would join the ranks
// being reduced, or be one), and two outputs naming the same file.
bool outputs_leave_inputs_alone(const std::vector<OutputTarget>& outputs, const std::vector<std::string>& inputs,
                                const std::string& facts_dir = "");

}  // namespace npu::cli
