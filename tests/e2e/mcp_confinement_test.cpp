// The MCP server reads nothing outside its --allow folders (issue 47), through the binary: the
// run folder above an output folder given alone, a database's -wal sibling linked out, a link
// swapped in between the path check and the load (many times), and refusals that say the same
// for an outside path that exists and one that does not.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "test_support.h"

namespace fs = std::filesystem;
using nlohmann::json;
using npu::test::slurp;
using npu::test::TempDir;

namespace {

// `npu-advisor mcp --allow ...` started with pipes on stdin and stdout.
class McpProcess {
 public:
  explicit McpProcess(const std::vector<std::string>& allow, const std::string& err_file) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      std::FILE* err = std::fopen(err_file.c_str(), "w");
      if (err) ::dup2(fileno(err), 2);
      ::close(in[1]);
      ::close(out[0]);
      std::vector<std::string> args = {NPU_ADVISOR_BIN, "mcp"};
      for (const auto& a : allow) args.insert(args.end(), {"--allow", a});
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
    send(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
    read_line();
  }
  ~McpProcess() {
    if (to_ >= 0) ::close(to_);
    if (from_ >= 0) ::close(from_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }
  bool started() const { return pid_ > 0 && to_ >= 0; }

  // The tool's text (its JSON, or the error's words) and whether it was an error.
  std::pair<std::string, bool> call(const std::string& name, const json& args) {
    json req = {
        {"jsonrpc", "2.0"}, {"id", ++id_}, {"method", "tools/call"}, {"params", {{"name", name}, {"arguments", args}}}};
    send(req.dump());
    const std::string line = read_line();
    json r = json::parse(line, nullptr, false);
    if (r.is_discarded() || !r.contains("result")) return {line, true};
    return {r["result"]["content"][0]["text"].get<std::string>(), r["result"].value("isError", false)};
  }

 private:
  void send(const std::string& line) {
    const std::string l = line + "\n";
    for (size_t w = 0; w < l.size();) {
      const ssize_t k = ::write(to_, l.data() + w, l.size() - w);
      if (k <= 0) return;
      w += static_cast<size_t>(k);
    }
  }
  std::string read_line() {
    for (;;) {
      if (const size_t nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      char chunk[65536];
      const ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0) return std::exchange(buf_, "");
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  int id_ = 0;
  std::string buf_;
};

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// The sample run copied to `dest`, with a marker in its run folder's metadata (above the output).
fs::path sample_with_marker(const fs::path& dest, const std::string& marker) {
  fs::copy(npu::test::sample_run(), dest, fs::copy_options::recursive);
  std::string meta = slurp(dest / "profiler_metadata.json");
  const std::string key = R"("TASK_QUEUE_ENABLE": "1")";
  meta.replace(meta.find(key), key.size(), R"("TASK_QUEUE_ENABLE": ")" + marker + R"(")");
  write_file(dest / "profiler_metadata.json", meta);
  std::string info = slurp(dest / "profiler_info.json");
  info.replace(info.find("./prof_sample"), 13, marker);
  write_file(dest / "profiler_info.json", info);
  return dest;
}

// A minimal Kineto trace whose one kernel is named `kernel`.
std::string kineto_trace(const std::string& kernel) {
  return R"({"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
{"ph": "X", "cat": "kernel", "name": ")" +
         kernel + R"(", "pid": 0, "tid": 7, "ts": 10, "dur": 30, "args": {"device": 0, "stream": 7}}
]})";
}

}  // namespace

// Given RUN/ASCEND_PROFILER_OUTPUT alone, the server reads nothing of RUN: neither
// profiler_info*.json nor profiler_metadata.json, and says the run folder was not read.
TEST(McpConfinement, TheRunFolderAboveAnAllowedOutputIsNotRead) {
  TempDir d;
  const fs::path run = sample_with_marker(d.path() / "x_ascend_pt", "OUTSIDE_MARKER_31337");
  const fs::path out = run / "ASCEND_PROFILER_OUTPUT";
  {
    McpProcess server({out.string()}, (d.path() / "err").string());
    ASSERT_TRUE(server.started());
    for (const char* part : {"", "run", "input"}) {
      auto [text, error] = server.call("facts", {{"path", out.string()}, {"facts_path", part}});
      EXPECT_FALSE(error) << text;
      EXPECT_EQ(text.find("OUTSIDE_MARKER_31337"), std::string::npos) << part << ": " << text.substr(0, 400);
    }
    auto [text, error] = server.call("facts", {{"path", out.string()}, {"facts_path", "run.warnings"}});
    EXPECT_NE(text.find("the run folder is outside the folders this server may read"), std::string::npos) << text;
    auto [summary, error2] = server.call("analyze", {{"path", out.string()}});
    EXPECT_FALSE(error2) << summary;
    EXPECT_EQ(summary.find("OUTSIDE_MARKER_31337"), std::string::npos);
  }
  // Allowed the run folder, the same server reads them (the marker is where the test put it).
  McpProcess server({run.string()}, (d.path() / "err").string());
  auto [text, error] = server.call("facts", {{"path", out.string()}, {"facts_path", "run"}});
  EXPECT_NE(text.find("OUTSIDE_MARKER_31337"), std::string::npos) << text.substr(0, 400);
}

