// Hostile input (issue 20): outputs never overwrite inputs, write errors are errors, corrupt
// numbers and deep JSON are refused at the loader with a warning or a one-line error, and the
// input folder is never modified. Each test is a reproducer from the hostile corpus.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sqlite3.h>
#include <sstream>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "base/json_file.h"
#include "base/load_error.h"
#include "loaders/db/db_export.h"
#include "loaders/db/format.h"
#include "loaders/db/sqlite_db.h"
#include "loaders/torch_npu_text/ascend_files.h"
#include "test_support.h"

namespace fs = std::filesystem;
using npu::test::TempDir;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Cli {
  int code = -1;
  std::string err;
};

// Runs the advisor with `args` (stdout to `out`, default /dev/null) within the hostile-input limits.
Cli cli(const TempDir& dir, const std::string& args, const std::string& out = "/dev/null") {
  std::string err = (dir.path() / "cli.err").string();
  std::string cmd = npu::test::limited_advisor(args) + " >" + out + " 2>'" + err + "' </dev/null";
  int status = std::system(cmd.c_str());
  Cli r{WIFEXITED(status) ? WEXITSTATUS(status) : 128, slurp(err)};
  npu::test::expect_within_limits(r.code, r.err, args);
  return r;
}

std::string x_event(const std::string& name, const std::string& ts, const std::string& dur) {
  return R"({"ph": "X", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" + ts + R"(, "dur": )" + dur + "}";
}

bool has_warning(const npu::RunModel& m, const std::string& text) {
  for (const auto& w : m.stats.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

std::string warnings_of(const npu::RunModel& m) {
  std::string s;
  for (const auto& w : m.stats.warnings) s += w + "\n";
  return s;
}

}  // namespace

// ---- class 4: one output guard for every command and flag ----

class OutputGuard : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    std::string bin = NPU_ADVISOR_BIN;
    facts_ = (dir_->path() / "base.facts.json").string();
    ASSERT_EQ(std::system((bin + " facts -q " + npu::test::sample_run() + " -o " + facts_ + " >/dev/null").c_str()), 0);
    before_ = slurp(facts_);
  }
  static void TearDownTestSuite() { delete dir_; }
  void TearDown() override { EXPECT_EQ(slurp(facts_), before_) << "the baseline was changed"; }
  static TempDir* dir_;
  static std::string facts_, before_;
};
TempDir* OutputGuard::dir_ = nullptr;
std::string OutputGuard::facts_, OutputGuard::before_;

TEST_F(OutputGuard, CompareOutputOverTheBaseline) {
  Cli r = cli(*dir_, "compare -q " + facts_ + " " + facts_ + " -o " + facts_);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("error: -o " + facts_ + " is an input"), std::string::npos) << r.err;
  // Through a symbolic link too.
  fs::path link = dir_->path() / "link.json";
  fs::create_symlink(facts_, link);
  EXPECT_EQ(cli(*dir_, "compare -q " + facts_ + " " + facts_ + " -o " + link.string()).code, 2);
  fs::remove(link);
}

TEST_F(OutputGuard, GateOutputsOverAnInput) {
  for (const char* flag : {"--json", "--junit", "--markdown"}) {
    Cli r = cli(*dir_, std::string("gate -q --baseline ") + facts_ + " " + facts_ + " " + flag + " " + facts_);
    EXPECT_EQ(r.code, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("error: ") + flag + " " + facts_ + " is an input"), std::string::npos) << r.err;
  }
  // A file inside a run folder that the loaders read: refused at the write.
  std::string run = npu::test::sample_run();
  TempDir copy;
  fs::copy(run, copy.path() / "r_ascend_pt", fs::copy_options::recursive);
  std::string kd = (copy.path() / "r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv").string();
  std::string kd_before = slurp(kd);
  Cli r = cli(*dir_, "gate -q --baseline " + facts_ + " " + (copy.path() / "r_ascend_pt").string() + " --junit " + kd);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("is an input file read by this command"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(kd), kd_before);
  // Two outputs naming one file.
  std::string j = (dir_->path() / "g.json").string();
  EXPECT_EQ(cli(*dir_, "gate -q --baseline " + facts_ + " " + facts_ + " --json " + j + " --junit " + j).code, 2);
}

