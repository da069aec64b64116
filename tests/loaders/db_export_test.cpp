// SQLite exports: known-answer tests on small databases built here from the documented schemas
// (docs/formats.md; schema drift between versions), loader-level equivalence with the text
// export of the shipped sample (tools/gen_sample_db.py writes its DB form), and corrupt files.
#include "loaders/db/db_export.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sqlite3.h>

#include <gtest/gtest.h>

#include "base/load_error.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/facts.h"
#include "loaders/db/format.h"
#include "test_support.h"

namespace {

using npu::test::TempDir;

using npu::test::make_db;

// Two compute tasks, one HCCL transport task and one runtime task on device 3, in the newest
// documented schema (table_fields.py): blockNum/mixBlockNum, text as STRING_IDS ids.
const char* kNewSchema = R"sql(
CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO STRING_IDS VALUES (1,'MatMul_1'),(2,'MatMulV3'),(3,'AI_CORE'),(4,'Add_2'),(5,'Add'),
  (6,'AI_VECTOR_CORE'),(7,'dynamic'),(8,'static'),(9,'"8,16;16,4"'),(10,'Notify_Wait'),(11,'EVENT_RECORD'),
  (12,'aic_mac_ratio'),(13,'aiv_vec_ratio'),(14,'hcom_allReduce__1'),(15,'hccl_world_group'),(16,'launch'),
  (17,'aclnnMatmul'),(18,'aten::mm'),(19,'ProfilerStep#7'),(20,'hcom_allReduce_'),(21,'PTA');
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER,
  globalTaskId INTEGER PRIMARY KEY, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER,
  taskId INTEGER, modelId INTEGER);
INSERT INTO TASK VALUES
  (1000000, 1005000, 3, 70, 10, 1, 3, 0, 2, 101, 4294967295),
  (1006000, 1006500, 3, 71, 11, 1, 6, 0, 2, 102, 4294967295),
  (1007000, 1009000, 3, 72, 12, 1, 10, 0, 8, 5, 4294967295),
  (1010000, 1010100, 3, NULL, 13, 1, 11, 0, 2, 103, 4294967295);
CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockNum INTEGER,
  mixBlockNum INTEGER, taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER,
  inputShapes INTEGER, outputFormats INTEGER, outputDataTypes INTEGER, outputShapes INTEGER, attrInfo INTEGER,
  opState INTEGER, hf32Eligible INTEGER);
INSERT INTO COMPUTE_TASK_INFO VALUES (1, 10, 20, 0, 3, 2, NULL, NULL, 9, NULL, NULL, NULL, NULL, 7, NULL),
                                     (4, 11, 48, NULL, 6, 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 8, NULL);
CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, taskType INTEGER,
  planeId INTEGER, groupName INTEGER, opId INTEGER);
INSERT INTO COMMUNICATION_TASK_INFO VALUES (10, 12, 10, 0, 15, 0);
CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER, name INTEGER, value NUMERIC);
INSERT INTO TASK_PMU_INFO VALUES (10, 12, 0.75), (11, 13, 0.5), (10, 13, 0.125);
CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER,
  groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER, retry INTEGER, dataType INTEGER, algType INTEGER,
  count INTEGER, opType INTEGER, deviceId INTEGER);
INSERT INTO COMMUNICATION_OP VALUES (14, 1007000, 1009500, 72, 15, 0, 0, 0, NULL, NULL, 16, 20, 3);
CREATE TABLE CANN_API (startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER,
  name INTEGER);
INSERT INTO CANN_API VALUES (990000, 996000, 20000, 42949672961234, 69, 17),
                            (993000, 995000, 10000, 42949672961234, 70, 16);
CREATE TABLE PYTORCH_API (startNs INTEGER, endNs INTEGER, globalTid INTEGER, connectionId INTEGER, name INTEGER,
  sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER,
  type INTEGER);
INSERT INTO PYTORCH_API VALUES (900000, 1100000, 42949672961000, NULL, 19, -1, 0, NULL, NULL, NULL, 50001),
                               (980000, 999000, 42949672961000, 5, 18, 3, 0, NULL, NULL, NULL, 50001);
CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);
INSERT INTO CONNECTION_IDS VALUES (5, 70), (5, 71);
CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);
INSERT INTO STEP_TIME VALUES (7, 900000, 1100000);
CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER,
  totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);
