#include <filesystem>

#include <zlib.h>

#include <gtest/gtest.h>

#include "base/load_error.h"
#include "test_support.h"

using npu::RunModel;
using npu::test::load_trace_text;

namespace {

// A miniature torch_npu trace: metadata last (as in real files), string ts, a HostToDevice
// flow with a string id, an async_npu flow with an id past 2^53.
const char* kMiniTrace = R"([
{"ph": "X", "name": "ProfilerStep#7", "pid": 10, "tid": 10, "ts": "1000.000", "dur": 100.5, "cat": "cpu_op"},
{"ph": "X", "name": "aten::add", "pid": 10, "tid": 10, "ts": "1010.250", "dur": 5.0, "cat": "cpu_op", "args": {"Sequence number": 3}},
{"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1704161511422904204, "pid": 10, "tid": 10, "ts": "1011.000", "cat": "async_npu"},
{"name": "Node@launch", "pid": 20, "tid": 10, "ts": "1012.000", "dur": 2.0, "args": {"connection_id": 8}, "ph": "X"},
{"name": "HostToDevice38654705663", "ph": "s", "cat": "HostToDevice", "id": "38654705663", "pid": 20, "tid": 10, "ts": "1012.500"},
{"name": "add_kernel", "pid": 30, "tid": 3, "ts": "1020.123", "dur": 1.35, "args": {"Task Type": "AI_CORE", "Stream Id": 3, "connection_id": 8}, "ph": "X"},
{"name": "HostToDevice38654705663", "ph": "f", "id": "38654705663", "ts": "1020.123", "cat": "HostToDevice", "pid": 30, "tid": 3, "bp": "e"},
{"ph": "f", "bp": "e", "name": "torch_to_npu", "id": 1704161511422904204, "pid": 30, "tid": 3, "ts": "1020.123", "cat": "async_npu"},
{"name": "AI Core Freq", "pid": 40, "tid": 0, "ts": "1000.000", "ph": "C", "args": {"MHz": 1800}},
{"ph": "M", "name": "process_name", "pid": 10, "tid": 0, "args": {"name": "Python"}},
{"name": "process_name", "pid": 20, "tid": 0, "args": {"name": "CANN"}, "ph": "M"},
{"name": "process_name", "pid": 30, "tid": 0, "args": {"name": "Ascend Hardware"}, "ph": "M"},
{"name": "process_labels", "pid": 30, "tid": 0, "args": {"labels": "NPU 5"}, "ph": "M"},
{"name": "thread_name", "pid": 30, "tid": 3, "args": {"name": "Stream 3"}, "ph": "M"},
{"name": "process_name", "pid": 40, "tid": 0, "args": {"name": "AI Core Freq"}, "ph": "M"}
]
)";

// `text` gzip-compressed into `path`.
void write_gzip(const std::string& path, const std::string& text) {
  gzFile gz = gzopen(path.c_str(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}

const npu::Track* find_track(const RunModel& m, std::string_view process) {
  for (const auto& t : m.tracks)
    if (m.str(t.process_name) == process) return &t;
  return nullptr;
}

}  // namespace

TEST(TraceLoader, MiniTraceKnownAnswers) {
  RunModel m = load_trace_text(kMiniTrace);
  EXPECT_EQ(m.stats.trace_events, 15u);
  EXPECT_EQ(m.stats.events_by_phase.at("X"), 4u);
  EXPECT_EQ(m.stats.events_by_phase.at("M"), 6u);
  ASSERT_EQ(m.slices.size(), 4u);
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.steps[0].id, 7);
  EXPECT_EQ(m.steps[0].start, 1000000);
  EXPECT_EQ(m.steps[0].end, 1100500);

  const npu::Track* hw = find_track(m, "Ascend Hardware");
  ASSERT_NE(hw, nullptr);
  EXPECT_EQ(hw->kind, npu::TrackKind::Device);
  EXPECT_EQ(hw->device, 5);
  EXPECT_EQ(m.str(hw->thread_name), "Stream 3");
  EXPECT_EQ(m.meta.device, 5);

  ASSERT_EQ(m.flows.size(), 2u);
  for (const auto& f : m.flows) {
    EXPECT_EQ(f.end_ts, 1020123);
    ASSERT_NE(f.end_slice, npu::kNone32);
    EXPECT_EQ(m.str(m.slices[f.end_slice].name), "add_kernel");
    EXPECT_EQ(m.str(m.slices[f.end_slice].task_type), "AI_CORE");
    EXPECT_EQ(m.slices[f.end_slice].corr, 8);
    ASSERT_NE(f.start_slice, npu::kNone32);
    if (f.kind == npu::FlowKind::AsyncNpu) {
      EXPECT_EQ(f.id, 1704161511422904204LL);                       // exact: never went through a double
      EXPECT_EQ(m.str(m.slices[f.start_slice].name), "aten::add");  // innermost enclosing op
    } else {
      EXPECT_EQ(f.kind, npu::FlowKind::HostToDevice);
      EXPECT_EQ(f.id, 38654705663LL);
      EXPECT_EQ(m.str(m.slices[f.start_slice].name), "Node@launch");
    }
  }
  ASSERT_EQ(m.counters.size(), 1u);
  EXPECT_EQ(m.counters[0].value, 1800);
}

