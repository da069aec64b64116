// The public entry points of the database loaders: load_profiler_db runs the table readers
// (loaders/db/db_readers.h) in the order their dependencies need, with the two biggest tables
// on threads of their own, then puts the kernels in order and names the input files;
// load_analysis_db reads analysis.db's StepTraceTime.
#include "loaders/db/db_export.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "loaders/db/db_load_context.h"
#include "loaders/db/db_readers.h"
#include "loaders/db/pmu_table.h"
#include "loaders/db/pytorch_api_table.h"

namespace npu {
namespace {

// The big tables get their final size up front (SqliteDb::row_count): growing them by
// doubling copied and page-faulted each of them about twice.
void reserve_tables(DbLoadContext& cx) {
  cx.rows.tasks = cx.db.row_count("TASK");
  cx.rows.comm_ops = cx.db.row_count("COMMUNICATION_OP");
  cx.rows.cann = cx.db.row_count("CANN_API");
  cx.rows.pytorch = cx.db.row_count("PYTORCH_API");
  cx.rows.connection_ids = cx.db.row_count("CONNECTION_IDS");
  const uint64_t slices = cx.rows.tasks + cx.rows.comm_ops + cx.rows.cann + cx.rows.pytorch +
                          cx.db.row_count("GC_RECORD") + cx.db.row_count("OVERLAP_ANALYSIS") + cx.step_rows.size();
  cx.model.slices.reserve(cx.model.slices.size() + slices);  // filled from cx.slices at the end, grouped by track
  cx.task_ends.reserve(cx.rows.tasks);
  cx.model.kernels.reserve(cx.model.kernels.size() + cx.rows.tasks + cx.rows.comm_ops);
  // HostToDevice (one per launched task), async_npu (one per CONNECTION_IDS link and task),
  // enqueue->dequeue (at most one per PYTORCH_API row): a bound, not a guess; pages that
  // stay unused are never touched.
  cx.model.flows.reserve(cx.model.flows.size() + cx.rows.tasks + cx.rows.connection_ids + cx.rows.pytorch / 2);
}

// Kernels in start order (stable: HCCL rows after compute rows that start at the same time),
// with their PMU rows, both permuted in place one cycle at a time (no second copy of either).
void sort_kernels_and_pmu(DbLoadContext& cx) {
  const size_t n = cx.model.kernels.size();
  const size_t w = cx.model.pmu_columns.size();
  if (w > 0) cx.model.pmu_values.resize(n * w, std::nan(""));  // drops the HCCL rows reserved but not used
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return cx.model.kernels[a].start < cx.model.kernels[b].start; });
  // kernels[i] = kernels[order[i]] (and PMU row i = row order[i]).
  std::vector<bool> done(n, false);
  std::vector<double> row_tmp(w);
  double* pmu = cx.model.pmu_values.data();
  for (size_t i = 0; i < n; ++i) {
    if (done[i] || order[i] == i) continue;
    Kernel tmp = cx.model.kernels[i];
    std::copy_n(pmu + i * w, w, row_tmp.begin());
    size_t j = i;
    while (order[j] != i) {
      cx.model.kernels[j] = cx.model.kernels[order[j]];
      std::copy_n(pmu + size_t{order[j]} * w, w, pmu + j * w);
      done[j] = true;
      j = order[j];
    }
    cx.model.kernels[j] = tmp;
    std::copy_n(row_tmp.begin(), w, pmu + j * w);
    done[j] = true;
  }
}

void finish_kernels_and_trace(DbLoadContext& cx) {
  // HCCL rows after the compute kernels, then every kernel in start order (as kernel_details).
  if (!cx.comm_kernels.empty()) {
    cx.model.kernels.insert(cx.model.kernels.end(), cx.comm_kernels.begin(), cx.comm_kernels.end());
    if (const InputFile* f = cx.model.file(Role::KernelDetails); f && f->status == InputFile::Status::Loaded) {
      for (auto& file : cx.model.files)
        if (&file == f) {
          file.records = cx.model.kernels.size();
          file.table += "+COMMUNICATION_OP";
        }
    }
  }
  sort_kernels_and_pmu(cx);
  if (cx.trace_rows > 0) {
    std::string tables;
    for (const auto& t : cx.trace_tables) tables += (tables.empty() ? "" : "+") + t;
    uint16_t id = cx.register_file(Role::Trace, tables);
    cx.model.files[id].records = cx.trace_rows;
    cx.model.files[id].note = "timeline rows from " + tables;
    cx.model.trace_file = id;
    cx.model.stats.trace_events += cx.trace_rows;  // rows that became timeline records
  }
  cx.model.files[cx.db_file].records = cx.tasks_loaded;
  cx.model.files[cx.db_file].note = std::to_string(cx.db.tables().size()) + " tables";
}