INSERT INTO MEMORY_RECORD VALUES (21, 1000000, 1048576, 3145728, NULL, 1, 3);
CREATE TABLE META_DATA (name TEXT, value TEXT);
INSERT INTO META_DATA VALUES ('torch_npu_version', '2.5.1'), ('distributed_args', '{"world_size": 8}');
)sql";

npu::RunModel load_db(const std::string& path) {
  npu::RunModel m;
  npu::load_profiler_db(path, m, npu::db_producer(path));
  m.finalize();
  return m;
}

const npu::Kernel* kernel_named(const npu::RunModel& m, std::string_view name) {
  for (const auto& k : m.kernels)
    if (m.str(k.name) == name) return &k;
  return nullptr;
}

TEST(DbExport, NewestSchemaMapsEveryTable) {
  TempDir dir;
  std::string p = (dir.path() / "ascend_pytorch_profiler_3.db").string();
  make_db(p, kNewSchema);
  npu::RunModel m;
  npu::DbSchemaInfo info = npu::load_profiler_db(p, m, npu::db_producer(p));
  m.finalize();
  EXPECT_EQ(info.description, "torch_npu DB export (schema with COMPUTE_TASK_INFO.blockNum)");

  // Kernels: the two compute tasks and the communication operator, in start order.
  ASSERT_EQ(m.kernels.size(), 3u);
  const npu::Kernel* mm = kernel_named(m, "MatMul_1");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->start, 1000000);
  EXPECT_EQ(mm->dur, 5000);
  EXPECT_EQ(mm->block_dim, 20);
  EXPECT_EQ(mm->mix_block_dim, 0);
  EXPECT_EQ(m.str(mm->type), "MatMulV3");
  EXPECT_EQ(m.str(mm->accel_core), "AI_CORE");
  EXPECT_EQ(m.str(mm->op_state), "dynamic");
  EXPECT_EQ(m.str(mm->input_shapes), "\"8,16;16,4\"");
  EXPECT_EQ(mm->stream_id, 2);
  EXPECT_EQ(mm->task_id, 101);
  EXPECT_EQ(mm->device, 3);
  EXPECT_EQ(mm->step_id, 7);
  EXPECT_EQ(mm->line, 10u);  // TASK rowid (= globalTaskId, the INTEGER PRIMARY KEY)
  const npu::Kernel* add = kernel_named(m, "Add_2");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->mix_block_dim, -1);  // NULL
  const npu::Kernel* hccl = kernel_named(m, "hcom_allReduce__1");
  ASSERT_NE(hccl, nullptr);
  EXPECT_EQ(m.str(hccl->accel_core), "HCCL");
  EXPECT_EQ(m.str(hccl->type), "hcom_allReduce_");
  EXPECT_EQ(hccl->dur, 2500);

  // PMU pivoted from long form; a metric a task lacks is NaN.
  ASSERT_EQ(m.pmu_columns.size(), 2u);
  EXPECT_EQ(m.str(m.pmu_columns[0]), "aic_mac_ratio");
  EXPECT_EQ(m.str(m.pmu_columns[1]), "aiv_vec_ratio");
  size_t i_mm = static_cast<size_t>(mm - m.kernels.data()), i_add = static_cast<size_t>(add - m.kernels.data());
  EXPECT_EQ(m.pmu_values[i_mm * 2 + 0], 0.75);
  EXPECT_EQ(m.pmu_values[i_mm * 2 + 1], 0.125);
  EXPECT_TRUE(std::isnan(m.pmu_values[i_add * 2 + 0]));
  EXPECT_EQ(m.pmu_values[i_add * 2 + 1], 0.5);

  // Timeline: 4 device tasks on two streams of NPU 3, the communication op, 2 CANN APIs, 2 Python ops.
  std::map<std::string, int> by_process;
  for (const auto& s : m.slices) by_process[npu::process_display_name(m, m.tracks[s.track])]++;
  EXPECT_EQ(by_process["Ascend Hardware"], 4);
  EXPECT_EQ(by_process["Communication"], 1);
  EXPECT_EQ(by_process["CANN"], 2);
  EXPECT_EQ(by_process["Python"], 2);
  EXPECT_EQ(m.meta.device, 3);
  bool saw_transport = false, saw_runtime = false;
  for (const auto& s : m.slices) {
    if (m.str(s.name) == "Notify_Wait") {
      saw_transport = true;
      EXPECT_EQ(m.str(s.task_type), "COMMUNICATION");  // HCCL transport task: communication
    }
    if (m.str(s.name) == "EVENT_RECORD") saw_runtime = true;  // no info row: named by its task type
  }
  EXPECT_TRUE(saw_transport);
  EXPECT_TRUE(saw_runtime);
  bool saw_launch = false;
  for (const auto& s : m.slices) saw_launch |= m.str(s.name) == "Node@launch";
  EXPECT_TRUE(saw_launch);

  // Flows: Node@launch -> MatMul (HostToDevice), aten::mm -> both tasks (async_npu through CONNECTION_IDS).
  std::map<std::string, int> flows;
  for (const auto& f : m.flows) flows[npu::to_string(f.kind)]++;
  EXPECT_EQ(flows["HostToDevice"], 1);
  EXPECT_EQ(flows["async_npu"], 2);
  for (const auto& f : m.flows) {
    if (f.kind != npu::FlowKind::HostToDevice) continue;
    EXPECT_EQ(f.start_ts, 993000);
    EXPECT_EQ(f.end_ts, 1000000);
    ASSERT_NE(f.end_slice, npu::kNone32);
    EXPECT_EQ(m.str(m.slices[f.end_slice].name), "MatMul_1");
    // Provenance: the flow's ends name their tables and rowids.
    auto start = m.decode_loc(f.start_loc), end = m.decode_loc(f.end_loc);
    EXPECT_EQ(start.table, "CANN_API");
    EXPECT_EQ(start.offset, 2u);
    EXPECT_EQ(end.table, "TASK");
    EXPECT_EQ(end.offset, 10u);
    nlohmann::json ev = npu::evidence_event(m, f.end_loc, "task");
    EXPECT_EQ(ev["table"], "TASK");
    EXPECT_EQ(ev["rowid"], 10);
    EXPECT_EQ(ev["file"], p);
  }

  // Steps from PYTORCH_API ProfilerStep#N; memory converted from bytes; metadata.
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.steps[0].id, 7);
  ASSERT_EQ(m.memory_records.size(), 1u);
  EXPECT_EQ(m.memory_records[0].allocated_mb, 1.0);
  EXPECT_EQ(m.memory_records[0].reserved_mb, 3.0);
  EXPECT_EQ(m.str(m.memory_records[0].component), "PTA");
  EXPECT_EQ(m.meta.versions["torch_npu_version"], "2.5.1");
  EXPECT_EQ(m.meta.distributed["world_size"], "8");
  nlohmann::json kev = npu::evidence_row(m, npu::Role::KernelDetails, mm->line, "x");
  EXPECT_EQ(kev["table"], "TASK");
  EXPECT_EQ(kev["rowid"], 10);
  // Tables this DB lacks are recorded as missing inputs, naming the table.
  const npu::InputFile* mod = m.file(npu::Role::ModuleMemory);
  ASSERT_NE(mod, nullptr);
  EXPECT_EQ(mod->status, npu::InputFile::Status::Missing);
  EXPECT_NE(mod->note.find("NPU_MODULE_MEM"), std::string::npos);
}