TEST(TraceLoader, ProvenanceIsTheEventByteOffset) {
  std::string text = kMiniTrace;
  RunModel m = load_trace_text(text);
  for (const auto& s : m.slices) {
    ASSERT_LT(s.loc, text.size());
    EXPECT_EQ(text[s.loc], '{');
    std::string name(m.str(s.name));
    EXPECT_NE(text.find(name, s.loc), std::string::npos);
    EXPECT_LT(text.find(name, s.loc) - s.loc, 80u);
  }
}

// Chunking and threads must not change the result: cut the same trace into pieces of
// every size from tiny (one event per chunk, splits mid-event) to whole.
TEST(TraceLoader, ChunkSizeAndThreadsDoNotChangeResult) {
  std::string big = "[";
  for (int i = 0; i < 400; ++i) {
    if (i) big += ", ";
    big += "{\"ph\": \"X\", \"name\": \"op" + std::to_string(i % 7) +
           "}, {x\", \"pid\": 1, \"tid\": " + std::to_string(i % 3) + ", \"ts\": \"" + std::to_string(1000 + i) +
           ".125\", \"dur\": 0.5" + ", \"args\": {\"nested\": [{\"a\": 1}, {\"b\": 2}]}}";
  }
  big += "]";
  RunModel ref = load_trace_text(big);
  ASSERT_EQ(ref.slices.size(), 400u);
  for (size_t chunk : {40u, 97u, 256u, 1000u, 4096u}) {
    for (int threads : {1, 2}) {
      RunModel m = load_trace_text(big, chunk, threads);
      ASSERT_EQ(m.slices.size(), ref.slices.size()) << "chunk " << chunk << " threads " << threads;
      for (size_t i = 0; i < m.slices.size(); ++i) {
        EXPECT_EQ(m.slices[i].ts, ref.slices[i].ts);
        EXPECT_EQ(m.slices[i].loc, ref.slices[i].loc);
        EXPECT_EQ(m.str(m.slices[i].name), ref.str(ref.slices[i].name));
      }
    }
  }
}

TEST(TraceLoader, ObjectFormKeepsOtherKeys) {
  RunModel m;
  npu::test::TempDir d;
  std::string p = d.write("t.json", R"({"schemaVersion": 1, "distributedInfo": {"rank": 3},
 "traceEvents": [{"ph": "X", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 10.5, "dur": 3}],
 "INFO": ["a ] tricky } string"], "traceName": "x"})");
  auto r = npu::load_trace_json(p, 0, m, {});
  m.finalize();
  EXPECT_TRUE(r.object_form);
  EXPECT_EQ(m.slices.size(), 1u);
  EXPECT_EQ(m.slices[0].ts, 10500);
  EXPECT_EQ(r.top_level["distributedInfo"]["rank"], 3);
  EXPECT_EQ(r.top_level["traceName"], "x");
  EXPECT_EQ(r.top_level["schemaVersion"], 1);
}