TEST_F(OutputGuard, FactsFolderOutputWouldJoinTheRanks) {
  TempDir d;
  fs::copy_file(facts_, d.path() / "r0.facts.json");
  fs::copy_file(facts_, d.path() / "r1.facts.json");
  std::string folder = d.path().string();
  Cli r = cli(d, "analyze -q --facts " + folder + " -o " + folder + "/x.facts.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_FALSE(fs::exists(d.path() / "x.facts.json"));
  std::string r0 = slurp(folder + "/r0.facts.json");
  EXPECT_EQ(cli(d, "analyze -q --facts " + folder + " -o " + folder + "/r0.facts.json").code, 2);
  EXPECT_EQ(slurp(folder + "/r0.facts.json"), r0);
  // A rank's .facts.missing marker is an input of the reduce too.
  d.write("r2.facts.missing", "rank 2: the map step failed\n");
  Cli m = cli(d, "analyze -q --facts " + folder + " -o " + folder + "/r2.facts.missing");
  EXPECT_EQ(m.code, 2) << m.err;
  EXPECT_EQ(slurp(folder + "/r2.facts.missing"), "rank 2: the map step failed\n");
}

TEST_F(OutputGuard, ClusterOutputOverAMemberFile) {
  TempDir d;
  for (const char* rank : {"0", "1"}) {
    fs::path run = d.path() / (std::string("rank") + rank + "_ascend_pt");
    fs::copy(npu::test::sample_run(), run, fs::copy_options::recursive);
    for (const auto& e : fs::directory_iterator(run))
      if (e.path().filename().string().rfind("profiler_info", 0) == 0) {
        std::string text = slurp(e.path().string());
        fs::remove(e.path());
        std::ofstream(run / (std::string("profiler_info_") + rank + ".json")) << text;
      }
  }
  std::string member = (d.path() / "rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv").string();
  std::string before = slurp(member);
  Cli r = cli(d, "analyze -q " + d.path().string() + " -o " + member);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(slurp(member), before);
}

// ---- class 12: write errors are errors ----

TEST_F(OutputGuard, WriteErrorsAreExitTwo) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  Cli r = cli(*dir_, "analyze -q " + facts_ + " --format json", "/dev/full");
  // A facts file is not an analyze input; what matters is a stdout write error is not exit 0.
  EXPECT_NE(r.code, 0);
  r = cli(*dir_, "compare -q " + facts_ + " " + facts_, "/dev/full");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot write to stdout"), std::string::npos) << r.err;
  for (const char* flag : {"--junit", "--markdown", "--json"}) {
    r = cli(*dir_, std::string("gate -q --baseline ") + facts_ + " " + facts_ + " " + flag + " /dev/full");
    EXPECT_EQ(r.code, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find("cannot write /dev/full"), std::string::npos) << r.err;
  }
}

// ---- class 5: corrupt numbers in a trace are refused, with a warning ----

TEST(HostileTrace, TimestampWithTrailingGarbageIsNotATimestamp) {
  auto m = npu::test::load_trace_text("[" + x_event("ok", "1000", "5") + ", " + x_event("bad", "\"17041615x11\"", "5") +
                                      ", " + x_event("bad2", "\"12 34\"", "5") + "]");
  EXPECT_EQ(m.slices.size(), 1u);
  EXPECT_TRUE(has_warning(m, "2 events without a usable ts")) << warnings_of(m);
}

TEST(HostileTrace, NegativeDurationIsSkipped) {
  auto m = npu::test::load_trace_text("[" + x_event("ProfilerStep#1", "1000", "-14000") + ", " +
                                      x_event("op", "1000", "\"-1.5\"") + ", " + x_event("ok", "2000", "3") + "]");
  ASSERT_EQ(m.slices.size(), 1u);
  EXPECT_EQ(m.slices[0].dur, 3000);
  EXPECT_TRUE(has_warning(m, "2 events without a usable ts (or flow id), or with a dur that is no time or negative")) << warnings_of(m);
}

TEST(HostileTrace, EventsWithoutPhAreCounted) {
  auto m = npu::test::load_trace_text(R"([{"name": "a", "ts": 1, "pid": 1, "tid": 1}, {"name": "b", "ts": 2}, )" +
                                      x_event("ok", "3", "1") + "]");
  EXPECT_EQ(m.slices.size(), 1u);
  EXPECT_TRUE(has_warning(m, "2 events without a \"ph\" were skipped")) << warnings_of(m);
}

// ---- class 3: deep JSON in side values ----

TEST(HostileTrace, DeepSideValueIsAWarningNotACrash) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto m = npu::test::load_trace_text(R"({"distributedInfo": {"rank": 1, "x": )" + deep + R"(}, "traceEvents": [)" +
                                      x_event("ok", "3", "1") + "]}");
  EXPECT_EQ(m.slices.size(), 1u);
  EXPECT_TRUE(has_warning(m, "nested deeper than 256 levels")) << warnings_of(m);
}

