// Hostile input, round 4 (issue 47): resources. No input, whatever its size, crashes the advisor or
// takes it past 4 GiB or 60 s: per-step detail is bounded (many tiny steps), module paths are shared
// and their depth capped (deep record_function nesting), and the trace loader holds no whitespace
// run and no string past 16 KiB whatever a small .gz decompresses to (GBs of spaces, one string of
// a GB, a hole of NUL bytes). The big inputs are gzip members written once and repeated, so a GB of
// text costs a few KB and no time to make.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <zlib.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "base/load_error.h"
#include "base/text.h"
#include "facts/facts.h"
#include "test_support.h"

using npu::test::slurp;
using npu::test::TempDir;

namespace {

// One gzip member of `text` (gzip reads members written one after another as one stream).
std::string gz(std::string_view text) {
  std::string out(compressBound(static_cast<uLong>(text.size())) + 64, '\0');
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// head, then `mib` MiB of `fill`, then tail, as a .gz of a few KB.
std::string write_gz(const TempDir& dir, const std::string& name, const std::string& head, char fill, size_t mib,
                     const std::string& tail) {
  const std::string block = gz(std::string(size_t{1} << 20, fill));
  std::string bytes = gz(head);
  for (size_t i = 0; i < mib; ++i) bytes += block;
  bytes += gz(tail);
  return dir.write(name, bytes);
}

struct Cli {
  int code = -1;
  bool signaled = false;
  std::string err, out;
};

// The advisor under `limits` (a prlimit/timeout prefix; default: the hostile-input limits).
Cli run(const TempDir& dir, const std::string& args, const std::string& limits = "") {
  const std::string out = (dir.path() / "out.json").string(), err = (dir.path() / "err.txt").string();
  const std::string cmd =
      (limits.empty() ? npu::test::limited_advisor(args) : limits + " '" + std::string(NPU_ADVISOR_BIN) + "' " + args) +
      " >'" + out + "' 2>'" + err + "' </dev/null";
  const int status = std::system(cmd.c_str());
  Cli r;
  r.signaled = !WIFEXITED(status) || WEXITSTATUS(status) >= 128;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(err);
  r.out = slurp(out);
  return r;
}

// The compressed cases: this much text, run in this much address space (the loader held each run
// whole, two or three times over: past the limit; now it holds a chunk or an event).
constexpr size_t kHugeMiB = 320;
const std::string kTight = "prlimit --as=600000000 timeout 60";

const char* kEvent = R"({"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":10,"dur":4})";

// A Kineto GPU trace (the object form) of `steps` tiny steps: a ProfilerStep, a launch and its kernel each.
std::string tiny_steps(size_t steps) {
  std::string s = R"({"traceEvents":[{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python"}},)";
  for (size_t i = 0; i < steps; ++i) {
    const size_t t = 1000 + i * 20;
    s += R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(i) +
         R"(","pid":1,"tid":1,"ts":)" + std::to_string(t) +
         R"(,"dur":15},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
         std::to_string(t + 1) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(i + 1) +
         R"(}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(t + 4) +
         R"(,"dur":4,"args":{"correlation":)" + std::to_string(i + 1) + R"(,"device":0,"stream":7}})";
    s += i + 1 < steps ? "," : "]}";
  }
  return s;
}

}  // namespace

// ---- many steps: per-step lists bounded, totals over every step, a warning ----

TEST(HostileRound4, ManyStepsKeepBoundedDetail) {
  TempDir dir;
  const size_t n = npu::kMaxStepDetail + 500;
  const std::string path = dir.write("steps.json.gz", gz(tiny_steps(n)));
  Cli r = run(dir, "facts -q '" + path + "'");
  npu::test::expect_within_limits(r.code, r.err, "facts many steps");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["overall"]["steps"], n);
  EXPECT_EQ(doc["steps"].size(), npu::kMaxStepDetail);
  for (const char* list : {"dispatch", "gpu", "profiler_overhead"})
    EXPECT_EQ(doc[list]["steps"].size(), npu::kMaxStepDetail) << list;
  EXPECT_EQ(doc["idle_attribution"]["by_step"].size(), npu::kMaxStepDetail);
  EXPECT_EQ(doc["idle_attribution"]["steps"], n);  // its totals cover every step
  EXPECT_TRUE(npu::test::is_unavailable(doc, "steps.detail"));
  EXPECT_NE(doc["run"]["warnings"].dump().find("hold the first " + std::to_string(npu::kMaxStepDetail)),
            std::string::npos);
  // analyze shows the same warning among the loaders'.
  Cli a = run(dir, "analyze -q --format json '" + path + "'");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(nlohmann::json::parse(a.out)["warnings"].dump().find("per-step lists"), std::string::npos);
}

