// A thread whose exception reaches the thread that joins it. An exception that leaves a
// std::thread's function calls std::terminate (an out-of-memory in a side thread killed the
// whole run with SIGABRT and no message): here it is kept and rethrown by join(), where the
// pipeline turns it into a one-line error. The destructor joins, so unwinding past a running
// worker waits for it rather than terminating.
#pragma once
#include <exception>
#include <thread>
#include <utility>

namespace npu {

class WorkerThread {
 public:
  WorkerThread() = default;
  template <class F>
  explicit WorkerThread(F&& f) {
    start(std::forward<F>(f));
  }
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;
  ~WorkerThread() {
    if (thread_.joinable()) thread_.join();
  }

  // Runs f on a new thread (none may be running).
  template <class F>
  void start(F&& f) {
    thread_ = std::thread([this, fn = std::forward<F>(f)]() mutable {
      try {
        fn();
      } catch (...) {
        error_ = std::current_exception();
      }
    });
  }
  bool running() const { return thread_.joinable(); }
  // Waits for the thread, then rethrows what its function threw.
  void join() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace npu