TEST(HostileTrace, DeepJsonFileIsOneLineWithTheOffset) {
  TempDir d;
  std::string p = d.write("info.json", R"({"config": )" + std::string(100000, '{') + "}");
  try {
    npu::read_json_file(p);
    FAIL() << "no error";
  } catch (const npu::LoadError& e) {
    EXPECT_EQ(std::string(e.what()), p + ": byte 266: JSON nested deeper than 256 levels");
  }
  EXPECT_EQ(npu::json_too_deep_at(R"({"a": "[[[[", "b": [[1]]})", 2), 20u);  // brackets in strings do not count
  EXPECT_EQ(npu::json_too_deep_at(R"({"a": "\"[[["})", 1), std::string::npos);
  EXPECT_TRUE(npu::parse_json_or_discard(std::string(300, '[') + std::string(300, ']')).is_discarded());
}

// ---- class 11: the input folder is not modified ----

TEST(HostileDb, WalModeDatabaseOpensWithoutTouchingTheFolder) {
  TempDir d;
  std::string db = (d.path() / "export.db").string();
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &w), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(w, "PRAGMA journal_mode=WAL; CREATE TABLE T(x INTEGER); INSERT INTO T VALUES (7);", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(w);
  ASSERT_FALSE(fs::exists(db + "-wal"));
  {
    npu::SqliteDb r(db);
    EXPECT_TRUE(r.has_table("T"));
    EXPECT_EQ(r.row_count("T"), 1u);
  }
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d.path())) ++files;
  EXPECT_EQ(files, 1u) << "opening created -shm/-wal files";
}

// ---- class 5 / 9: corrupt numbers in CSVs and databases ----

namespace {

npu::RunModel load_kernel_csv(const TempDir& d, const std::string& rows) {
  std::string p = d.write("kernel_details.csv", "Name,Type,Start Time(us),Duration(us),Block Dim\n" + rows);
  npu::RunModel m;
  npu::load_kernel_details(p, m);
  return m;
}

using npu::test::make_db;

}  // namespace

TEST(HostileCsv, MissingOrNegativeDurationsAreSkipped) {
  TempDir d;
  auto m = load_kernel_csv(d, "a,T,1,2,8\nb,T,1,-3,8\nc,T,1,,8\nd,T,1,N/A,8\ne,T,1,4,4294967344\n");
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[0].dur, 2000);
  EXPECT_EQ(m.kernels[1].block_dim, -1);  // 2^32 + 48: unknown, not 48
  EXPECT_TRUE(has_warning(m, "kernel_details.csv:3: 3 rows with a missing or negative \"Duration(us)\" were skipped"))
      << warnings_of(m);
  // 1e400 is no number at all: one line naming the file and line.
  try {
    load_kernel_csv(d, "a,T,1,1e400,8\n");
    FAIL() << "no error";
  } catch (const npu::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel_details.csv:2: column \"Duration(us)\": \"1e400\" is not a number"),
              std::string::npos)
        << e.what();
  }
}

TEST(HostileCsv, NegativeStepTraceTimeIsSkipped) {
  TempDir d;
  std::string p = d.write("step_trace_time.csv",
                          "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free\n"
                          "1,10,1,1,2,3\n2,10,1,1,2,-5\n");
  npu::RunModel m;
  npu::load_step_trace_time(p, m);
  ASSERT_EQ(m.step_trace.size(), 1u);
  EXPECT_EQ(m.step_trace[0].step, 1);
  EXPECT_TRUE(has_warning(m, "step_trace_time.csv:3: 1 row with a negative time was skipped")) << warnings_of(m);
}

TEST(HostileDb, CorruptTaskTimesAreSkipped) {
  TempDir d;
  std::string p = (d.path() / "msprof_20240101000000.db").string();
  make_db(p,
          "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, streamId INTEGER);"
          "INSERT INTO TASK VALUES (10, 20, 0, 1), ('x', 20, 0, 1), (10, 1e300, 0, 1), (-5, 20, 0, 1), "
          "(30, 25, 0, 1), (40, 50, 4294967296, 1);");
  npu::RunModel m;
  npu::load_profiler_db(p, m, npu::db_producer(p));
  m.finalize();
  ASSERT_EQ(m.slices.size(), 2u);
  npu::Ns total = 0;
  for (const auto& s : m.slices) total += s.dur;
  EXPECT_EQ(total, 20);
  EXPECT_TRUE(has_warning(m,
                          "TASK: 4 rows with a startNs/endNs that is not a non-negative integer, or ends before it "
                          "starts, were skipped (first: rowid 2)"))
      << warnings_of(m);
}

