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

namespace {

// The columns read from TASK, COMPUTE_TASK_INFO and COMMUNICATION_TASK_INFO, and the statement
// that joins them: statement column i is the i-th field whatever the schema.
struct TaskColumns {
  explicit TaskColumns(DbLoadContext& cx)
      : t(cx.db, "TASK"), c(cx.db, "COMPUTE_TASK_INFO"), x(cx.db, "COMMUNICATION_TASK_INFO") {
    if (!t.has(t_start) || !t.has(t_end))
      throw LoadError::whole_file(cx.db.path(), "table TASK has no startNs/endNs columns");
    has_compute = cx.db.has_table("COMPUTE_TASK_INFO") && t.has(t_gid);
    join_comm = cx.db.has_table("COMMUNICATION_TASK_INFO") && t.has(t_gid) && x.has(x_gid);
    if (has_compute) {
      cx.block_column = c.name(c_block);
      if (!c.has(c_gid))
        throw LoadError::whole_file(cx.db.path(), "table COMPUTE_TASK_INFO has no globalTaskId column");
    }
    xb = has_compute ? cb + 15 + 1 : cb;
    xr = xb - 1;
  }

  std::string sql() const {
    std::string q = "SELECT t.rowid, " + t.select_list("t");
    if (has_compute) q += ", c.rowid, " + c.select_list("c");
    if (join_comm) q += ", x.rowid, " + x.select_list("x");
    q += " FROM TASK t";
    if (has_compute) q += " LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId";
    if (join_comm) q += " LEFT JOIN COMMUNICATION_TASK_INFO x ON x.globalTaskId = t.globalTaskId";
    return q;
  }

  ColumnPicker t, c, x;
  const int t_start = t.add({"startNs"}), t_end = t.add({"endNs"}), t_dev = t.add({"deviceId"}),
            t_conn = t.add({"connectionId"}), t_gid = t.add({"globalTaskId"}), t_type = t.add({"taskType"}),
            t_stream = t.add({"streamId"}), t_task = t.add({"taskId"}), t_model = t.add({"modelId"});
  const int c_name = c.add({"name"}), c_block = c.add({"blockNum", "blockDim", "block_dim"}),
            c_mix = c.add({"mixBlockNum", "mixBlockDim", "mix_block_dim"}), c_type = c.add({"taskType"}),
            c_optype = c.add({"opType"}), c_ifmt = c.add({"inputFormats"}), c_itype = c.add({"inputDataTypes"}),
            c_ishape = c.add({"inputShapes"}), c_ofmt = c.add({"outputFormats"}), c_otype = c.add({"outputDataTypes"}),
            c_oshape = c.add({"outputShapes"}), c_state = c.add({"opState"}), c_hf32 = c.add({"hf32Eligible"}),
            c_wait = c.add({"waitNs"}), c_gid = c.add({"globalTaskId"});
  const int x_name = x.add({"name"}), x_plane = x.add({"planeId"}), x_gid = x.add({"globalTaskId"});
  bool has_compute = false, join_comm = false;
  static constexpr int tb = 1;           // TASK fields start after t.rowid
  static constexpr int cb = tb + 9 + 1;  // COMPUTE_TASK_INFO fields after c.rowid
  static constexpr int cr = cb - 1;      // c.rowid
  int xb = cb, xr = cb - 1;              // COMMUNICATION_TASK_INFO fields after x.rowid, x.rowid
};

// The operator behind a compute task (a kernel_details row).
Kernel kernel_of(DbLoadContext& cx, const TaskColumns& q, SqliteStmt& st, int64_t rowid, Ns start, Ns end, int32_t dev,
                 int64_t stream, StrId name, StrId task_type) {
  const auto& t = q.t;
  const auto& c = q.c;
  const int tb = TaskColumns::tb, cb = TaskColumns::cb;
  auto text = [&](int col) { return c.has(col) ? cx.str(st, cb + col) : kEmptyStr; };
  Kernel k;
  k.line = static_cast<uint32_t>(rowid);
  k.start = start;
  k.dur = std::max<Ns>(0, end - start);
  k.device = dev;
  k.stream_id = t.has(q.t_stream) ? stream : kNoId;
  k.task_id = t.has(q.t_task) ? st.i64(tb + q.t_task) : kNoId;
  k.model_id = t.has(q.t_model) ? st.i64(tb + q.t_model) : kNoId;
  k.step_id = cx.step_of(start);
  k.wait = c.has(q.c_wait) && !st.null(cb + q.c_wait) ? st.i64(cb + q.c_wait) : kNoId;
  k.block_dim = c.has(q.c_block) ? int32_or(st, cb + q.c_block, -1) : -1;
  k.mix_block_dim = c.has(q.c_mix) ? int32_or(st, cb + q.c_mix, -1) : -1;
  k.name = name;
  k.accel_core = task_type;
  k.type = text(q.c_optype);
  k.op_state = text(q.c_state);
  k.hf32 = text(q.c_hf32);
  k.input_shapes = text(q.c_ishape);
  k.input_dtypes = text(q.c_itype);
  k.input_formats = text(q.c_ifmt);
  k.output_shapes = text(q.c_oshape);
  k.output_dtypes = text(q.c_otype);
  k.output_formats = text(q.c_ofmt);
  return k;
}

// The PMU rows find their kernel by global task id: dense ids in a vector, others in a map.
void index_kernel_by_gid(DbLoadContext& cx, int64_t gid) {
  const auto kernel = static_cast<uint32_t>(cx.model.kernels.size());
  if (gid < 0 || gid >= (int64_t{1} << 28)) {
    cx.kernel_by_gid.emplace(gid, kernel);
    return;
  }
  if (static_cast<size_t>(gid) >= cx.dense_kernel_by_gid.size())
    cx.dense_kernel_by_gid.resize(std::max(static_cast<size_t>(gid) + 1, cx.dense_kernel_by_gid.size() * 2), kNone32);
  cx.dense_kernel_by_gid[static_cast<size_t>(gid)] = kernel;
}

// kernel_details.csv's place in the file table: found (TASK+COMPUTE_TASK_INFO) or missing.
void register_kernels(DbLoadContext& cx, const TaskColumns& q) {
  if (!q.has_compute) {
    cx.missing(Role::KernelDetails, "COMPUTE_TASK_INFO",
               "device operators: top-N, AI CPU, dynamic shapes, block dim, PMU");
    return;
  }
  uint16_t id = cx.register_file(Role::KernelDetails, "TASK+COMPUTE_TASK_INFO");
  cx.model.files[id].records = cx.model.kernels.size();
  cx.model.files[id].note = "from TASK joined with COMPUTE_TASK_INFO";
  auto gone = q.c.missing();
  std::erase_if(gone, [](const std::string& s) { return s == "waitNs" || s == "hf32Eligible" || s == "opState"; });
  if (!gone.empty()) {
    std::string l;
    for (auto& g : gone) l += (l.empty() ? "" : ", ") + g;
    cx.model.files[id].note += "; columns not in this schema: " + l;
  }
}

}  // namespace

