// Helpers shared by the tests: temporary files and one-call loading.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sqlite3.h>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loaders/common/trace_json_loader.h"
#include "loaders/detect.h"
#include "loaders/run_loader.h"

namespace npu::test {

// A fresh directory under the system temp dir, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "npu-advisor-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string write(const std::string& name, const std::string& content) const {
    auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

inline RunModel load_trace_text(const std::string& json, size_t chunk_bytes = 16 << 20, int threads = 1) {
  TempDir dir;
  std::string p = dir.write("trace.json", json);
  RunModel m;
  TraceLoadOptions opt;
  opt.chunk_bytes = chunk_bytes;
  opt.threads = threads;
  load_trace_json(p, 0, m, opt);
  m.finalize();
  return m;
}

inline RunModel load_path(const std::string& path, int threads = 1) {
  LoadOptions opt;
  opt.trace.threads = threads;
  return load_run(detect_input(path), opt);
}

// A whole file's bytes ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// A WAL-mode database `dir`/`name` (table T) with one row in the file and two more committed in
// its -wal log (the writer closed without a checkpoint).
inline std::string database_with_log(const std::filesystem::path& dir, const std::string& name = "export.db") {
  const std::string db = (dir / name).string();
  sqlite3* w = nullptr;
  sqlite3_open(db.c_str(), &w);
  sqlite3_exec(w, "PRAGMA journal_mode=WAL; CREATE TABLE T(x INTEGER); INSERT INTO T VALUES (7);", nullptr, nullptr,
               nullptr);
  sqlite3_exec(w, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint=0;", nullptr, nullptr, nullptr);
  sqlite3_exec(w, "INSERT INTO T VALUES (8); INSERT INTO T VALUES (9);", nullptr, nullptr, nullptr);
  sqlite3_db_config(w, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  sqlite3_close(w);
  std::filesystem::remove(db + "-shm");
  return db;
}

inline std::string source_dir() { return NPU_SOURCE_DIR; }
inline std::string realdata_dir() { return NPU_REALDATA_DIR; }
inline std::string sample_run() { return source_dir() + "/testdata/sample/localhost_4242_20261122093000123_ascend_pt"; }
// A path under ../shared/realdata; tests that need it skip without it (REQUIRE_REALDATA).
inline std::string real(const std::string& rel) { return realdata_dir() + "/" + rel; }
// The sample's known answers (tools/gen_sample.py).
inline nlohmann::json sample_expected() {
  std::ifstream f(source_dir() + "/testdata/sample/expected.json");
  return nlohmann::json::parse(f);
}
// Whether a facts document lists `fact` as unavailable.
// The smallest report document the renderers accept (reports/report_document.h), around `facts`:
// for tests of how a facts section is rendered.
inline nlohmann::json report_around(nlohmann::json facts) {
  return {{"schema", "npu-advisor.report"},
          {"schema_version", 2},
          {"input", {{"path", "/runs/x"}, {"kind", "trace file"}, {"description", "x"}}},
          {"summary", nlohmann::json::object()},
          {"findings", nlohmann::json::array()},
          {"rules", nlohmann::json::array()},
          {"unavailable", nlohmann::json::array()},
          {"facts", std::move(facts)}};
}

inline bool is_unavailable(const nlohmann::json& doc, const std::string& fact) {
  for (const auto& u : doc["unavailable"])
    if (u["fact"] == fact) return true;
  return false;
}

// Creates the SQLite database `path` and runs `sql` in it (fixtures of the DB loaders).
inline void make_db(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

// The JSON report of `npu-advisor analyze PATH`, produced by the CLI itself (exit 0 expected).
inline nlohmann::json analyze_json(const std::string& path) {
  TempDir dir;
  std::string out = (dir.path() / "r.json").string();
  std::string cmd = std::string(NPU_ADVISOR_BIN) + " analyze '" + path + "' -q --format json -o '" + out + "'";
  if (std::system(cmd.c_str()) != 0) return nlohmann::json();
  std::ifstream in(out);
  return nlohmann::json::parse(in, nullptr, false);
}

// The limits every hostile input must hold (issue 32): the advisor's command line for `args` run
// under 4 GiB of address space and 60 s of wall time, and a check of how it ended (a timeout exits
// 124; an allocation past the limit says "out of memory").
#ifdef NPU_ADVISOR_BIN
inline std::string limited_advisor(const std::string& args) {
  return std::string("prlimit --as=4294967296 timeout 60 '") + NPU_ADVISOR_BIN + "' " + args;
}
#endif
inline void expect_within_limits(int code, const std::string& err, const std::string& args) {
  if (code == 124) ADD_FAILURE() << "ran past 60 s: " << args;
  if (err.find("out of memory") != std::string::npos || err.find("bad_alloc") != std::string::npos)
    ADD_FAILURE() << "ran out of 4 GiB: " << args << "\n" << err;
}

}  // namespace npu::test

#define REQUIRE_REALDATA(rel) \
  if (!std::filesystem::exists(npu::test::real(rel))) GTEST_SKIP() << "no ../shared/realdata/" << rel;