TEST(HostileTrace, OutOfRangeRankIsUnknownNotTruncated) {
  for (const char* rank : {"1099511627776", "4294967301", "-3", "1.5"}) {
    TempDir d;
    std::string p = d.write("trace.json", std::string(R"({"distributedInfo": {"rank": )") + rank +
                                              R"(}, "traceEvents": [)" + x_event("op", "1", "1") + "]}");
    npu::RunModel m = npu::test::load_path(p);
    EXPECT_EQ(m.meta.rank, -1) << rank;
    EXPECT_TRUE(has_warning(m, std::string("distributedInfo.rank ") + rank + " is not a rank")) << rank << "\n"
                                                                                                << warnings_of(m);
  }
}

// ---- class 8 / 10 / 13: one bad value never loses the report; warnings in every format ----

namespace {

// A run folder whose kernel_details.csv has one ragged row and a name that is not UTF-8.
std::string odd_run(const TempDir& d) {
  std::string run = (d.path() / "odd_ascend_pt").string();
  fs::copy(npu::test::sample_run(), run, fs::copy_options::recursive);
  std::string kd = run + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
  std::string text = slurp(kd);
  // The last row again, its operator name made invalid UTF-8.
  size_t last = text.rfind('\n', text.size() - 2) + 1;
  std::string row = text.substr(last);
  size_t name = row.find("aclnnInplaceAdd_AddAiCore_Add");
  EXPECT_NE(name, std::string::npos);
  text += row.replace(name, 5, "acl\xff\xfe");
  text += "ragged,row\n";
  std::ofstream(kd, std::ios::binary | std::ios::trunc) << text;
  return run;
}

}  // namespace

TEST(HostileReport, InvalidUtf8AndLoaderWarningsReachEveryFormat) {
  TempDir d;
  std::string run = odd_run(d);
  std::string json_out = (d.path() / "r.json").string(), md_out = (d.path() / "r.md").string();
  std::string term = (d.path() / "r.txt").string();
  ASSERT_EQ(cli(d, "analyze -q " + run + " -o " + json_out).code, 0) << slurp((d.path() / "cli.err").string());
  ASSERT_EQ(cli(d, "analyze -q " + run + " -o " + md_out).code, 0);
  ASSERT_EQ(cli(d, "analyze " + run, term).code, 0);
  nlohmann::json r = npu::read_json_file(json_out);
  ASSERT_FALSE(r["warnings"].empty());
  std::string w = r["warnings"][0];
  EXPECT_NE(w.find("have a different number of fields"), std::string::npos) << w;
  EXPECT_NE(slurp(md_out).find("## Loader warnings"), std::string::npos);
  EXPECT_NE(slurp(term).find("warning: "), std::string::npos);
}

TEST(HostileReport, RuleTextCannotInjectEscapesOrMarkup) {
  TempDir d;
  d.write("rules/x.lua",
          "rule { id = 'inject', title = 'T' } function check(f, p, emit) emit{observed = '\\27[31mred\\27[0m', "
          "saving_ns = 1e12, "
          "title = '<img src=x onerror=alert(1)> [link](http://x) | cell', commands = {'a ``` b'}} end");
  std::string md_out = (d.path() / "r.md").string(), term = (d.path() / "r.txt").string();
  std::string rules = " --rules " + (d.path() / "rules").string();
  ASSERT_EQ(cli(d, "analyze -q " + npu::test::sample_run() + rules + " -o " + md_out).code, 0);
  ASSERT_EQ(cli(d, "analyze " + npu::test::sample_run() + rules, term).code, 0);
  std::string md = slurp(md_out), t = slurp(term);
  EXPECT_EQ(md.find("<img"), std::string::npos);
  EXPECT_NE(md.find("&lt;img src=x onerror=alert(1)&gt; \\[link\\](http://x) \\| cell"), std::string::npos);
  EXPECT_NE(md.find("a ''' b"), std::string::npos);
  EXPECT_EQ(t.find("\x1b[31mred"), std::string::npos);
  EXPECT_NE(t.find("\xEF\xBF\xBD[31mred"), std::string::npos);
  // Evidence: no raw HTML, no code span of its own.
  d.write("rules/x.lua",
          "rule { id = 'inject', title = 'T' } function check(f, p, emit) emit{observed = 'o', saving_ns = 1e12, "
          "evidence = {{file = '<script>x</script>', line = 1, what = 'a ` b'}}} end");
  ASSERT_EQ(cli(d, "analyze -q " + npu::test::sample_run() + rules + " -o " + md_out).code, 0);
  md = slurp(md_out);
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("a ' b (&lt;script&gt;x&lt;/script&gt;:1)"), std::string::npos) << md;
  // A non-string command fails that rule only.
  d.write("rules/x.lua",
          "rule { id = 'inject', title = 'T' } function check(f, p, emit) emit{observed = 'o', commands = {5}} end");
  std::string json_out = (d.path() / "r.json").string();
  ASSERT_EQ(cli(d, "analyze -q " + npu::test::sample_run() + rules + " -o " + json_out).code, 0);
  nlohmann::json r = npu::read_json_file(json_out);
  EXPECT_FALSE(r["findings"].empty());  // the built-in findings are intact
  bool failed = false;
  for (const auto& s : r["rules"])
    if (s["rule"] == "inject")
      failed = s["status"] == "failed" && s["reason"].get<std::string>().find("'commands'") != std::string::npos;
  EXPECT_TRUE(failed) << r["rules"].dump();
}

