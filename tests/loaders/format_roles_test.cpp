// Format knowledge in the format folders (docs/adding-a-format.md): each format says which step
// rule its steps follow (model.meta.step_semantics) from what it knows of its own output, maps
// its files and tables to the format-neutral roles (model/role.h), and the lone-CSV sniff
// recognises a CSV by the column lists its loader reads (loaders/torch_npu_text/csv_columns.h).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "facts/facts.h"
#include "loaders/db/format.h"
#include "loaders/format.h"
#include "loaders/torch_npu_text/csv_columns.h"
#include "test_support.h"

namespace {

using npu::Role;
using npu::StepSemantics;
using npu::test::TempDir;

StepSemantics steps_of(const std::string& path) { return npu::test::load_path(path).meta.step_semantics; }

// ---- the step rule, per format ----

TEST(FormatStepRule, TorchNpuTextExportCountsTheCaptureSegments) {
  npu::Detection d = npu::detect_input(npu::test::sample_run());
  ASSERT_EQ(d.format, "torch_npu_text");
  EXPECT_EQ(npu::load_run(d).meta.step_semantics, StepSemantics::CaptureSegments);
}

TEST(FormatStepRule, SqliteExportsFollowTheirProducer) {
  // Named by the format unit from what each producer calls its database, not by the loader.
  EXPECT_EQ(npu::db_producer("/x/ascend_pytorch_profiler_0.db").steps, StepSemantics::StepTasks);
  EXPECT_EQ(npu::db_producer("/x/ascend_mindspore_profiler_3.db").steps, StepSemantics::StepTasks);
  EXPECT_EQ(npu::db_producer("/x/msprof_20240101000000.db").steps, StepSemantics::MsprofTasks);
  EXPECT_EQ(npu::db_producer("/x/export.db").steps, StepSemantics::StepTasks);
  EXPECT_EQ(npu::db_producer("/x/msprof_0.db").name, "msprof DB");

  TempDir dir;
  const char* schema = "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);";
  npu::test::make_db((dir.path() / "ascend_pytorch_profiler_0.db").string(), schema);
  npu::test::make_db((dir.path() / "msprof_0.db").string(), schema);
  npu::Detection torch_db = npu::detect_input((dir.path() / "ascend_pytorch_profiler_0.db").string());
  ASSERT_EQ(torch_db.format, "sqlite");
  EXPECT_EQ(npu::load_run(torch_db).meta.step_semantics, StepSemantics::StepTasks);
  EXPECT_EQ(steps_of((dir.path() / "msprof_0.db").string()), StepSemantics::MsprofTasks);
}

TEST(FormatStepRule, MsprofFolderKeepsMsprofsRuleWhereItHasIterations) {
  TempDir dir;
  // The DB layout: msprof's own database.
  std::filesystem::create_directories(dir.path() / "PROF_1_20240101000000000_A");
  npu::test::make_db((dir.path() / "PROF_1_20240101000000000_A" / "msprof_20240101000000.db").string(),
                     "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);");
  npu::Detection d = npu::detect_input((dir.path() / "PROF_1_20240101000000000_A").string());
  ASSERT_EQ(d.format, "msprof");
  EXPECT_EQ(npu::load_run(d).meta.step_semantics, StepSemantics::MsprofTasks);
  // CANN 6.x per-iteration timelines: "Iteration N" spans on the Step Trace thread.
  dir.write("PROF_2_20230101000000000_B/device_0/timeline/msprof_0_1_1.json",
            R"([{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"Step Trace"}},)"
            R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"Step Trace"}},)"
            R"({"ph":"X","name":"Iteration 1","pid":1,"tid":2,"ts":"100.0","dur":50.0}])");
  EXPECT_EQ(steps_of((dir.path() / "PROF_2_20230101000000000_B").string()), StepSemantics::MsprofTasks);
  // The CANN 8 text layout: one capture-wide timeline.
  dir.write("PROF_3_20240101000000000_C/mindstudio_profiler_output/msprof_20240101000001.json",
            R"([{"ph":"M","name":"process_name","pid":7,"tid":0,"args":{"name":"Ascend Hardware"}},)"
            R"({"ph":"X","name":"MatMul","pid":7,"tid":3,"ts":"100.0","dur":10.5}])");
  EXPECT_EQ(steps_of((dir.path() / "PROF_3_20240101000000000_C").string()), StepSemantics::CaptureSegments);
}

