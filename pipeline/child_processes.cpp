#include "pipeline/child_processes.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace npu::pipeline {
namespace {

bool write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, std::string& out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  out.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t r = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status))
    return std::string("its analysis process was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + (WTERMSIG(status) == SIGKILL ? "; out of memory?" : "") + ")";
  return "its analysis process exited with code " + std::to_string(WEXITSTATUS(status)) + " before writing a result";
}

struct Running {
  pid_t pid;
  size_t job;
  int fd;  // the memfd the child writes its result into
};

}  // namespace

std::vector<ChildResult> run_in_child_processes(size_t n, int workers, const ChildJob& job) {
  std::vector<ChildResult> out(n);
  run_in_child_processes(n, workers, job, [&](size_t i, ChildResult&& r) { out[i] = std::move(r); });
  return out;
}

void run_in_child_processes(size_t n, int workers, const ChildJob& job, const ChildDone& done) {
  std::vector<Running> running;
  size_t next = 0;
  auto start = [&](size_t i) {
    int fd = ::memfd_create("npu-advisor-job", MFD_CLOEXEC);
    pid_t pid = fd >= 0 ? ::fork() : -1;
    if (pid == 0) {
      // The child: its result goes to the memfd; _exit, so neither this process's destructors
      // nor atexit handlers run (they belong to the parent) and nothing is freed piece by piece.
      int code = 3;
      try {
        if (write_all(fd, job(i, true))) code = 0;
      } catch (...) {  // never let it unwind into the parent's code, running in this copy of it
      }
      ::_exit(code);
    }
    if (pid < 0) {  // no child: run it here
      if (fd >= 0) ::close(fd);
      done(i, ChildResult{job(i, false), ""});
      return;
    }
    running.push_back(Running{pid, i, fd});
  };
  while (next < n || !running.empty()) {
    while (next < n && running.size() < static_cast<size_t>(workers)) start(next++);
    bool reaped = false;
    for (size_t k = 0; k < running.size();) {
      int status = 0;
      pid_t r = ::waitpid(running[k].pid, &status, WNOHANG);
      if (r == 0 || (r < 0 && errno == EINTR)) {
        ++k;
        continue;
      }
      ChildResult res;
      if (r < 0) res.error = std::string("its analysis process could not be waited for: ") + std::strerror(errno);
      else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) res.error = how_it_ended(status);
      else if (!read_all(running[k].fd, res.bytes)) res.error = "its analysis process's result could not be read";
      ::close(running[k].fd);
      const size_t finished = running[k].job;
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      reaped = true;
      done(finished, std::move(res));
    }
    // A job takes from milliseconds to seconds: polling each millisecond costs nothing and
    // waits only for our own children (waitpid(-1) could reap someone else's).
    if (!reaped && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace npu::pipeline