TEST(HostileReport, SymlinkLoopIsExitTwo) {
  TempDir d;
  fs::create_directories(d.path() / "x_ascend_pt/ASCEND_PROFILER_OUTPUT");
  fs::create_symlink("trace_view.json", d.path() / "x_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
  Cli r = cli(d, "analyze -q " + (d.path() / "x_ascend_pt").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("Too many levels of symbolic links"), std::string::npos) << r.err;
}

// An empty path ("-o ''", an unset shell variable) is refused naming the option, never
// "error: : no such file or folder".
TEST(HostileReport, EmptyPathValuesNameTheOption) {
  TempDir d;
  Cli r = cli(d, "analyze -q " + npu::test::sample_run() + " --rules ''");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--rules: an empty value was given"), std::string::npos) << r.err;
  r = cli(d, "analyze -q " + npu::test::sample_run() + " -o ''");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("an empty value was given"), std::string::npos) << r.err;
  r = cli(d, "compare '' " + npu::test::sample_run());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.find("error: : "), std::string::npos) << r.err;
}

// ---- class 7: whitespace costs no memory (bench/hostile_sizes.sh measures the peaks) ----

TEST(HostileTrace, LongWhitespaceRunsLoadWithRightOffsets) {
  const std::string ws(200000, ' ');
  for (int threads : {1, 2}) {
    // Before the array, between two events, and before the closing bracket; small chunks.
    auto m = npu::test::load_trace_text(
        ws + "[" + ws + x_event("a", "1", "1") + "," + ws + x_event("b", "5", "1") + ws + "]", 4096, threads);
    EXPECT_EQ(m.slices.size(), 2u) << threads;
  }
  // An error after the whitespace names its real byte offset.
  TempDir d;
  std::string head = "[" + x_event("a", "1", "1") + "," + ws;
  std::string p = d.write("t.json", head + "{\"ph\" \"X\"}]");
  try {
    npu::RunModel m;
    npu::TraceLoadOptions opt;
    opt.chunk_bytes = 4096;
    npu::load_trace_json(p, 0, m, opt);
    FAIL() << "no error";
  } catch (const npu::LoadError& e) {
    EXPECT_GE(e.position(), head.size()) << e.what();
    EXPECT_LT(e.position(), head.size() + 25) << e.what();
  }
  std::string empty = d.write("e.json", std::string(300000, ' '));
  try {
    npu::RunModel m;
    npu::load_trace_json(empty, 0, m, {});
    FAIL() << "no error";
  } catch (const npu::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("file is empty (no JSON, only whitespace)"), std::string::npos);
  }
}

// ---- class 10: partial data is reported as such ----

TEST(HostileCsv, UnclosedQuoteIsNotOneSkippedRow) {
  TempDir d;
  try {
    load_kernel_csv(d, "a,T,1,2,8\n\"b,T,1,2,8\nc,T,1,2,8\nd,T,1,2,8\n");
    FAIL() << "no error";
  } catch (const npu::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel_details.csv:3: a quoted cell opened on this line is never closed"),
              std::string::npos)
        << e.what();
  }
}

TEST(HostileDb, MissingStringTableIsAWarning) {
  TempDir d;
  std::string p = (d.path() / "msprof_20240101000000.db").string();
  make_db(p,
          "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, streamId INTEGER, taskType INTEGER);"
          "INSERT INTO TASK VALUES (10, 20, 0, 1, 7), (30, 40, 0, 1, 7);");
  npu::RunModel m;
  npu::load_profiler_db(p, m, npu::db_producer(p));
  EXPECT_TRUE(has_warning(m, "2 text cells hold a string id that no STRING_IDS table resolves: those names are empty"))
      << warnings_of(m);
}

TEST(HostileReport, EmptyRankFoldersAreNoCluster) {
  TempDir d;
  for (int i = 0; i < 5; ++i)
    fs::create_directories(d.path() / ("r" + std::to_string(i) + "_ascend_pt/ASCEND_PROFILER_OUTPUT"));
  Cli r = cli(d, "analyze -q " + d.path().string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("no rank could be loaded"), std::string::npos) << r.err;
}

// ---- class 13: errors say what is wrong ----