// Older schemas: blockDim / mixBlockDim (or block_dim) and text written in place, no STRING_IDS,
// no PYTORCH_API (MindSpore / msprof): steps then come from STEP_TIME.
TEST(DbExport, OlderSchemaWithTextColumnsAndNoPytorchApi) {
  TempDir dir;
  std::string p = (dir.path() / "ascend_mindspore_profiler_0.db").string();
  make_db(p, R"sql(
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalPid INTEGER,
  taskType TEXT, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER,
  globalTaskId INTEGER PRIMARY KEY);
INSERT INTO TASK VALUES (100, 300, 0, 1, 0, 'AI_CORE', 0, 5, 1, 0, 0), (400, 450, 0, 2, 0, 'AI_CPU', 0, 5, 2, 0, 1);
CREATE TABLE COMPUTE_TASK_INFO (name TEXT, globalTaskId INTEGER PRIMARY KEY, block_dim INTEGER,
  mixBlockDim INTEGER, taskType TEXT, opType TEXT);
INSERT INTO COMPUTE_TASK_INFO VALUES ('Conv2D-op1', 0, 32, 0, 'AI_CORE', 'Conv2D'), ('Where-op2', 1, 1, 0, 'AI_CPU', 'Where');
CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);
INSERT INTO STEP_TIME VALUES (1, 50, 350), (2, 350, 500);
)sql");
  npu::RunModel m;
  npu::DbSchemaInfo info = npu::load_profiler_db(p, m, npu::db_producer(p));
  m.finalize();
  EXPECT_EQ(info.description, "MindSpore DB export (schema with COMPUTE_TASK_INFO.block_dim, no PYTORCH_API)");
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.str(m.kernels[0].name), "Conv2D-op1");
  EXPECT_EQ(m.kernels[0].block_dim, 32);
  EXPECT_EQ(m.str(m.kernels[1].accel_core), "AI_CPU");
  EXPECT_EQ(m.kernels[1].step_id, 2);
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[1].id, 2);
  EXPECT_EQ(m.steps[1].start, 350);
  EXPECT_EQ(m.decode_loc(m.steps[1].src.loc).table, "STEP_TIME");
  EXPECT_TRUE(m.pmu_columns.empty());
}