// Out of memory anywhere (the loader's parser threads, the facts' side thread) is a one-line
// error, never std::terminate: the same run under address-space limits that cut it at
// different points.
TEST(HostileRound4, OutOfMemoryInAnyThreadIsAnError) {
  TempDir dir;
  const std::string path = dir.write("steps.json", tiny_steps(npu::kMaxStepDetail + 500));
  for (const char* mb : {"120", "200", "320", "480"}) {
    Cli r = run(dir, "facts -q '" + path + "'", std::string("prlimit --as=") + mb + "000000 timeout 60");
    SCOPED_TRACE(std::string(mb) + " MB: " + r.err);
    EXPECT_FALSE(r.signaled) << "killed by a signal (exit " << r.code << ")";
    EXPECT_TRUE(r.code == 0 || r.code == 2 || r.code == 3);
    if (r.code != 0) {
      EXPECT_NE(r.err.find("error: "), std::string::npos);
    }
  }
}

// ---- deep nesting: module paths shared, depth capped with a warning ----

TEST(HostileRound4, DeepRecordFunctionNesting) {
  TempDir dir;
  const size_t depth = 8000;
  std::string s = R"([{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":)" +
                  std::to_string(4 * depth + 100) + "},";
  for (size_t i = 0; i < depth; ++i) {
    std::string name = "r" + std::to_string(1000000 + i) + "_" + std::string(92, 'x');
    s += R"({"ph":"X","cat":"user_annotation","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(1 + i) +
         R"(,"dur":)" + std::to_string(4 * depth - 2 * i) + "},";
  }
  s += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(depth + 1) +
       R"(,"dur":1,"args":{"correlation":1}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" +
       std::to_string(depth + 3) + R"(,"dur":4,"args":{"correlation":1,"device":0,"stream":7}}])";
  const std::string path = dir.write("deep.json", s);
  Cli r = run(dir, "facts -q '" + path + "'");
  npu::test::expect_within_limits(r.code, r.err, "facts deep nesting");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& modules = doc["modules"];
  EXPECT_EQ(modules["nodes"], 128);
  for (const auto& n : modules["tree"]) EXPECT_LE(n["path"].get<std::string>().size(), npu::text::kMaxNameBytes);
  // The kernel counts for the deepest range kept, and so for every one above it.
  EXPECT_EQ(modules["tree"][0]["total_device_ns"], 4000);
  EXPECT_NE(doc["run"]["warnings"].dump().find("7872 ranges nested deeper than 128 levels"), std::string::npos)
      << doc["run"]["warnings"].dump();
}

// ---- compressed input: no whitespace run or long string held, errors name file and offset ----

// Each case is kHugeMiB of whitespace in a .gz of a few KB (bench/hostile_round4.py runs 4.5 GiB).
TEST(HostileRound4, HugeWhitespaceInAGzip) {
  TempDir dir;
  const std::string ev = kEvent;
  struct Case {
    const char* name;
    std::string head, tail;
  } cases[] = {
      {"after_last_event.json.gz", "[" + ev + "," + ev, "]"},
      {"after_array.json.gz", "[" + ev + "," + ev + "]", "\n"},
      {"inside_event.json.gz", R"([{"ph":)",
       R"("X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":10,"dur":4},)" + ev + "]"},
      {"after_object_array.json.gz", R"({"traceEvents":[)" + ev + "," + ev + "]", R"(, "x": 1})"},
      {"between_events.json.gz", "[" + ev + ",", ev + "]"},
  };
  for (const Case& c : cases) {
    const std::string path = write_gz(dir, c.name, c.head, ' ', kHugeMiB, c.tail);
    Cli r = run(dir, "analyze -q --format json '" + path + "'", kTight);
    SCOPED_TRACE(std::string(c.name) + ": " + r.err);
    ASSERT_EQ(r.code, 0);
    EXPECT_EQ(nlohmann::json::parse(r.out)["summary"]["counts"]["trace_events"], 2);
  }
}