TEST(FormatStepRule, TraceFileRuleComesFromWhatItHolds) {
  TempDir dir;
  // Kineto: GPU kernels make the launched-work rule (RunModel::finalize, docs/overlap.md).
  std::string gpu = dir.write("gpu.json", R"({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":100,"dur":10,"args":{"correlation":1}}]})");
  EXPECT_EQ(steps_of(gpu), StepSemantics::LaunchedWork);
  std::string ascend = dir.write("ascend.json", R"([
    {"ph":"M","name":"process_name","pid":7,"tid":0,"args":{"name":"Ascend Hardware"}},
    {"ph":"X","name":"MatMul","pid":7,"tid":3,"ts":"100.0","dur":10.5}])");
  EXPECT_EQ(steps_of(ascend), StepSemantics::CaptureSegments);
}

// A lone trace file is the run's trace whatever its name, so whole-file evidence (GC, idle
// attribution) names it; it named a "trace_view.json" that did not exist for every Kineto trace.
TEST(FormatRoles, ALoneTraceFileIsTheRunsTraceWhateverItsName) {
  TempDir dir;
  const std::string path = dir.write("worker0.pt.trace.json", R"({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":100,"dur":10,"args":{"correlation":1}}]})");
  const npu::RunModel m = npu::test::load_path(path);
  const npu::InputFile* f = m.file(Role::Trace);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->path, path);
  const nlohmann::json ev = npu::evidence_file(m, Role::Trace, "the trace");
  EXPECT_EQ(ev["file"], path);
}

TEST(FormatStepRule, MindSporeLegacyFolderCountsTheCaptureSegments) {
  TempDir dir;
  dir.write("ms/ascend_timeline_display_0.json",
            R"([{"ph":"M","name":"process_name","pid":7,"tid":0,"args":{"name":"Ascend Hardware"}},)"
            R"({"ph":"X","name":"MatMul","pid":7,"tid":3,"ts":"100.0","dur":10.5}])");
  npu::Detection d = npu::detect_input((dir.path() / "ms").string());
  ASSERT_EQ(d.format, "mindspore_legacy");
  EXPECT_EQ(npu::load_run(d).meta.step_semantics, StepSemantics::CaptureSegments);
}

// ---- roles: each format maps its own files, evidence names the real one ----

TEST(FormatRoles, EveryFormatsKernelTableIsOneRoleNamedAsReportsKnowIt) {
  TempDir dir;
  dir.write("PROF_1_20240101000000000_A/mindstudio_profiler_output/op_summary_20240101000001.csv",
            "Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)\nMatMul_1,MatMulV3,AI_CORE,100.0,10.5\n");
  npu::RunModel m = npu::test::load_path((dir.path() / "PROF_1_20240101000000000_A").string());
  const npu::InputFile* k = m.file(Role::KernelDetails);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->role, "kernel_details.csv");  // the role's name in reports
  EXPECT_NE(k->path.find("op_summary_20240101000001.csv"), std::string::npos);
  EXPECT_EQ(std::string(npu::role_name(Role::StepTraceTime)), "step_trace_time.csv");
}

// ---- the lone-CSV sniff reads the loaders' column lists ----

// A header made of one alias of every column the sniff recognises the CSV by.
std::string header_of(std::span<const npu::csv_columns::Aliases> signature, bool last_alias) {
  std::string h;
  for (npu::csv_columns::Aliases a : signature)
    h += (h.empty() ? "" : ",") + std::string(last_alias ? a.back() : a.front());
  return h;
}

TEST(LoneCsv, EveryAliasTheLoaderReadsIsRecognised) {
  namespace cols = npu::csv_columns;
  struct Case {
    std::span<const cols::Aliases> signature;
    Role role;
    const char* row;
  } cases[] = {
      {cols::kernel_details::kSignature, Role::KernelDetails, "MatMul_1,100.0,10.5"},
      {cols::op_statistic::kSignature, Role::OpStatistic, "MatMulV3,4,42.0"},
      {cols::memory_record::kSignature, Role::MemoryRecord, "PTA,100.0,12.5"},
      {cols::operator_memory::kSignature, Role::OperatorMemory, "aten::empty,64,100.0"},
  };
  TempDir dir;
  int n = 0;
  for (const Case& c : cases)
    for (bool last : {false, true}) {
      const std::string header = header_of(c.signature, last);
      std::string p = dir.write("lone_" + std::to_string(n++) + ".csv", header + "\n" + c.row + "\n");
      npu::Detection d = npu::detect_input(p);
      ASSERT_EQ(d.format, "torch_npu_text") << header;
      EXPECT_NE(d.description.find(std::string("lone ") + npu::role_name(c.role)), std::string::npos)
          << header << ": " << d.description;
      npu::RunModel m = npu::load_run(d);
      const npu::InputFile* f = m.file(c.role);
      ASSERT_NE(f, nullptr) << header;
      EXPECT_EQ(f->records, 1u) << header;
      EXPECT_EQ(f->path, p);
    }
}

}  // namespace