TEST(HostileTrace, TrailingTextIsNamedNotCalledTruncation) {
  TempDir d;
  std::string ev = x_event("a", "1", "1");
  std::string p = d.write("t.json", "[" + ev + "]  garbage");
  try {
    npu::RunModel m;
    npu::load_trace_json(p, 0, m, {});
    FAIL() << "no error";
  } catch (const npu::LoadError& e) {
    EXPECT_EQ(std::string(e.what()),
              p + ": byte " + std::to_string(ev.size() + 4) + ": text after the end of the trace array");
  }
}

// ---- class 5: a gate never passes on data the loaders had to reject ----

// A copy of the sample whose kernel_details.csv ends with the last kernel again, with a
// negative duration: the loader skips that row with a warning.
std::string sample_with_a_rejected_kernel(const TempDir& d) {
  std::string run = (d.path() / "neg_ascend_pt").string();
  fs::copy(npu::test::sample_run(), run, fs::copy_options::recursive);
  std::string kd = run + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
  std::string text = slurp(kd);
  std::string row = text.substr(text.rfind('\n', text.size() - 2) + 1);
  size_t dur = row.find(",28.706,");
  EXPECT_NE(dur, std::string::npos);
  if (dur != std::string::npos) text += row.replace(dur, 8, ",-28.706,");
  std::ofstream(kd, std::ios::binary | std::ios::trunc) << text;
  return run;
}

TEST_F(OutputGuard, GateOnPartialDataIsBadInput) {
  TempDir d;
  std::string run = sample_with_a_rejected_kernel(d);
  std::string j = (d.path() / "g.json").string();
  for (bool partial_is_new : {true, false}) {
    Cli r = cli(d, "gate -q --baseline " + (partial_is_new ? facts_ + " " + run : run + " " + facts_) + " --json " + j);
    EXPECT_EQ(r.code, 2) << r.err;
    // The load warning itself, then one error line naming the side, the file and what was rejected.
    std::string last = r.err.substr(r.err.rfind("error: "));
    EXPECT_EQ(std::count(last.begin(), last.end(), '\n'), 1) << last;
    EXPECT_EQ(last.rfind(std::string("error: the ") + (partial_is_new ? "new run" : "baseline") + " (" + run +
                             ") is partial: the loaders rejected data: ",
                         0),
              0u)
        << last;
    EXPECT_NE(last.find("kernel_details.csv"), std::string::npos) << last;
    EXPECT_NE(last.find("with a missing or negative \"Duration(us)\" was skipped"), std::string::npos) << last;
    EXPECT_NE(last.find("--allow-partial"), std::string::npos) << last;
    EXPECT_FALSE(fs::exists(j)) << "a gate refused for partial data writes no verdict";
  }
}

