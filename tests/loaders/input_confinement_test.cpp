// Inputs confined to folders (base/input_confinement.h): what opens beneath them, what is refused
// as outside (EXDEV, whether it exists or not), and the SQLite reader and write-ahead log under
// it. Confinement is for the whole process and cannot be undone, so each confined case runs in a
// child process of its own (a gtest death test that must exit 0; its stderr says what failed).
#include "base/input_confinement.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sqlite3.h>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "base/input_registry.h"
#include "base/load_error.h"
#include "loaders/chrome_trace/capture_traces.h"
#include "loaders/db/sqlite_db.h"
#include "loaders/db/sqlite_wal.h"
#include "test_support.h"

namespace fs = std::filesystem;
using npu::test::TempDir;

namespace {

// "" when `path` opens, else why not ("EXDEV", "ENOENT", ...).
std::string open_error(const fs::path& path) {
  const int fd = npu::open_confined(path.string(), O_RDONLY);
  if (fd >= 0) {
    ::close(fd);
    return "";
  }
  return errno == EXDEV ? "EXDEV" : errno == ENOENT ? "ENOENT" : std::strerror(errno);
}

// Runs `checks` (which returns what failed, "" for nothing) confined, in a child process.
template <class F>
void confined(const std::vector<std::string>& roots, F checks, bool use_openat2 = true) {
  EXPECT_EXIT(
      {
        npu::confine_inputs(roots, use_openat2);
        const std::string failed = checks();
        std::fprintf(stderr, "%s\n", failed.c_str());
        std::_Exit(failed.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

std::string expect(const std::string& what, const std::string& got, const std::string& want) {
  return got == want ? "" : what + ": got '" + got + "', want '" + want + "'; ";
}

int64_t rows(const std::string& db) {
  npu::SqliteDb r(db);
  npu::SqliteStmt st(r, "SELECT count(*) FROM T", "T");
  return st.step() ? st.i64(0) : -1;
}

}  // namespace

TEST(InputConfinement, NothingChangesUnconfined) {
  TempDir d;
  std::ofstream(d.path() / "f") << "x";
  EXPECT_FALSE(npu::inputs_confined());
  EXPECT_TRUE(npu::input_path_inside("/etc/passwd"));
  EXPECT_EQ(open_error(d.path() / "f"), "");
}

TEST(InputConfinement, OnlyWhatLiesBeneathOpens) {
  TempDir d;
  fs::create_directories(d.path() / "a/run");
  fs::create_directories(d.path() / "b");
  fs::create_directories(d.path() / "secret");
  std::ofstream(d.path() / "a/run/f") << "x";
  std::ofstream(d.path() / "b/g") << "x";
  std::ofstream(d.path() / "secret/s") << "x";
  fs::create_symlink(d.path() / "secret/s", d.path() / "a/out");          // leads out, target there
  fs::create_symlink(d.path() / "secret/none", d.path() / "a/out_none");  // leads out, nothing there
  fs::create_symlink("../secret", d.path() / "a/up");                     // a folder out, relative
  fs::create_symlink("run/f", d.path() / "a/in");                         // stays inside
  fs::create_symlink(d.path() / "b/g", d.path() / "a/to_b");              // into the other allowed folder
  const fs::path a = d.path() / "a";
  // openat2(RESOLVE_BENEATH), then the component walk that stands in for it on older kernels.
  for (const bool use_openat2 : {true, false})
    confined(
        {a.string(), (d.path() / "b").string()},
        [&] {
          std::string f;
          f += expect("inside", open_error(a / "run/f"), "");
          f += expect("inside, missing", open_error(a / "run/none"), "ENOENT");
          f += expect("link inside", open_error(a / "in"), "");
          f += expect("link into b", open_error(a / "to_b"), "");
          f += expect("..", open_error(a / "run/../../secret/s"), "EXDEV");
          f += expect(".. missing", open_error(a / "run/../../secret/none"), "EXDEV");
          f += expect("absolute", open_error("/etc/passwd"), "EXDEV");
          f += expect("absolute missing", open_error("/etc/no-such-file-here"), "EXDEV");
          f += expect("link out", open_error(a / "out"), "EXDEV");
          f += expect("link out, missing", open_error(a / "out_none"), "EXDEV");
          f += expect("folder link out", open_error(a / "up/s"), "EXDEV");
          f += expect("inside()", npu::input_path_inside((a / "run/../x").string()) ? "yes" : "no", "yes");
          f += expect("outside()", npu::input_path_inside((a / "../secret").string()) ? "yes" : "no", "no");
          try {
            struct stat st {};
            npu::open_input_file((a / "out").string(), &st);
            f += "open_input_file opened a link out; ";
          } catch (const npu::LoadError& e) {
            f += expect("message", e.what(), (a / "out").string() + ": " + npu::kOutsideAllowed);
          }
          return f;
        },
        use_openat2);
}

// The committed log is read unconfined; linked out from a confined folder, the database is
// refused the same whether the log it links to exists or not.
TEST(InputConfinement, ADatabaseLogLinkedOutIsRefused) {
  TempDir d;
  fs::create_directories(d.path() / "a");
  fs::create_directories(d.path() / "secret");
  const std::string db = npu::test::database_with_log(d.path() / "a");
  EXPECT_EQ(rows(db), 3);
  fs::rename(db + "-wal", d.path() / "secret/log");
  fs::create_symlink(d.path() / "secret/log", db + "-wal");
  EXPECT_EQ(rows(db), 3);  // unconfined, the link is followed
  auto refused = [&] {
    try {
      rows(db);
      return std::string("read; ");
    } catch (const npu::LoadError& e) {
      return expect("message", e.what(), db + ": has a write-ahead log (" + db + "-wal) " + npu::kOutsideAllowed);
    }
  };
  confined({(d.path() / "a").string()}, refused);
  fs::remove(d.path() / "secret/log");
  confined({(d.path() / "a").string()}, refused);
}

// A log that holds no valid frame is not copied, whatever its size: a sparse 2 GiB one of zeros
// reads as the database alone, at once.
TEST(InputConfinement, OnlyTheLogsCommittedFramesAreRead) {
  TempDir d;
  const std::string db = npu::test::database_with_log(d.path());
  const uint64_t size = fs::file_size(db + "-wal");
  {
    const int fd = ::open((db + "-wal").c_str(), O_RDONLY);
    EXPECT_EQ(npu::wal_committed_bytes(fd, size, db + "-wal"), size);
    ::close(fd);
  }
  // Frames after the last commit (a torn write) are not read: cut into the last frame.
  fs::resize_file(db + "-wal", size - 100);
  EXPECT_EQ(rows(db), 2);
  // A sparse log of zeros.
  fs::resize_file(db + "-wal", 0);
  fs::resize_file(db + "-wal", uint64_t{2} << 30);
  const int fd = ::open((db + "-wal").c_str(), O_RDONLY);
  EXPECT_EQ(npu::wal_committed_bytes(fd, uint64_t{2} << 30, db + "-wal"), 0u);
  ::close(fd);
  EXPECT_EQ(rows(db), 1);
}

// Graph-capture traces beside a Kineto trace (loaders/chrome_trace/capture_traces.cpp): an entry
// whose file is a link out is refused in the same words whether its target exists or not, and
// an index linked out is not read at all (nothing said of it).
TEST(InputConfinement, CaptureTracesLinkedOutAreRefusedAlike) {
  TempDir d;
  const fs::path run = d.path() / "a/run", caps = run / "capture_traces";
  fs::create_directories(caps);
  fs::create_directories(d.path() / "secret/caps");
  std::ofstream(run / "trace.json") << R"({"traceEvents": []})";
  std::ofstream(d.path() / "secret/real.json") << R"({"traceEvents": []})";
  std::ofstream(caps / "execution_details.json")
      << R"([{"file": "c1.json", "batch_size": 8}, {"file": "c2.json", "batch_size": 16}])";
  fs::create_symlink(d.path() / "secret/real.json", caps / "c1.json");
  fs::create_symlink(d.path() / "secret/none.json", caps / "c2.json");
  // A second run whose whole capture folder is a link out, to a folder that has an index.
  const fs::path run2 = d.path() / "a/run2";
  fs::create_directories(run2);
  std::ofstream(run2 / "trace.json") << R"({"traceEvents": []})";
  std::ofstream(d.path() / "secret/caps/execution_details.json") << R"([{"file": "x.json", "batch_size": 8}])";
  fs::create_symlink(d.path() / "secret/caps", run2 / "capture_traces");
  confined({(d.path() / "a").string()}, [&] {
    std::string f;
    npu::RunModel m;
    npu::load_capture_traces(run / "trace.json", m, npu::LoadOptions{});
    const std::string index = (caps / "execution_details.json").string();
    f += expect("warnings", std::to_string(m.stats.warnings.size()), "2");
    if (m.stats.warnings.size() == 2) {
      f += expect("c1", m.stats.warnings[0],
                  index + ": entry 1: c1.json " + npu::kOutsideAllowed + ": that capture is not read");
      f += expect("c2", m.stats.warnings[1],
                  index + ": entry 2: c2.json " + npu::kOutsideAllowed + ": that capture is not read");
    }
    npu::RunModel m2;
    npu::load_capture_traces(run2 / "trace.json", m2, npu::LoadOptions{});
    f += expect("index linked out", std::to_string(m2.stats.warnings.size()), "0");
    return f;
  });
}
