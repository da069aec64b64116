// msprof PROF_ folders built here: the CANN 8 mindstudio_profiler_output/ text layout (sliced
// timeline, op_summary as a kernel_details variant, versioned file names) and the DB layout.
#include <map>

#include <gtest/gtest.h>

#include "base/load_error.h"
#include "facts/facts.h"
#include "test_support.h"

namespace {

using npu::test::TempDir;

// Two slices of one timeline: one device task each, on the same stream.
std::string slice_json(int task, const char* ts) {
  return std::string(R"([{"ph":"M","name":"process_name","pid":7,"tid":0,"args":{"name":"Ascend Hardware"}},)") +
         R"({"ph":"M","name":"thread_name","pid":7,"tid":3,"args":{"name":"Stream 3"}},)" +
         R"({"ph":"X","name":"MatMul_)" + std::to_string(task) + R"(","pid":7,"tid":3,"ts":")" + ts +
         R"(","dur":10.5,"args":{"Task Type":"AI_CORE"}}])";
}

const char* kOpSummary =
    "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
    "Task Duration(us),Task Wait Time(us),Block Num,Mix Block Num,HF32 Eligible,Input Shapes\n"
    "0,4294967295,11,3,MatMul_1,MatMulV3,static,AI_CORE,\"1700000000000100.000\t\",10.5,0,20,0,NO,\"\"\"8,8\"\"\"\n"
    "0,4294967295,12,3,MatMul_2,MatMulV3,static,AI_CORE,\"1700000000000200.000\t\",10.5,89.5,24,0,NO,\"\"\"8,8\"\"\"\n";

TEST(MsprofFolder, Cann8TextLayoutWithSlicedTimeline) {
  TempDir dir;
  std::string prof = "PROF_000001_20240101000000000_ABCDEFGHIJKLMNOP";
  std::string out = prof + "/mindstudio_profiler_output/";
  dir.write(out + "msprof_slice_0_20240101000001.json", slice_json(1, "1700000000000100.000"));
  dir.write(out + "msprof_slice_1_20240101000001.json", slice_json(2, "1700000000000200.000"));
  dir.write(out + "op_summary_20240101000001.csv", kOpSummary);
  dir.write(out + "api_statistic_20240101000001.csv", "Level,API Name\n");
  dir.write(prof + "/device_0/info.json.0", R"({"devices":"0","rank_id":5,"version":"1.1"})");

  npu::Detection d = npu::detect_input((dir.path() / prof).string());
  ASSERT_EQ(d.format, "msprof");
  npu::RunModel m = npu::load_run(d);
  EXPECT_EQ(m.meta.source_format, "msprof PROF_ text export (CANN 8.0+ file names)");
  EXPECT_EQ(m.meta.rank, 5);
  EXPECT_EQ(m.meta.device, 0);
  ASSERT_EQ(m.slices.size(), 2u);
  // Each slice's evidence names its own slice file.
  std::map<std::string, int> by_file;
  for (const auto& s : m.slices) {
    nlohmann::json ev = npu::evidence_event(m, s.loc, "task");
    by_file[std::filesystem::path(ev["file"].get<std::string>()).filename().string()]++;
    EXPECT_TRUE(ev.contains("byte"));
  }
  EXPECT_EQ(by_file["msprof_slice_0_20240101000001.json"], 1);
  EXPECT_EQ(by_file["msprof_slice_1_20240101000001.json"], 1);
  // op_summary is read as kernel_details (Block Num, Task Start Time with a trailing tab).
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[1].start, 1700000000000200000);
  EXPECT_EQ(m.kernels[1].block_dim, 24);
  EXPECT_EQ(m.kernels[1].wait, 89500);
  const npu::InputFile* k = m.file(npu::Role::KernelDetails);
  ASSERT_NE(k, nullptr);
  EXPECT_NE(k->path.find("op_summary_20240101000001.csv"), std::string::npos);
  bool warned = false;
  for (const auto& w : m.stats.warnings) warned |= w.find("api_statistic_20240101000001.csv") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(MsprofFolder, Cann7FileNamesAreNamed) {
  TempDir dir;
  std::string out = "PROF_000001_20230101000000000_X/mindstudio_profiler_output/";
  dir.write(out + "op_summary_0_1_1_20230101000001.csv", kOpSummary);
  npu::RunModel m = npu::test::load_path((dir.path() / "PROF_000001_20230101000000000_X").string());
  EXPECT_EQ(m.meta.source_format, "msprof PROF_ text export (CANN 7.0 file names)");
  EXPECT_EQ(m.kernels.size(), 2u);
  const npu::InputFile* t = m.file(npu::Role::Trace);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->status, npu::InputFile::Status::Missing);
}

TEST(MsprofFolder, EmptyProfFolderSaysWhatItLookedFor) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "PROF_1" / "host");
  try {
    npu::test::load_path((dir.path() / "PROF_1").string());
    FAIL() << "expected a LoadError";
  } catch (const npu::LoadError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("mindstudio_profiler_output/"), std::string::npos) << w;
    EXPECT_NE(w.find("msprof --export=on"), std::string::npos) << w;
    EXPECT_EQ(w.find('\n'), std::string::npos);
  }
}

}  // namespace