// The schema in a line for the load summary; the schema notes and unresolved string ids
// become load warnings.
DbSchemaInfo describe(DbLoadContext& cx, const std::string& who) {
  DbSchemaInfo i;
  std::string schema;
  if (!cx.block_column.empty()) schema = "COMPUTE_TASK_INFO." + cx.block_column;
  if (cx.db.has_table("OVERLAP_ANALYSIS")) schema += std::string(schema.empty() ? "" : ", ") + "OVERLAP_ANALYSIS";
  if (!cx.has_pytorch_api && cx.db.has_table("TASK"))
    schema += std::string(schema.empty() ? "" : ", ") + "no PYTORCH_API";
  i.description = who + (schema.empty() ? "" : " (schema with " + schema + ")");
  for (const auto& note : cx.schema_notes) cx.model.stats.warnings.push_back(cx.db.path() + ": " + note);
  for (const auto& note : cx.rejections) cx.model.stats.reject(cx.db.path() + ": " + note);
  if (uint64_t n = cx.unresolved_ids.load())
    cx.model.stats.warnings.push_back(
        cx.db.path() + ": " + std::to_string(n) + " text cells hold a string id that " +
        (cx.db.has_table("STRING_IDS") ? "STRING_IDS does not have" : "no STRING_IDS table resolves") +
        ": those names are empty");
  return i;
}

}  // namespace

DbSchemaInfo load_profiler_db(const std::string& path, RunModel& model, const DbProducer& producer) {
  DbLoadContext cx(path, model);
  cx.db_file = cx.register_file(Role::Database, "");
  model.meta.step_semantics = producer.steps;
  read_string_ids(cx);
  read_enum(cx, "ENUM_API_TYPE", cx.api_types);
  read_enum(cx, "ENUM_MODULE", cx.modules);
  read_metadata(cx);
  read_step_time(cx);  // first: kernels take their step from STEP_TIME
  reserve_tables(cx);
  cx.phase_done("db: strings, metadata, steps, row counts");
  // The two biggest tables are read on their own read-only connections: PYTORCH_API (with
  // CONNECTION_IDS) from the start, TASK_PMU_INFO (one row per task and metric) once the
  // kernels are in. This thread reads TASK and the other tables meanwhile, then turns the
  // PYTORCH_API rows into slices and flows in row order, as a single thread would.
  PytorchApiReader pytorch_api(cx);
  PmuTableReader pmu_table(cx);
  std::thread py([&] { pytorch_api.read(); });
  std::thread pmu;
  auto join_readers = [&] {
    if (py.joinable()) py.join();
    if (pmu.joinable()) pmu.join();
  };
  try {
    read_tasks(cx);
    cx.phase_done("db: TASK + COMPUTE_TASK_INFO");
    pmu = std::thread([&] { pmu_table.read(); });
    read_communication_ops(cx);
    read_cann_api(cx);
    cx.phase_done("db: COMMUNICATION_OP, CANN_API");
    py.join();
    cx.phase_done("db: wait for PYTORCH_API");
    pytorch_api.apply(cx);
    cx.phase_done("db: PYTORCH_API slices and flows");
    read_gc_records(cx);
    read_overlap_analysis(cx);
    read_memory_record(cx);
    read_op_memory(cx);
    read_module_memory(cx);
    cx.phase_done("db: GC, overlap, memory tables");
    cx.slices.move_into(model.slices);  // while the PMU reader finishes; freed block by block
    cx.phase_done("db: slices into the model, grouped by track");
    pmu_table.help_read();
    cx.phase_done("db: TASK_PMU_INFO ranges read on this thread");
  } catch (...) {
    join_readers();
    throw;
  }
  join_readers();
  cx.phase_done("db: wait for TASK_PMU_INFO");
  pmu_table.take_into_model(cx);
  finish_kernels_and_trace(cx);
  cx.phase_done("db: PMU table, kernel sort");
  return describe(cx, producer.name);
}

void load_analysis_db(const std::string& path, RunModel& model) { read_analysis_step_trace(path, model); }

}  // namespace npu
