#include "mcp/stdio_server.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <signal.h>
#include <unistd.h>

#include "base/input_confinement.h"
#include "mcp/advisor_handler.h"
#include "mcp/protocol.h"

namespace npu::mcp {

namespace {

namespace fs = std::filesystem;

std::string make_private_folder() {
  const char* base = std::getenv("TMPDIR");
  std::string path = std::string(base && *base ? base : "/tmp") + "/npu-advisor-mcp-XXXXXX";
  return ::mkdtemp(path.data()) ? path : std::string();
}

// A process that waits until the server is gone (the write end of its pipe closes with the
// server, however it ends) and then removes `folder`. It ignores the terminal's signals and holds
// none of the server's streams, so a client waiting for them to close does not wait for it.
bool start_watcher(const std::string& folder) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    for (int fd = 3; fd < 1024; ++fd)
      if (fd != fds[0]) ::close(fd);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_IGN);
    char c;
    for (ssize_t n = 1; n != 0 && (n > 0 || errno == EINTR);) n = ::read(fds[0], &c, 1);
    std::error_code ec;
    fs::remove_all(folder, ec);
    ::_exit(0);
  }
  ::close(fds[0]);  // the write end stays open until the server ends
  return true;
}

bool write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Reads messages one a line from `in` and answers each on `out` until `in` ends or `out` fails.
void serve_lines(Server& server, int in, int out) {
  std::string line;
  bool skipping = false;  // inside a line over the limit: dropped up to its newline
  auto answer = [&](std::string_view text) {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    const std::string reply = server.handle_line(text);
    return reply.empty() || write_all(out, reply + "\n");
  };
  char chunk[65536];
  while (true) {
    const ssize_t n = ::read(in, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::string_view data(chunk, static_cast<size_t>(n));
    while (!data.empty()) {
      const size_t nl = data.find('\n');
      const std::string_view piece = data.substr(0, nl);
      data = nl == std::string_view::npos ? std::string_view() : data.substr(nl + 1);
      if (!skipping) line.append(piece);
      if (!skipping && line.size() > kMaxMessageBytes) {
        if (!write_all(out, Server::too_long_reply(kMaxMessageBytes) + "\n")) return;
        line.clear();
        skipping = true;
      }
      if (nl == std::string_view::npos) break;
      if (!skipping && !answer(line)) return;
      line.clear();
      skipping = false;
    }
  }
  if (!skipping && !line.empty()) answer(line);  // a last message without its newline
}

}  // namespace

int serve_stdio(const StdioOptions& options) {
  std::optional<PathGuard> guard;
  try {
    guard.emplace(options.allow);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: --allow %s\n", e.what());
    return 2;
  }
  if (guard->roots().empty()) {
    std::fprintf(stderr, "error: mcp needs at least one --allow DIR: the folders its tools may read\n");
    return 2;
  }
  // From here on every file a load opens lies beneath an allowed folder (base/input_confinement.h):
  // the guard's checks answer the model, the confinement is what holds when a check is raced.
  try {
    confine_inputs(guard->roots());
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: --allow %s\n", e.what());
    return 2;
  }
  const std::string folder = make_private_folder();
  if (folder.empty() || !start_watcher(folder)) {
    std::fprintf(stderr, "error: cannot make a private temporary folder: %s\n", std::strerror(errno));
    if (!folder.empty()) ::rmdir(folder.c_str());
    return 2;
  }
  ::setenv("TMPDIR", folder.c_str(), 1);  // every temporary file of the loaders goes there
  ::signal(SIGPIPE, SIG_IGN);             // a client gone: the write fails and the server ends
  // The replies get their own descriptor; whatever else writes to stdout reaches stderr.
  const int out = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (out < 0 || ::dup2(2, 1) < 0) {
    std::fprintf(stderr, "error: cannot set up stdout: %s\n", std::strerror(errno));
    return 2;
  }
  std::string roots;
  for (const auto& r : guard->roots()) roots += (roots.empty() ? "" : ", ") + r;
  ServerInfo info;
  info.version = options.version;
  info.instructions =
      "npu-advisor analyzes profiler output of AI training and inference (Huawei Ascend torch_npu / MindSpore / "
      "msprof, PyTorch Kineto traces). Start with `analyze` on a run folder or trace; `explain_finding` gives a "
      "finding's evidence and how its saving was computed; `facts` reads any number with its unit and meaning; "
      "`compare` says what got slower between two runs. Paths must lie inside: " +
      roots + ".";
  AdvisorHandler handler(std::move(*guard));
  Server server(handler, info);
  std::fprintf(stderr, "npu-advisor mcp: serving MCP on stdin/stdout; tools may read %s\n", roots.c_str());
  serve_lines(server, 0, out);
  ::close(out);
  std::error_code ec;
  fs::remove_all(folder, ec);
  return 0;
}

}  // namespace npu::mcp