void read_tasks(DbLoadContext& cx) {
  if (!cx.db.has_table("TASK")) {
    cx.missing(Role::Trace, "TASK", "no device tasks: the step breakdown and dispatch checks are skipped");
    cx.missing(Role::KernelDetails, "TASK", "device operators: top-N, AI CPU, dynamic shapes, block dim, PMU");
    return;
  }
  const TaskColumns q(cx);
  const auto& t = q.t;
  const int tb = TaskColumns::tb, cb = TaskColumns::cb;
  SqliteStmt st(cx.db, q.sql(), "TASK");
  const uint16_t p_task = cx.part("TASK");
  const StrId comm_type = cx.model.strings.intern("COMMUNICATION"), runtime_type = cx.model.strings.intern("RUNTIME");
  uint64_t n_tasks = 0;
  uint64_t bad_task_times = 0;  // rows skipped for corrupt times
  int64_t first_bad_task = 0;
  cx.task_by_conn.reserve(cx.rows.tasks);
  while (st.step()) {
    ++n_tasks;
    const int64_t rowid = st.i64(0);
    const Ns start = st.i64(tb + q.t_start), end = st.i64(tb + q.t_end);
    // Corrupt times are no task: text reads as 0 and a float such as 1e300 saturates to
    // INT64_MAX (a device time a gate passed); negative or reversed ones the same.
    if (!st.is_integer(tb + q.t_start) || !st.is_integer(tb + q.t_end) || start < 0 || end < start) {
      if (bad_task_times++ == 0) first_bad_task = rowid;
      continue;
    }
    const int32_t dev = t.has(q.t_dev) ? int32_or(st, tb + q.t_dev, -1) : -1;
    const int64_t stream = t.has(q.t_stream) ? st.i64(tb + q.t_stream) : 0;
    const int64_t conn = t.has(q.t_conn) ? st.i64_or(tb + q.t_conn, kNoId) : kNoId;
    StrId task_type = t.has(q.t_type) ? cx.str(st, tb + q.t_type) : kEmptyStr;
    StrId name = task_type;
    const bool compute = q.has_compute && !st.null(TaskColumns::cr);
    const bool comm = q.join_comm && !st.null(q.xr);
    if (compute) {
      name = cx.str(st, cb + q.c_name);
      if (q.c.has(q.c_type) && !st.null(cb + q.c_type)) task_type = cx.str(st, cb + q.c_type);
    } else if (comm) {
      name = cx.str(st, q.xb + q.x_name);
      task_type = comm_type;  // HCCL transport tasks: communication whatever the raw type says
    } else if (q.has_compute) {
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
    Kernel k = kernel_of(cx, q, st, rowid, start, end, dev, stream, name, task_type);
    if (t.has(q.t_gid)) index_kernel_by_gid(cx, st.i64(tb + q.t_gid));
    cx.model.kernels.push_back(k);
  }
  if (bad_task_times > 0)
    cx.rejections.push_back("TASK: " + std::to_string(bad_task_times) +
                            " rows with a startNs/endNs that is not a non-negative integer, or ends before it "
                            "starts, were skipped (first: rowid " +
                            std::to_string(first_bad_task) + ")");
  cx.task_by_conn.build();
  cx.tasks_loaded = n_tasks;
  register_kernels(cx, q);
}

}  // namespace npu
