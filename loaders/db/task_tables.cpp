// TASK, the device tasks (one slice each on an "Ascend Hardware" stream track), joined with
// COMPUTE_TASK_INFO (the operator behind a compute task: the kernel_details rows) and
// COMMUNICATION_TASK_INFO (the HCCL transport task's name). Leaves the tasks by connection id
// for the host-to-device flows and the kernels by global task id for the PMU rows.
#include <algorithm>
#include <string>

#include "base/load_error.h"
#include "loaders/db/db_readers.h"

namespace npu {

using Proc = DbLoadContext::Proc;

void read_tasks(DbLoadContext& cx) {
  if (!cx.db.has_table("TASK")) {
    cx.missing("trace_view.json", "TASK", "no device tasks: the step breakdown and dispatch checks are skipped");
    cx.missing("kernel_details.csv", "TASK", "device operators: top-N, AI CPU, dynamic shapes, block dim, PMU");
    return;
  }
  ColumnPicker t(cx.db, "TASK");
  const int t_start = t.add({"startNs"}), t_end = t.add({"endNs"}), t_dev = t.add({"deviceId"}),
            t_conn = t.add({"connectionId"}), t_gid = t.add({"globalTaskId"}), t_type = t.add({"taskType"}),
            t_stream = t.add({"streamId"}), t_task = t.add({"taskId"}), t_model = t.add({"modelId"});
  if (!t.has(t_start) || !t.has(t_end))
    throw LoadError::whole_file(cx.db.path(), "table TASK has no startNs/endNs columns");
  const bool has_compute = cx.db.has_table("COMPUTE_TASK_INFO") && t.has(t_gid);
  const bool has_comm_task = cx.db.has_table("COMMUNICATION_TASK_INFO") && t.has(t_gid);
  ColumnPicker c(cx.db, "COMPUTE_TASK_INFO");
  const int c_name = c.add({"name"}), c_block = c.add({"blockNum", "blockDim", "block_dim"}),
            c_mix = c.add({"mixBlockNum", "mixBlockDim", "mix_block_dim"}), c_type = c.add({"taskType"}),
            c_optype = c.add({"opType"}), c_ifmt = c.add({"inputFormats"}), c_itype = c.add({"inputDataTypes"}),
            c_ishape = c.add({"inputShapes"}), c_ofmt = c.add({"outputFormats"}), c_otype = c.add({"outputDataTypes"}),
            c_oshape = c.add({"outputShapes"}), c_state = c.add({"opState"}), c_hf32 = c.add({"hf32Eligible"}),
            c_wait = c.add({"waitNs"}), c_gid = c.add({"globalTaskId"});
  ColumnPicker x(cx.db, "COMMUNICATION_TASK_INFO");
  const int x_name = x.add({"name"}), x_plane = x.add({"planeId"}), x_gid = x.add({"globalTaskId"});
  if (has_compute) {
    cx.block_column = c.name(c_block);
    if (!c.has(c_gid)) throw LoadError::whole_file(cx.db.path(), "table COMPUTE_TASK_INFO has no globalTaskId column");
  }

  std::string sql = "SELECT t.rowid, " + t.select_list("t");
  if (has_compute) sql += ", c.rowid, " + c.select_list("c");
  if (has_comm_task && x.has(x_gid)) sql += ", x.rowid, " + x.select_list("x");
  sql += " FROM TASK t";
  if (has_compute) sql += " LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId";
  if (has_comm_task && x.has(x_gid)) sql += " LEFT JOIN COMMUNICATION_TASK_INFO x ON x.globalTaskId = t.globalTaskId";
  SqliteStmt st(cx.db, sql, "TASK");
  const int tb = 1;                               // TASK fields start after t.rowid
  const int cb = tb + 9 + 1;                      // COMPUTE_TASK_INFO fields after c.rowid
  const int cr = cb - 1;                          // c.rowid
  const int xb = has_compute ? cb + 15 + 1 : cb;  // COMMUNICATION_TASK_INFO fields after x.rowid
  const int xr = xb - 1;
  const bool join_comm = has_comm_task && x.has(x_gid);

  const uint16_t p_task = cx.part("TASK");
  const StrId comm_type = cx.model.strings.intern("COMMUNICATION"), runtime_type = cx.model.strings.intern("RUNTIME");
  uint64_t n_tasks = 0;
  uint64_t bad_task_times = 0;  // rows skipped for corrupt times
  int64_t first_bad_task = 0;
  cx.task_by_conn.reserve(cx.rows.tasks);
  while (st.step()) {
    ++n_tasks;
    const int64_t rowid = st.i64(0);
    const Ns start = st.i64(tb + t_start), end = st.i64(tb + t_end);
    // Corrupt times are no task: text reads as 0 and a float such as 1e300 saturates to
    // INT64_MAX (a device time a gate passed); negative or reversed ones the same.
    if (!st.is_integer(tb + t_start) || !st.is_integer(tb + t_end) || start < 0 || end < start) {
      if (bad_task_times++ == 0) first_bad_task = rowid;
      continue;
    }
    const int32_t dev = t.has(t_dev) ? int32_or(st, tb + t_dev, -1) : -1;
    const int64_t stream = t.has(t_stream) ? st.i64(tb + t_stream) : 0;
    const int64_t conn = t.has(t_conn) ? st.i64_or(tb + t_conn, kNoId) : kNoId;
    StrId task_type = t.has(t_type) ? cx.str(st, tb + t_type) : kEmptyStr;
    StrId name = task_type;
    const bool compute = has_compute && !st.null(cr);
    const bool comm = join_comm && !st.null(xr);
    if (compute) {
      name = cx.str(st, cb + c_name);
      if (c.has(c_type) && !st.null(cb + c_type)) task_type = cx.str(st, cb + c_type);
    } else if (comm) {
      name = cx.str(st, xb + x_name);
      task_type = comm_type;  // HCCL transport tasks: communication whatever the raw type says
    } else if (has_compute) {
      // Not an operator: the profiler counts computing from COMPUTE_TASK_INFO alone, so a
      // task of raw type AI_CORE without a row there (HCCL's own reduce kernels) is not
      // computing. The raw type stays its name.
      task_type = runtime_type;
    }
    uint32_t tr = cx.track(
        Proc::Hardware, dev, stream, [&] { return "Stream " + std::to_string(stream); }, dev);
    cx.add_slice(tr, start, end, name, kEmptyStr, task_type, conn, p_task, rowid);
    if (conn != kNoId) {
      cx.task_by_conn.add(conn, static_cast<uint32_t>(cx.task_ends.size()));
      cx.task_ends.push_back({start, RunModel::make_loc(p_task, static_cast<uint64_t>(rowid)), tr});
    }
    if (!compute) continue;

    Kernel k;
    k.line = static_cast<uint32_t>(rowid);
    k.start = start;
    k.dur = std::max<Ns>(0, end - start);
    k.device = dev;
    k.stream_id = t.has(t_stream) ? stream : kNoId;
    k.task_id = t.has(t_task) ? st.i64(tb + t_task) : kNoId;
    k.model_id = t.has(t_model) ? st.i64(tb + t_model) : kNoId;
    k.step_id = cx.step_of(start);
    k.wait = c.has(c_wait) && !st.null(cb + c_wait) ? st.i64(cb + c_wait) : kNoId;
    k.block_dim = c.has(c_block) ? int32_or(st, cb + c_block, -1) : -1;
    k.mix_block_dim = c.has(c_mix) ? int32_or(st, cb + c_mix, -1) : -1;
    k.name = name;
    k.accel_core = task_type;
    k.type = c.has(c_optype) ? cx.str(st, cb + c_optype) : kEmptyStr;
    k.op_state = c.has(c_state) ? cx.str(st, cb + c_state) : kEmptyStr;
    k.hf32 = c.has(c_hf32) ? cx.str(st, cb + c_hf32) : kEmptyStr;
    k.input_shapes = c.has(c_ishape) ? cx.str(st, cb + c_ishape) : kEmptyStr;
    k.input_dtypes = c.has(c_itype) ? cx.str(st, cb + c_itype) : kEmptyStr;
    k.input_formats = c.has(c_ifmt) ? cx.str(st, cb + c_ifmt) : kEmptyStr;
    k.output_shapes = c.has(c_oshape) ? cx.str(st, cb + c_oshape) : kEmptyStr;
    k.output_dtypes = c.has(c_otype) ? cx.str(st, cb + c_otype) : kEmptyStr;
    k.output_formats = c.has(c_ofmt) ? cx.str(st, cb + c_ofmt) : kEmptyStr;
    if (t.has(t_gid)) {
      int64_t gid = st.i64(tb + t_gid);
      if (gid >= 0 && gid < (int64_t{1} << 28)) {
        if (static_cast<size_t>(gid) >= cx.dense_kernel_by_gid.size())
          cx.dense_kernel_by_gid.resize(std::max(static_cast<size_t>(gid) + 1, cx.dense_kernel_by_gid.size() * 2),
                                        kNone32);
        cx.dense_kernel_by_gid[static_cast<size_t>(gid)] = static_cast<uint32_t>(cx.model.kernels.size());
      } else {
        cx.kernel_by_gid.emplace(gid, static_cast<uint32_t>(cx.model.kernels.size()));
      }
    }
    cx.model.kernels.push_back(k);
  }
  (void)x_plane;
  if (bad_task_times > 0)
    cx.rejections.push_back("TASK: " + std::to_string(bad_task_times) +
                            " rows with a startNs/endNs that is not a non-negative integer, or ends before it "
                            "starts, were skipped (first: rowid " +
                            std::to_string(first_bad_task) + ")");
  cx.task_by_conn.build();
  cx.tasks_loaded = n_tasks;
  if (has_compute) {
    uint16_t id = cx.register_file("kernel_details.csv", "TASK+COMPUTE_TASK_INFO");
    cx.model.files[id].records = cx.model.kernels.size();
    cx.model.files[id].note = "from TASK joined with COMPUTE_TASK_INFO";
    auto gone = c.missing();
    std::erase_if(gone, [](const std::string& s) { return s == "waitNs" || s == "hf32Eligible" || s == "opState"; });
    if (!gone.empty()) {
      std::string l;
      for (auto& g : gone) l += (l.empty() ? "" : ", ") + g;
      cx.model.files[id].note += "; columns not in this schema: " + l;
    }
  } else {
    cx.missing("kernel_details.csv", "COMPUTE_TASK_INFO",
               "device operators: top-N, AI CPU, dynamic shapes, block dim, PMU");
  }
}

}  // namespace npu