TEST_F(OutputGuard, GateOnAFactsFileWrittenFromPartialDataIsBadInput) {
  TempDir d;
  std::string run = sample_with_a_rejected_kernel(d);
  std::string partial_facts = (d.path() / "partial.facts.json").string();
  ASSERT_EQ(cli(d, "facts -q " + run + " -o " + partial_facts).code, 0);
  Cli r = cli(d, "gate -q --baseline " + partial_facts + " " + facts_);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("error: the baseline (" + partial_facts + ") is partial: the loaders rejected data: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("was skipped"), std::string::npos) << r.err;
  EXPECT_LE(cli(d, "gate -q --allow-partial --baseline " + partial_facts + " " + facts_).code, 1);
}

TEST_F(OutputGuard, GateAllowPartialDecidesOnWhatWasKeptAndSaysSo) {
  TempDir d;
  std::string run = sample_with_a_rejected_kernel(d);
  std::string j = (d.path() / "g.json").string();
  Cli r = cli(d, "gate -q --allow-partial --baseline " + facts_ + " " + run + " --json " + j);
  EXPECT_LE(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("with a missing or negative \"Duration(us)\" was skipped"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("error: "), std::string::npos) << r.err;
  nlohmann::json g = npu::read_json_file(j);
  bool noted = false;
  for (const auto& n : g["gate"]["notes"]) noted |= n.get<std::string>().find("input warning: ") == 0;
  EXPECT_TRUE(noted) << g["gate"]["notes"].dump();
}

// ---- round 3: no PASS on data that could not be read whole or makes no sense ----

// trace_view.json there but not a file (a FIFO, a folder, a link to /dev/zero) or empty: the run
// is partial, and the gate refuses it (it used to list the file as missing and pass on the rest).
TEST_F(OutputGuard, GateRefusesATraceThatIsNotAReadableFile) {
  for (const char* kind : {"fifo", "folder", "dev-zero", "empty"}) {
    TempDir d;
    const std::string run = (d.path() / "r_ascend_pt").string();
    fs::copy(npu::test::sample_run(), run, fs::copy_options::recursive);
    const std::string tv = run + "/ASCEND_PROFILER_OUTPUT/trace_view.json";
    fs::remove(tv);
    const std::string k = kind;
    if (k == "fifo") ASSERT_EQ(std::system(("mkfifo '" + tv + "'").c_str()), 0);
    if (k == "folder") fs::create_directory(tv);
    if (k == "dev-zero") fs::create_symlink("/dev/zero", tv);
    if (k == "empty") std::ofstream(tv).flush();
    Cli r = cli(d, "gate -q --baseline " + facts_ + " " + run);
    EXPECT_EQ(r.code, 2) << kind << ": " << r.err;
    EXPECT_NE(r.err.find("is partial: the loaders rejected data: " + tv), std::string::npos) << kind << ": " << r.err;
  }
}

// Every device duration replaced by a word: the events are dropped as unusable and named, not
// read as 0 ns tasks that leave a gate passing on the profiler's own table.
TEST_F(OutputGuard, GateRefusesDurationsThatAreNoTime) {
  TempDir d;
  const std::string run = (d.path() / "r_ascend_pt").string();
  fs::copy(npu::test::sample_run(), run, fs::copy_options::recursive);
  const std::string tv = run + "/ASCEND_PROFILER_OUTPUT/trace_view.json";
  std::string text = slurp(tv);
  for (size_t at = text.find("\"dur\": "); at != std::string::npos; at = text.find("\"dur\": ", at + 1)) {
    const size_t end = text.find_first_of(",}", at);
    text.replace(at, end - at, "\"dur\": \"abc\"");
  }
  std::ofstream(tv, std::ios::binary | std::ios::trunc) << text;
  Cli r = cli(d, "gate -q --baseline " + facts_ + " " + run);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("with a dur that is no time or negative, were skipped"), std::string::npos) << r.err;
}

TEST(HostileTrace, ADurationThatIsNoTimeIsSkipped) {
  auto m = npu::test::load_trace_text("[" + x_event("op", "1000", "\"abc\"") + ", " + x_event("op2", "1000", "true") +
                                      ", " + x_event("ok", "2000", "3") + ", " + x_event("nulldur", "2000", "null") + "]");
  ASSERT_EQ(m.slices.size(), 1u);  // "ok": a complete event with a null dur lost its duration too
  EXPECT_TRUE(has_warning(m, "3 events without a usable ts (or flow id), or with a dur that is no time")) << warnings_of(m);
}

// A duration that outlasts the trace by more than 60 s (1000 s in a trace of microseconds,
// 1e18 ns) is dropped and named; the rest is kept.
TEST(HostileTrace, ImpossibleDurationsAreSkipped) {
  auto m = npu::test::load_trace_text("[" + x_event("ok", "1000", "5") + ", " + x_event("kernel", "1001", "1000000000") +
                                      ", " + x_event("huge", "1002", "1e15") + ", " + x_event("ok2", "1010", "2") + "]");
  ASSERT_EQ(m.slices.size(), 2u);
  EXPECT_TRUE(has_warning(m, "2 events lasting past the trace's last event by more than 60 s were skipped"))
      << warnings_of(m);
}

// A facts file is checked before compare, gate or the reduce use it: wrong types, impossible
// times and a host span that is not its step are refused with the file and the key.
TEST_F(OutputGuard, FactsFilesWithImpossibleNumbersAreRefused) {
  const nlohmann::json base = npu::read_json_file(facts_);
  struct Case {
    const char* key;
    nlohmann::json value;
    const char* says;
  };
  const Case cases[] = {{"host_dur_ns", 1, "steps[0].host_dur_ns = 1 is not its span"},
                        {"computing_ns", -5000000, "steps[0].computing_ns = -5000000 is not a possible time"},
                        {"computing_ns", "14092000", "steps[0].computing_ns: expected integer, got string"},
                        {"free_ns", 1e300, "steps[0].free_ns: expected integer"}};
  for (const Case& c : cases) {
    TempDir d;
    nlohmann::json doc = base;
    doc["steps"][0][c.key] = c.value;
    const std::string bad = (d.path() / "bad.facts.json").string();
    std::ofstream(bad) << doc.dump();
    for (const std::string cmd : {"gate -q --baseline " + facts_ + " " + bad, "compare -q " + facts_ + " " + bad}) {
      Cli r = cli(d, cmd);
      EXPECT_EQ(r.code, 2) << cmd << ": " << r.err;
      EXPECT_NE(r.err.find("error: " + bad + ": "), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    }
  }
}

TEST_F(OutputGuard, AFactsFileWithARankOutOfRangeIsRefused) {
  TempDir d;
  nlohmann::json doc = npu::read_json_file(facts_);
  doc["run"]["rank"] = int64_t{1} << 40;
  const std::string bad = (d.path() / "bad.facts.json").string();
  std::ofstream(bad) << doc.dump();
  Cli r = cli(d, "gate -q --baseline " + facts_ + " " + bad);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("run.rank = 1099511627776 is not a rank"), std::string::npos) << r.err;
}

// Committed changes still in the write-ahead log (the writer closed without a checkpoint) are
// read: the database and its log are copied to a private folder; the input folder is unchanged.
TEST(HostileDb, CommittedWalContentIsReadWithoutTouchingTheFolder) {
  TempDir d;
  std::string db = (d.path() / "export.db").string();
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &w), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(w, "PRAGMA journal_mode=WAL; CREATE TABLE T(x INTEGER); INSERT INTO T VALUES (7);", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(w, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint=0;", nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(w, "INSERT INTO T VALUES (8); INSERT INTO T VALUES (9);", nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_db_config(w, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr), SQLITE_OK);
  sqlite3_close(w);
  ASSERT_TRUE(fs::exists(db + "-wal"));
  ASSERT_GT(fs::file_size(db + "-wal"), 0u);
  fs::remove(db + "-shm");
  const auto before = fs::last_write_time(db);
  {
    npu::SqliteDb r(db);
    npu::SqliteStmt st(r, "SELECT count(*), sum(x) FROM T", "T");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.i64(0), 3);
    EXPECT_EQ(st.i64(1), 24);
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(d.path())) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"export.db", "export.db-wal"}));
  EXPECT_EQ(fs::last_write_time(db), before);
}

