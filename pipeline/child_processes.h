// Runs independent jobs in forked child processes, a few at a time, and hands back what each
// wrote. The cluster analysis runs one rank per child: a rank's full facts of a long capture
// are hundreds of MB of small JSON nodes, and freeing them one by one cost a 100 MB rank of
// 53,604 steps 0.43 s, a fifth of its analysis; a child that exits gives all of it back at
// once, and the parent never holds more than the small results.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace npu::pipeline {

struct ChildResult {
  std::string bytes;  // what the job returned
  std::string error;  // not empty: the child died before it could say (a signal, out of memory)
};

// Runs job(i, in_child) for every i in [0, n), at most `workers` at once, each in its own child process
// forked from the calling thread, which must be the process's only thread (a fork of a
// multi-threaded process may only call async-signal-safe functions). A job must catch its own
// exceptions and say them in its bytes. `in_child`: the process exits once the bytes are
// written, so the job may leave its memory for the exit to take back whole. Where a child
// cannot be started (fork or memfd_create fails) the job runs in this process instead
// (in_child false), with the same result.
using ChildJob = std::function<std::string(size_t i, bool in_child)>;
// Each result is handed to `done` as soon as its job ends (in the calling process, in the order
// the jobs end), so the caller can keep what it needs and drop the bytes: 64 ranks' results
// held until the last one ended made the parent the largest process.
using ChildDone = std::function<void(size_t i, ChildResult&& result)>;
void run_in_child_processes(size_t n, int workers, const ChildJob& job, const ChildDone& done);
// The same, every result kept and returned (index i: job i).
std::vector<ChildResult> run_in_child_processes(size_t n, int workers, const ChildJob& job);

}  // namespace npu::pipeline