TEST(DbExport, MissingComputeInfoIsAMissingInputNotAnError) {
  TempDir dir;
  std::string p = (dir.path() / "msprof_20240101000000.db").string();
  make_db(p,
          "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, streamId INTEGER);"
          "INSERT INTO TASK VALUES (10, 20, 0, 1);");
  npu::RunModel m = load_db(p);
  EXPECT_TRUE(m.kernels.empty());
  EXPECT_EQ(m.slices.size(), 1u);
  const npu::InputFile* k = m.file(npu::Role::KernelDetails);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->status, npu::InputFile::Status::Missing);
  EXPECT_NE(k->note.find("COMPUTE_TASK_INFO"), std::string::npos);
}

TEST(DbExport, AnalysisDbStepTraceIsExactMicroseconds) {
  TempDir dir;
  std::string p = (dir.path() / "analysis.db").string();
  make_db(p,
          "CREATE TABLE StepTraceTime (deviceId INTEGER, step TEXT, computing NUMERIC, "
          "communication_not_overlapped NUMERIC, overlapped NUMERIC, communication NUMERIC, free NUMERIC, "
          "stage NUMERIC, bubble NUMERIC, communication_not_overlapped_and_exclude_receive NUMERIC, "
          "preparing NUMERIC);"
          "INSERT INTO StepTraceTime VALUES (0, '3', 6728.029, 217.544, 232.536, 450.08, 345.278, 7290.851, 0, "
          "217.544, 151.365), (0, NULL, 1, 0, 0, 0, 2, NULL, NULL, NULL, NULL);");
  npu::RunModel m;
  npu::load_analysis_db(p, m);
  ASSERT_EQ(m.step_trace.size(), 2u);
  EXPECT_EQ(m.step_trace[0].step, 3);
  EXPECT_EQ(m.step_trace[0].computing, 6728029);
  EXPECT_EQ(m.step_trace[0].free, 345278);
  EXPECT_EQ(m.step_trace[0].preparing, 151365);
  EXPECT_EQ(m.step_trace[1].step, npu::kNoId);
  EXPECT_EQ(m.step_trace[1].stage, npu::kNoId);
  EXPECT_EQ(m.step_trace[1].line, 2u);  // rowid
}

// ---- corrupt input: one line naming the file ----

void expect_one_line_error(const std::string& path, std::string_view needle) {
  try {
    npu::RunModel m;
    npu::load_profiler_db(path, m, npu::db_producer(path));
    FAIL() << "no error for " << path;
  } catch (const npu::LoadError& e) {
    std::string w = e.what();
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;
    EXPECT_EQ(w.rfind(path, 0), 0u) << w;
    EXPECT_NE(w.find(needle), std::string::npos) << w;
  }
}