TEST(HostileRound4, AHugeStringIsCutWhileStreaming) {
  TempDir dir;
  const std::string head = R"([{"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":1,"dur":1,"name":")";
  const std::string path = write_gz(dir, "string.json.gz", head, 'x', kHugeMiB, std::string(R"("},)") + kEvent + "]");
  Cli r = run(dir, "facts -q '" + path + "'", kTight);
  ASSERT_EQ(r.code, 0) << r.err;
  // In process, with small chunks: the name is what text::clip() makes of it, length included.
  const std::string name(300000, 'n');  // past the first chunk (64 KiB read ahead + 64 KiB)
  auto m = npu::test::load_trace_text(
      std::string(R"([{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":")") + name + R"("},)" + kEvent + "]", 4096);
  ASSERT_EQ(m.slices.size(), 2u);
  EXPECT_EQ(m.str(m.slices[0].name), npu::text::clip(name));
  EXPECT_NE(m.str(m.slices[0].name).find("...(300000 bytes)"), std::string::npos);
}

TEST(HostileRound4, AHoleOfZerosIsAnErrorAtItsOffset) {
  TempDir dir;
  const std::string path = write_gz(dir, "zeros.json.gz", "[", '\0', kHugeMiB, std::string(kEvent) + "]");
  Cli r = run(dir, "facts -q '" + path + "'", kTight);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("byte 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("found byte 0x00"), std::string::npos) << r.err;
}

TEST(HostileRound4, AnEventPastTheCapIsSkippedAndNamed) {
  TempDir dir;
  const std::string head = R"([{"ph":"X","cat":"cpu_op","name":"big","pid":1,"tid":1,"ts":1,"dur":1,"args":{"v":[)";
  const std::string path = write_gz(dir, "big_event.json.gz", head, '1', 80, std::string("]}},") + kEvent + "]");
  // '1' x 80 MiB is one number: bigger than the cap, and nothing to cut.
  Cli r = run(dir, "analyze -q --format json '" + path + "'", kTight);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["summary"]["counts"]["trace_events"], 1);
  EXPECT_NE(doc["warnings"].dump().find("1 events larger than 64 MiB"), std::string::npos) << doc["warnings"].dump();
  EXPECT_NE(doc["warnings"].dump().find("the first at byte 1"), std::string::npos);
}

// A long event (past one chunk) cut short is an error at its offset; one with whitespace is read,
// its evidence at its offset.
TEST(HostileRound4, LongEventErrorsNameTheOffset) {
  const std::string ev = kEvent;
  const std::string lead = "[" + ev + ", ";  // the long event starts after it
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    try {
      npu::test::load_trace_text(lead + R"({"ph":"X","name":")" + std::string(300000, 'a'), 4096, threads);
      ADD_FAILURE() << "no error";
    } catch (const npu::LoadError& e) {
      EXPECT_EQ(e.position(), lead.size());
      EXPECT_NE(std::string(e.what()).find("ends inside a string of the event that starts here"), std::string::npos)
          << e.what();
    }
    // Whitespace inside a long event is dropped, not held: the event is read.
    auto m = npu::test::load_trace_text(
        lead + R"({"ph":"X",)" + std::string(300000, ' ') + R"("name":"b","pid":1,"tid":1,"ts":20,"dur":1}])", 4096,
        threads);
    ASSERT_EQ(m.slices.size(), 2u);
    EXPECT_EQ(m.decode_loc(m.slices[1].loc).offset, lead.size());  // its evidence points at it
  }
}