// A view where the loaders read tables (a recursive "TASK" never ends): the database is refused.
TEST(HostileDb, ADatabaseWithViewsIsRefused) {
  TempDir d;
  std::string db = (d.path() / "export.db").string();
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &w), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(w,
                         "CREATE TABLE T(x INTEGER); CREATE VIEW TASK AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL "
                         "SELECT n + 1 FROM c) SELECT n FROM c;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(w);
  try {
    npu::SqliteDb r(db);
    FAIL() << "opened";
  } catch (const npu::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("holds views (TASK): a profiler export has tables only"), std::string::npos)
        << e.what();
  }
}

// A facts file whose number overflows (1e400) is a broken facts file, named as such, not an
// internal error nor a trace without traceEvents.
TEST_F(OutputGuard, AFactsFileWithAnOverflowingNumberIsBadInput) {
  TempDir d;
  std::string text = slurp(facts_);
  const size_t at = text.find("\"computing_ns\": ");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"x\": 1e400, ");
  const std::string bad = (d.path() / "bad.facts.json").string();
  std::ofstream(bad) << text;
  for (const std::string cmd : {"gate -q --baseline " + facts_ + " " + bad, "compare -q " + facts_ + " " + bad}) {
    Cli r = cli(d, cmd);
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("error: " + bad + ": a facts file that is not valid JSON: number overflow"), std::string::npos)
        << r.err;
  }
  // The reduce reads facts files its own way: the same answer, with exit 2.
  TempDir f;
  std::ofstream((f.path() / "r0.facts.json").string()) << text;
  Cli r = cli(f, "analyze -q --facts " + f.path().string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("invalid JSON: number overflow"), std::string::npos) << r.err;
}

// An Ascend run against a GPU trace: gate refuses (the steps are measured by different rules);
// compare says so in its notes.
TEST_F(OutputGuard, GateRefusesRunsOfDifferentPlatforms) {
  TempDir d;
  const std::string gpu = npu::test::source_dir() + "/testdata/kineto/two_steps_nccl.json";
  ASSERT_TRUE(fs::exists(gpu)) << gpu;
  Cli r = cli(d, "gate -q --baseline " + facts_ + " " + gpu);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("was profiled on ascend and the new run (" + gpu + ") on gpu"), std::string::npos) << r.err;
  const std::string out = (d.path() / "c.txt").string();
  EXPECT_EQ(cli(d, "compare " + facts_ + " " + gpu, out).code, 0);
  EXPECT_NE(slurp(out).find("their steps are measured by different rules"), std::string::npos);
}

// A 1 MB "name" is kept cut at 16 KiB with its length: it cannot fill every list that shows it.
TEST(HostileTrace, AHugeNameIsKeptCut) {
  auto m = npu::test::load_trace_text("[" + x_event(std::string(1 << 20, 'n'), "1000", "5") + "]");
  ASSERT_EQ(m.slices.size(), 1u);
  const std::string_view name = m.str(m.slices[0].name);
  EXPECT_LE(name.size(), size_t{16} << 10);
  EXPECT_TRUE(name.ends_with("...(1048576 bytes)")) << name.substr(name.size() - 40);
}