TEST(DbExport, CorruptFilesGiveOneLineErrors) {
  TempDir dir;
  expect_one_line_error(dir.write("garbage.db", std::string(5000, 'x')), "not a SQLite database");
  expect_one_line_error(dir.write("empty.db", ""), "empty file (0 bytes)");
  // A valid DB cut short in the middle of its pages.
  std::string good = (dir.path() / "good.db").string();
  make_db(good, kNewSchema);
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 8192u);
  std::string cut = dir.write("cut.db", bytes.substr(0, bytes.size() / 2));
  try {
    npu::RunModel m;
    npu::load_profiler_db(cut, m, npu::db_producer(cut));
    // SQLite may read a cut file whose missing pages are never touched; then the load is partial, not wrong.
  } catch (const npu::LoadError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    EXPECT_EQ(std::string(e.what()).rfind(cut, 0), 0u);
  }
  // A SQLite file with a TASK table lacking its time columns.
  std::string wrong = (dir.path() / "wrong.db").string();
  make_db(wrong, "CREATE TABLE TASK (a INTEGER); INSERT INTO TASK VALUES (1);");
  expect_one_line_error(wrong, "TASK has no startNs/endNs");
}

TEST(DbExport, UnrelatedSqliteFileLoadsNothingAndSaysSo) {
  TempDir dir;
  std::string p = (dir.path() / "msprof_1.db").string();
  make_db(p, "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('hi');");
  npu::RunModel m = load_db(p);
  EXPECT_TRUE(m.slices.empty());
  const npu::InputFile* t = m.file(npu::Role::Trace);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->status, npu::InputFile::Status::Missing);
}

TEST(DbExport, DetectsDbFilesAndFolders) {
  TempDir dir;
  std::string out = (dir.path() / "w_1_20260101000000000_ascend_ms" / "ASCEND_PROFILER_OUTPUT").string();
  std::filesystem::create_directories(out);
  make_db(out + "/ascend_mindspore_profiler_1.db", kNewSchema);
  make_db(out + "/communication_analyzer.db", "CREATE TABLE CommAnalyzerTime (x INTEGER);");
  npu::Detection d = npu::detect_input((dir.path() / "w_1_20260101000000000_ascend_ms").string());
  EXPECT_EQ(d.format, "sqlite");
  EXPECT_EQ(d.framework, "mindspore");
  EXPECT_EQ(d.files,
            (std::vector<std::string>{out + "/ascend_mindspore_profiler_1.db", out + "/communication_analyzer.db"}));
  npu::RunModel m = npu::load_run(d);
  EXPECT_EQ(m.meta.framework, "mindspore");
  EXPECT_EQ(m.kernels.size(), 3u);
  // communication_analyzer.db without StepTraceTime: the cross-check is recorded as missing.
  const npu::InputFile* st = m.file(npu::Role::StepTraceTime);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->status, npu::InputFile::Status::Missing);
}