// A database whose -wal sibling is a link to a log outside: refused, the outside log never read.
TEST(McpConfinement, ADatabaseLogLinkedOutsideIsNotRead) {
  TempDir d;
  fs::create_directories(d.path() / "allowed");
  fs::create_directories(d.path() / "secret");
  const std::string db = npu::test::database_with_log(d.path() / "allowed", "msprof_0.db");
  ASSERT_GT(fs::file_size(db + "-wal"), 0u);
  fs::rename(db + "-wal", d.path() / "secret/log");
  fs::create_symlink(d.path() / "secret/log", db + "-wal");
  McpProcess server({(d.path() / "allowed").string()}, (d.path() / "err").string());
  // The folder check refuses the link first; the file given alone reaches the loader, which
  // refuses to read the log through it.
  for (const std::string& path : {(d.path() / "allowed").string(), db}) {
    auto [text, error] = server.call("facts", {{"path", path}, {"facts_path", ""}});
    EXPECT_TRUE(error) << path << ": " << text.substr(0, 400);
    EXPECT_NE(text.find("outside the folders this server may read"), std::string::npos) << text;
  }
  // The same refusal when the log it links to does not exist: nothing tells it apart.
  fs::remove(d.path() / "secret/log");
  auto [text, error] = server.call("facts", {{"path", db}, {"facts_path", ""}});
  EXPECT_TRUE(error);
  EXPECT_NE(text.find("outside the folders this server may read"), std::string::npos) << text;
}

// A trace swapped for a link to an outside trace while the server works: 200 loads, and none
// of them returns what the outside trace holds.
TEST(McpConfinement, ALinkSwappedInAfterTheCheckIsNotFollowed) {
  TempDir d;
  fs::create_directories(d.path() / "allowed/run");
  fs::create_directories(d.path() / "secret");
  write_file(d.path() / "secret/s.pt.trace.json", kineto_trace("SECRET_KERNEL_4711"));
  const fs::path trace = d.path() / "allowed/run/t.pt.trace.json";
  write_file(trace, kineto_trace("inside_kernel"));
  write_file(d.path() / "allowed/regular", kineto_trace("inside_kernel"));
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    const fs::path link = d.path() / "allowed/link", copy = d.path() / "allowed/copy";
    // Each state is held about as long as the other (both prepared before the swap, then a
    // pause), so a loaded machine cannot leave the trace a link for every call.
    while (!stop) {
      std::error_code ec;
      fs::remove(link, ec);
      fs::create_symlink(d.path() / "secret/s.pt.trace.json", link, ec);
      fs::copy_file(d.path() / "allowed/regular", copy, fs::copy_options::overwrite_existing, ec);
      fs::rename(link, trace, ec);  // atomically: the trace is now a link out
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      fs::rename(copy, trace, ec);  // and a regular file again
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  int leaked = 0, loaded = 0;
  {
    McpProcess server({(d.path() / "allowed").string()}, (d.path() / "err").string());
    for (int i = 0; i < 200; ++i) {
      const std::string path = (i % 2 ? trace : trace.parent_path()).string();
      auto [text, error] = server.call("facts", {{"path", path}, {"facts_path", "operators"}});
      leaked += text.find("SECRET_KERNEL_4711") != std::string::npos;
      loaded += !error;
    }
  }
  stop = true;
  swapper.join();
  EXPECT_EQ(leaked, 0);
  EXPECT_GT(loaded, 0);  // the race was run: some loads found the regular file
}

// A refusal reads the same for an outside path that exists and for one that does not.
TEST(McpConfinement, RefusalsDoNotTellWhetherAnOutsideFileExists) {
  TempDir d;
  fs::create_directories(d.path() / "allowed");
  fs::create_directories(d.path() / "secret");
  write_file(d.path() / "secret/there.json", "{}");
  McpProcess server({(d.path() / "allowed").string()}, (d.path() / "err").string());
  auto refusal = [&](const std::string& path) {
    auto [text, error] = server.call("analyze", {{"path", path}});
    EXPECT_TRUE(error) << path;
    const size_t at = text.find(path);
    return at == std::string::npos ? text : text.substr(0, at) + "PATH" + text.substr(at + path.size());
  };
  const std::string base = (d.path() / "allowed/../secret/").string();
  EXPECT_EQ(refusal(base + "there.json"), refusal(base + "missing.json"));
  EXPECT_EQ(refusal("/etc/../etc/passwd"), refusal("/etc/../etc/no-such-file-here"));
  // A link inside leading out: refused the same whether its target exists or not.
  fs::create_symlink(d.path() / "secret/there.json", d.path() / "allowed/a");
  fs::create_symlink(d.path() / "secret/missing.json", d.path() / "allowed/b");
  const std::string a = refusal((d.path() / "allowed/a").string());
  EXPECT_EQ(a, refusal((d.path() / "allowed/b").string()));
  EXPECT_EQ(a.find("secret"), std::string::npos) << a;
  const std::string folder = refusal((d.path() / "allowed").string());
  EXPECT_NE(folder.find("leading outside"), std::string::npos) << folder;
  EXPECT_EQ(folder.find("secret"), std::string::npos) << folder;
}