TEST(TraceLoader, BeginEndPairsBecomeSlices) {
  RunModel m =
      load_trace_text(R"([{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},{"ph":"B","name":"b","pid":1,"tid":1,"ts":2},
{"ph":"E","pid":1,"tid":1,"ts":3},{"ph":"E","pid":1,"tid":1,"ts":5}])");
  ASSERT_EQ(m.slices.size(), 2u);
  EXPECT_EQ(m.str(m.slices[0].name), "a");
  EXPECT_EQ(m.slices[0].dur, 4000);
  EXPECT_EQ(m.slices[1].dur, 1000);
}

TEST(TraceLoader, GzipIsReadTransparently) {
  npu::test::TempDir d;
  std::string p = (d.path() / "t.json.gz").string();
  write_gzip(p, kMiniTrace);
  RunModel m;
  npu::load_trace_json(p, 0, m, {});
  EXPECT_EQ(m.stats.trace_events, 15u);
}

TEST(TraceLoader, TruncatedFileNamesOffset) {
  std::string text = kMiniTrace;
  std::string cut = text.substr(0, text.find("Node@launch") + 5);
  try {
    load_trace_text(cut);
    FAIL();
  } catch (const npu::LoadError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find(": byte "), std::string::npos) << w;
    EXPECT_NE(w.find("truncated"), std::string::npos) << w;
    EXPECT_EQ(e.where(), npu::LoadError::Where::Byte);
    EXPECT_LE(e.position(), cut.size());
  }
}

TEST(TraceLoader, NotJsonIsAClearError) {
  try {
    load_trace_text("hello");
    FAIL();
  } catch (const npu::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("byte 0: not a JSON trace"), std::string::npos) << e.what();
  }
}

// A gzip file whose stream is cut short after an invalid event: the error is the first one met
// reading the file in order, chunk by chunk, whatever the threads. The parallel loader once read
// ahead to the cut and reported it instead of the invalid event (fuzz_trace_json, stop 54's CI).
TEST(TraceLoader, GzipCutShortAfterABadEventGivesOneErrorWhateverTheThreads) {
  std::string text = "[";
  auto events = [&text](int from, int to) {
    for (int i = from; i < to; ++i)
      text += "{\"ph\": \"X\", \"name\": \"op" + std::to_string(i % 13) + "\", \"pid\": 1, \"tid\": 1, \"ts\": " +
              std::to_string(1000 + i) + ", \"dur\": 1}, ";
  };
  events(0, 1500);
  const size_t bad_at = text.size();
  text += "{\"ph\": \"X\", \"ts\": 1 2}, ";  // valid to the loader's cut, invalid JSON
  events(1500, 6000);
  text += "{\"ph\": \"X\", \"name\": \"last\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]";
  ASSERT_GT(text.size(), size_t{300000});
  npu::test::TempDir d;
  std::string p = (d.path() / "cut.json.gz").string();
  write_gzip(p, text);
  std::filesystem::resize_file(p, std::filesystem::file_size(p) * 3 / 4);
  auto error_of = [&p](int threads) {
    RunModel m;
    npu::TraceLoadOptions opt;
    opt.threads = threads;
    opt.chunk_bytes = 64;
    try {
      npu::load_trace_json(p, 0, m, opt);
    } catch (const npu::LoadError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  const std::string serial = error_of(1);
  EXPECT_NE(serial.find("byte " + std::to_string(bad_at) + ": invalid event"), std::string::npos) << serial;
  for (int run = 0; run < 5; ++run) EXPECT_EQ(error_of(2), serial) << "run " << run;
}

// An object whose file ends right after "traceEvents": once made the loader read on forever,
// asking for twice as much each time (fuzz_trace_json, out of memory); now a one-line error.
TEST(TraceLoader, FileEndingAfterTheTraceEventsKeyIsAnError) {
  for (const char* text : {"{\"traceEvents\":", "{\"traceEvents\":   \n", "{\"a\": 1, \"traceEvents\" :"}) {
    try {
      load_trace_text(text);
      ADD_FAILURE() << text;
    } catch (const npu::LoadError& e) {
      EXPECT_NE(std::string(e.what()).find("file ends before a \"traceEvents\" array"), std::string::npos) << e.what();
    }
  }
}