// PYTORCH_API with names written as text (read on the loader's second connection), one
// Python connection id linked to several tasks through CONNECTION_IDS, and the task queue:
// an Enqueue/Dequeue pair per connection id makes one flow, an Enqueue alone makes none.
// The second pass adds a queue pair on a far connection id (2^40), which the loader matches
// by sorting instead of an id table.
TEST(DbExport, PytorchApiFlowsAndTaskQueue) {
  for (bool far_id : {false, true}) {
    SCOPED_TRACE(far_id ? "far connection id" : "dense connection ids");
    TempDir dir;
    std::string p = (dir.path() / "ascend_pytorch_profiler_0.db").string();
    make_db(p, std::string(R"sql(
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER,
  globalTaskId INTEGER PRIMARY KEY, taskType TEXT, streamId INTEGER);
INSERT INTO TASK VALUES (500, 600, 0, 70, 1, 'AI_CORE', 2), (700, 800, 0, 71, 2, 'AI_CORE', 2),
                        (900, 950, 0, 70, 3, 'AI_CORE', 2);
CREATE TABLE PYTORCH_API (startNs INTEGER, endNs INTEGER, globalTid INTEGER, connectionId INTEGER, name TEXT,
  type INTEGER);
INSERT INTO PYTORCH_API VALUES
  (100, 200, 4294967297, 1, 'aten::add', 50001),
  (110, 120, 4294967297, 2, 'Enqueue', 50002),
  (300, 310, 4294967298, 2, 'Dequeue@aten::add', 50002),
  (130, 140, 4294967297, 3, 'Enqueue', 50002),
  (400, 410, 4294967298, 3, 'Dequeue@aten::mul', 50002),
  (150, 160, 4294967297, 4, 'Enqueue', 50002),
  (170, 180, 4294967297, NULL, 'aten::empty', NULL);
CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);
INSERT INTO CONNECTION_IDS VALUES (1, 70), (1, 71), (2, 81), (3, 80), (4, 82);
)sql") + (far_id ? R"sql(
INSERT INTO PYTORCH_API VALUES (190, 195, 4294967297, 5, 'Enqueue', 50002),
                               (500, 510, 4294967298, 5, 'Dequeue@aten::sub', 50002);
INSERT INTO CONNECTION_IDS VALUES (5, 1099511627776);
)sql"
                 : ""));
    npu::RunModel m;
    npu::load_profiler_db(p, m, npu::db_producer(p));
    m.finalize();
    std::map<std::string, std::string> cat_of;
    for (const auto& s : m.slices)
      if (npu::process_display_name(m, m.tracks[s.track]) == "Python")
        cat_of[std::string(m.str(s.name))] = m.str(s.cat);
    EXPECT_EQ(cat_of["aten::add"], "cpu_op");
    EXPECT_EQ(cat_of["aten::empty"], "cpu_op");  // NULL type: an operator
    EXPECT_EQ(cat_of["Enqueue"], "enqueue");
    EXPECT_EQ(cat_of["Dequeue@aten::add"], "dequeue");

    std::vector<std::pair<npu::Ns, npu::Ns>> async_npu, queue;
    for (const auto& f : m.flows) {
      if (f.kind == npu::FlowKind::AsyncNpu) async_npu.emplace_back(f.start_ts, f.end_ts);
      if (f.kind == npu::FlowKind::AsyncTaskQueue) {
        queue.emplace_back(f.start_ts, f.end_ts);
        EXPECT_EQ(m.str(f.cat), "async_task_queue");
      }
    }
    // aten::add -> connections 71 and 70, each link and task newest first (the order the
    // loader's former hash multimaps gave, kept so the flows keep their order).
    EXPECT_EQ(async_npu, (std::vector<std::pair<npu::Ns, npu::Ns>>{{100, 700}, {100, 900}, {100, 500}}));
    // Connection ids 80 (Enqueue at 130 -> Dequeue at 400) and 81 (110 -> 300), in id order;
    // connection 82 has no Dequeue.
    std::vector<std::pair<npu::Ns, npu::Ns>> want_queue = {{130, 400}, {110, 300}};
    if (far_id) want_queue.emplace_back(190, 500);
    EXPECT_EQ(queue, want_queue);
  }
}

// TASK_PMU_INFO pivot: the table's width is guessed from its first rows; metrics first seen
// later widen it (twice here: 1 -> 2 -> 4 columns, then squeezed to 3), rows of tasks that are
// not kernels are skipped, and the HCCL rows appended after the compute kernels are all NaN.
TEST(DbExport, PmuMetricsFoundLateWidenTheTable) {
  TempDir dir;
  std::string p = (dir.path() / "ascend_pytorch_profiler_0.db").string();
  make_db(p, R"sql(
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, globalTaskId INTEGER PRIMARY KEY,
  taskType TEXT, streamId INTEGER);
INSERT INTO TASK VALUES (300, 400, 0, 10, 'AI_CORE', 1), (100, 200, 0, 11, 'AI_CORE', 1);
CREATE TABLE COMPUTE_TASK_INFO (name TEXT, globalTaskId INTEGER PRIMARY KEY, opType TEXT);
INSERT INTO COMPUTE_TASK_INFO VALUES ('Late', 10, 'MatMul'), ('Early', 11, 'Add');
CREATE TABLE COMMUNICATION_OP (opName TEXT, startNs INTEGER, endNs INTEGER, opType TEXT);
INSERT INTO COMMUNICATION_OP VALUES ('hcom_allReduce__1', 250, 260, 'hcom_allReduce_');
CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER, name TEXT, value NUMERIC);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4096)
  INSERT INTO TASK_PMU_INFO SELECT 999, 'x', 1.0 FROM n;
INSERT INTO TASK_PMU_INFO VALUES (10, 'b', 0.5), (11, 'c', 0.25), (10, 'c', 0.75), (11, 'd', 2);
)sql");
  npu::RunModel m;
  npu::load_profiler_db(p, m, npu::db_producer(p));
  m.finalize();
  ASSERT_EQ(m.pmu_columns.size(), 3u);
  EXPECT_EQ(m.str(m.pmu_columns[0]), "b");
  EXPECT_EQ(m.str(m.pmu_columns[1]), "c");
  EXPECT_EQ(m.str(m.pmu_columns[2]), "d");
  ASSERT_EQ(m.kernels.size(), 3u);
  ASSERT_EQ(m.pmu_values.size(), 9u);
  // Start order: Early (11), the HCCL operator, Late (10).
  EXPECT_EQ(m.str(m.kernels[0].name), "Early");
  EXPECT_EQ(m.str(m.kernels[1].name), "hcom_allReduce__1");
  EXPECT_EQ(m.str(m.kernels[2].name), "Late");
  const double* v = m.pmu_values.data();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0.25);
  EXPECT_EQ(v[2], 2.0);
  for (int c = 3; c < 6; ++c) EXPECT_TRUE(std::isnan(v[c])) << c;
  EXPECT_EQ(v[6], 0.5);
  EXPECT_EQ(v[7], 0.75);
  EXPECT_TRUE(std::isnan(v[8]));
}

// A TASK_PMU_INFO big enough to be read in several rowid ranges (on the PMU thread and the main
// thread): every kernel's every metric lands in its cell, in the columns' first-seen order.
TEST(DbExport, PmuReadInRangesFillsEveryCell) {
  TempDir dir;
  std::string p = (dir.path() / "ascend_pytorch_profiler_0.db").string();
  make_db(p, R"sql(
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, globalTaskId INTEGER PRIMARY KEY,
  taskType TEXT, streamId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO (name TEXT, globalTaskId INTEGER PRIMARY KEY, opType TEXT);
CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER, name TEXT, value NUMERIC);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
  INSERT INTO TASK SELECT i * 1000, i * 1000 + 500, 0, i, 'AI_CORE', 1 FROM n;
INSERT INTO COMPUTE_TASK_INFO SELECT 'Op', globalTaskId, 'MatMul' FROM TASK;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000),
  m(k, name) AS (VALUES (0, 'mac_ratio'), (1, 'vec_ratio'), (2, 'scalar_ratio'), (3, 'mte2_ratio'))
  INSERT INTO TASK_PMU_INFO SELECT i, name, i * 10 + k FROM n, m ORDER BY i, k;
)sql");
  npu::RunModel m;
  npu::load_profiler_db(p, m, npu::db_producer(p));
  m.finalize();
  ASSERT_EQ(m.pmu_columns.size(), 4u);
  EXPECT_EQ(m.str(m.pmu_columns[0]), "mac_ratio");
  EXPECT_EQ(m.str(m.pmu_columns[3]), "mte2_ratio");
  ASSERT_EQ(m.kernels.size(), 6000u);
  ASSERT_EQ(m.pmu_values.size(), 24000u);
  for (size_t k = 0; k < m.kernels.size(); ++k) {
    const double gid = static_cast<double>(m.kernels[k].start / 1000);  // start = globalTaskId * 1000
    for (size_t c = 0; c < 4; ++c)
      ASSERT_EQ(m.pmu_values[k * 4 + c], gid * 10 + static_cast<double>(c)) << k << "," << c;
  }
}

// ---- the shipped sample, text vs DB export ----

bool have_system_python() { return std::system("/usr/bin/python3 -c 'import sqlite3' > /dev/null 2>&1") == 0; }

TEST(DbExport, SampleDbExportGivesTheSameFactsAsTheTextExport) {
  if (!have_system_python()) GTEST_SKIP() << "/usr/bin/python3 with sqlite3 unavailable";
  TempDir dir;
  std::string cmd = "/usr/bin/python3 " + npu::test::source_dir() + "/tools/gen_sample_db.py " +
                    npu::test::sample_run() + " " + dir.path().string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string db_run = (dir.path() / std::filesystem::path(npu::test::sample_run()).filename()).string();
  npu::Detection d = npu::detect_input(db_run);
  ASSERT_EQ(d.format, "sqlite");
  npu::RunModel text = npu::test::load_path(npu::test::sample_run());
  npu::RunModel db = npu::load_run(d);

  // Loader level: the same records.
  EXPECT_EQ(db.kernels.size(), text.kernels.size());
  EXPECT_EQ(db.steps.size(), text.steps.size());
  for (size_t i = 0; i < std::min(db.steps.size(), text.steps.size()); ++i) {
    EXPECT_EQ(db.steps[i].start, text.steps[i].start);
    EXPECT_EQ(db.steps[i].end, text.steps[i].end);
  }
  ASSERT_EQ(db.step_trace.size(), text.step_trace.size());
  for (size_t i = 0; i < db.step_trace.size(); ++i) {
    EXPECT_EQ(db.step_trace[i].computing, text.step_trace[i].computing);
    // Free differs by design: analysis.db's rule merges each step's own tasks (checked below).
    EXPECT_EQ(db.step_trace[i].comm_not_overlapped, text.step_trace[i].comm_not_overlapped);
  }
  EXPECT_EQ(db.pmu_columns.size(), text.pmu_columns.size());
  EXPECT_EQ(db.memory_records.size(), text.memory_records.size());
  EXPECT_EQ(db.operator_memory.size(), text.operator_memory.size());

  // Facts level: every section but dispatch is identical once provenance is set aside, and
  // the step breakdown is identical but for Free: the text export's Overlap Analysis gives a
  // step the gap after its last task when the host step ends later (capture segments, by
  // start), analysis.db merges each step's own tasks only (docs/overlap.md). Both agree with
  // their own profiler table to the ns.
  // Dispatch differs by construction: the DB keeps only the connection id that links a
  // Node@launch to its task, so a launch is timed from the Node@launch start, while the text
  // trace's HostToDevice arrow starts 1-3 us inside it (docs/formats-supported.md).
  npu::Facts ft = npu::compute_facts(text), fd = npu::compute_facts(db);
  const std::set<std::string> free_dependent = {"free_ns",   "device_time_ns", "stage_ns",           "free_ratio",
                                                "agreement", "profiler",       "worst_agreement",    "step_semantics",
                                                "step_time", "share_of_step",  "step_device_time_ns"};
  ASSERT_EQ(ft.doc["steps"].size(), fd.doc["steps"].size());
  for (size_t i = 0; i < ft.doc["steps"].size(); ++i) {
    const auto &st = ft.doc["steps"][i], &sd = fd.doc["steps"][i];
    EXPECT_TRUE(st["agreement"]["ok"].get<bool>()) << i;
    EXPECT_EQ(sd["agreement"]["max_abs_diff_ns"], 0) << i;
    const int64_t extra_free = st["free_ns"].get<int64_t>() - sd["free_ns"].get<int64_t>();
    EXPECT_GE(extra_free, 0) << i;
    EXPECT_EQ(extra_free, st["device_time_ns"].get<int64_t>() - sd["device_time_ns"].get<int64_t>()) << i;
  }
  // The last step has no later task to leave a gap before: the two rules agree there.
  EXPECT_EQ(ft.doc["steps"].back()["free_ns"], fd.doc["steps"].back()["free_ns"]);
  std::function<nlohmann::json(const nlohmann::json&)> strip = [&](const nlohmann::json& j) -> nlohmann::json {
    if (j.is_object()) {
      nlohmann::json o = nlohmann::json::object();
      for (auto& [k, v] : j.items())
        if (k != "evidence" && k != "source" && k != "file" && !free_dependent.count(k)) o[k] = strip(v);
      return o;
    }
    if (j.is_array()) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& v : j) a.push_back(strip(v));
      return a;
    }
    return j;
  };
  for (const char* section : {"steps", "overall", "operators", "operator_health", "memory"}) {
    ASSERT_TRUE(ft.doc.contains(section)) << section;
    EXPECT_EQ(strip(ft.doc[section]).dump(), strip(fd.doc[section]).dump()) << section;
  }
  // Dispatch still sees every launch.
  EXPECT_EQ(fd.doc["dispatch"]["overall"]["count"], ft.doc["dispatch"]["overall"]["count"]);
  EXPECT_EQ(fd.doc["dispatch"]["overall"]["flow_kind"], ft.doc["dispatch"]["overall"]["flow_kind"]);
}

}  // namespace
