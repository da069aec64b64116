#include "loaders/db_export_loader.h"
#include "base/json_file.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "base/decimal.h"
#include "loaders/db_id_index.h"
#include "loaders/track_slice_blocks.h"
#include "base/load_error.h"
#include "loaders/sqlite_db.h"

namespace npu {
namespace {

// A small id or count (device, block dim) from an integer cell: `dflt` for NULL, a non-integer
// or a value outside 0..INT32_MAX (2^32 + 48 must not read as 48).
int32_t int32_or(const SqliteStmt& st, int col, int32_t dflt) {
  if (!st.is_integer(col)) return dflt;
  int64_t v = st.i64(col);
  return v >= 0 && v <= INT32_MAX ? static_cast<int32_t>(v) : dflt;
}

// ENUM_API_TYPE ids (msprof docs; used when the enum table is absent).
constexpr int64_t kApiAcl = 20000, kApiModel = 15000, kApiNode = 10000, kApiHccl = 5500, kApiRuntime = 5000;
constexpr int64_t kApiOp = 50001, kApiQueue = 50002, kApiTrace = 50003, kApiMstx = 50004;

class DbLoader {
 public:
  DbLoader(const std::string& path, RunModel& m) : db_(path), m_(m) {}

  DbSchemaInfo run() {
    db_file_ = register_file("profiler.db", "");
    // analysis.db's StepTraceTime is computed from each step's own tasks; msprof's own
    // database keeps msprof's Overlap Analysis rule (docs/overlap.md).
    m_.meta.step_semantics = std::filesystem::path(db_.path()).filename().string().rfind("msprof", 0) == 0
                                 ? StepSemantics::MsprofTasks
                                 : StepSemantics::StepTasks;
    load_strings();
    load_enum("ENUM_API_TYPE", api_types_);
    load_enum("ENUM_MODULE", modules_);
    load_meta();
    load_steps();  // first: kernels take their step from STEP_TIME
    reserve_tables();
    phase_done("db: strings, metadata, steps, row counts");
    // The two biggest tables are read on their own read-only connections: PYTORCH_API (with
    // CONNECTION_IDS) from the start, TASK_PMU_INFO (one row per task and metric) once the
    // kernels are in. This thread reads TASK and the other tables meanwhile, then turns the
    // PYTORCH_API rows into slices and flows in row order, as a single thread would.
    std::thread py([this] { read_pytorch_api(); });
    std::thread pmu;
    auto join_readers = [&] {
      if (py.joinable()) py.join();
      if (pmu.joinable()) pmu.join();
    };
    try {
      load_tasks();
      phase_done("db: TASK + COMPUTE_TASK_INFO");
      pmu = std::thread([this] { read_pmu(); });
      load_comm_ops();
      load_cann_api();
      phase_done("db: COMMUNICATION_OP, CANN_API");
      py.join();
      phase_done("db: wait for PYTORCH_API");
      load_pytorch_api();
      phase_done("db: PYTORCH_API slices and flows");
      load_gc();
      load_overlap();
      load_memory_record();
      load_op_memory();
      load_module_memory();
      phase_done("db: GC, overlap, memory tables");
      slices_.move_into(m_.slices);  // while the PMU reader finishes; freed block by block
      phase_done("db: slices into the model, grouped by track");
      help_read_pmu();
      phase_done("db: TASK_PMU_INFO ranges read on this thread");
    } catch (...) {
      join_readers();
      throw;
    }
    join_readers();
    phase_done("db: wait for TASK_PMU_INFO");
    take_pmu_names();
    finish_trace_role();
    phase_done("db: PMU table, kernel sort");
    return info();
  }

 private:
  void phase_done(const char* name) {
    auto now = std::chrono::steady_clock::now();
    m_.stats.add_phase(name, std::chrono::duration<double>(now - phase_start_).count());
    phase_start_ = now;
  }

  // The big tables get their final size up front (SqliteDb::row_count): growing them by
  // doubling copied and page-faulted each of them about twice.
  void reserve_tables() {
    rows_.tasks = db_.row_count("TASK");
    rows_.comm_ops = db_.row_count("COMMUNICATION_OP");
    rows_.cann = db_.row_count("CANN_API");
    rows_.pytorch = db_.row_count("PYTORCH_API");
    rows_.connection_ids = db_.row_count("CONNECTION_IDS");
    const uint64_t slices = rows_.tasks + rows_.comm_ops + rows_.cann + rows_.pytorch + db_.row_count("GC_RECORD") +
                            db_.row_count("OVERLAP_ANALYSIS") + step_rows_.size();
    m_.slices.reserve(m_.slices.size() + slices);  // filled from slices_ at the end, grouped by track
    task_ends_.reserve(rows_.tasks);
    m_.kernels.reserve(m_.kernels.size() + rows_.tasks + rows_.comm_ops);
    // HostToDevice (one per launched task), async_npu (one per CONNECTION_IDS link and task),
    // enqueue->dequeue (at most one per PYTORCH_API row): a bound, not a guess; pages that
    // stay unused are never touched.
    m_.flows.reserve(m_.flows.size() + rows_.tasks + rows_.connection_ids + rows_.pytorch / 2);
  }

  // ---- files, roles and provenance ----

  uint16_t register_file(const std::string& role, const std::string& table) {
    InputFile f;
    f.role = role;
    f.path = db_.path();
    std::error_code ec;
    f.bytes = std::filesystem::file_size(db_.path(), ec);
    f.status = InputFile::Status::Loaded;
    f.table = table;
    return m_.add_file(std::move(f));
  }

  void missing(const std::string& role, const std::string& table, const std::string& why) {
    InputFile f;
    f.role = role;
    f.status = InputFile::Status::Missing;
    f.note = "no " + table + " table in " + std::filesystem::path(db_.path()).filename().string() + ": " + why;
    m_.add_file(std::move(f));
  }

  uint16_t part(const std::string& table) {
    trace_tables_.insert(table);
    return m_.add_trace_part(db_file_, table);
  }

  // ---- strings ----

  void load_strings() {
    if (!db_.has_table("STRING_IDS")) return;
    ColumnPicker c(db_, "STRING_IDS");
    int id = c.add({"id"}), value = c.add({"value"});
    if (!c.has(id) || !c.has(value)) return;
    SqliteStmt st(db_, "SELECT " + c.select_list() + " FROM STRING_IDS", "STRING_IDS");
    while (st.step()) {
      int64_t k = st.i64(id);
      StrId v = m_.strings.intern(st.text(value));
      // Ids are small and dense in every export seen: index a vector, keep a map for the rest.
      if (k >= 0 && k < (int64_t{1} << 24)) {
        if (static_cast<size_t>(k) >= dense_strings_.size()) dense_strings_.resize(static_cast<size_t>(k) + 1, kNone32);
        dense_strings_[static_cast<size_t>(k)] = v;
      } else {
        strings_[k] = v;
      }
    }
  }

  // Text columns hold a STRING_IDS id in current schemas and the text itself in older ones.
  StrId str(const SqliteStmt& st, int col) {
    switch (st.type(col)) {
      case SQLITE_NULL: return kEmptyStr;
      case SQLITE_INTEGER: return string_id(st.i64(col));
      default: return m_.strings.intern(st.text(col));
    }
  }
  // A STRING_IDS id's string; reads only (safe from the PMU thread once the strings are in).
  StrId string_id(int64_t k) const {
    if (k >= 0 && static_cast<size_t>(k) < dense_strings_.size())
      if (dense_strings_[static_cast<size_t>(k)] != kNone32) return dense_strings_[static_cast<size_t>(k)];
    auto it = strings_.find(k);
    if (it != strings_.end()) return it->second;
    unresolved_ids_.fetch_add(1, std::memory_order_relaxed);  // reported: names would be blank silently
    return kEmptyStr;
  }

  void load_enum(const char* table, std::unordered_map<int64_t, std::string>& out) {
    if (!db_.has_table(table)) return;
    ColumnPicker c(db_, table);
    int id = c.add({"id"}), name = c.add({"name"});
    if (!c.has(id) || !c.has(name)) return;
    SqliteStmt st(db_, "SELECT " + c.select_list() + " FROM " + table, table);
    while (st.step()) out[st.i64(id)] = std::string(st.text(name));
  }

  // ---- tracks ----

  // One track per (process kind, pid, tid); the thread name is made only when a track is new.
  enum class Proc : uint8_t { Hardware, Communication, Cann, Python, PythonGC, Overlap };
  struct TrackKey {
    Proc proc;
    int64_t a, b;
    bool operator==(const TrackKey&) const = default;
  };
  struct TrackKeyHash {
    size_t operator()(const TrackKey& k) const {
      uint64_t h = static_cast<uint64_t>(k.a) * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(k.b) + 0x632BE59BD9B4E019ull);
      return static_cast<size_t>(h ^ (h >> 29) ^ static_cast<uint64_t>(k.proc));
    }
  };
  template <typename ThreadName>
  uint32_t track(Proc proc, int64_t pid, int64_t tid, ThreadName&& thread, int32_t device = -1) {
    TrackKey key{proc, pid, tid};
    if (last_track_ != kNone32 && key == last_key_) return last_track_;
    auto it = tracks_.find(key);
    if (it != tracks_.end()) {
      last_key_ = key;
      return last_track_ = it->second;
    }
    static const char* kNames[] = {"Ascend Hardware", "Communication", "CANN", "Python", "Python GC", "Overlap Analysis"};
    std::string_view process = kNames[static_cast<int>(proc)];
    Track t;
    t.pid = pid;
    t.tid = tid;
    t.process_name = m_.strings.intern(process);
    t.thread_name = m_.strings.intern(thread());
    if (device >= 0) t.process_label = m_.strings.intern("NPU " + std::to_string(device));
    m_.tracks.push_back(t);
    uint32_t idx = static_cast<uint32_t>(m_.tracks.size() - 1);
    tracks_.emplace(key, idx);
    last_key_ = key;
    return last_track_ = idx;
  }

  void add_slice(uint32_t tr, Ns start, Ns end, StrId name, StrId cat, StrId task_type, int64_t corr,
                 uint16_t part_id, int64_t rowid) {
    Slice s;
    s.ts = start;
    s.dur = std::max<Ns>(0, end - start);
    s.name = name;
    s.cat = cat;
    s.task_type = task_type;
    s.corr = corr;
    s.track = tr;
    s.loc = RunModel::make_loc(part_id, static_cast<uint64_t>(rowid));
    slices_.push(tr, s);
    ++trace_rows_;
  }

  // ---- META_DATA, RANK_DEVICE_MAP ----

  void load_meta() {
    if (db_.has_table("META_DATA")) {
      ColumnPicker c(db_, "META_DATA");
      int name = c.add({"name"}), value = c.add({"value"});
      SqliteStmt st(db_, "SELECT " + c.select_list() + " FROM META_DATA", "META_DATA");
      while (st.step()) {
        std::string n(st.text(name)), v(st.text(value));
        auto j = parse_json_or_discard(v);  // too deep or invalid: not an object, skipped
        auto flat = [&](std::map<std::string, std::string>& into) {
          for (auto& [k, x] : j.items()) into[k] = x.is_string() ? x.get<std::string>() : x.dump();
        };
        if (n == "distributed_args" && j.is_object()) flat(m_.meta.distributed);
        else if (n == "ENV_VARIABLES" && j.is_object()) flat(m_.meta.env);
        else if (n.find("version") != std::string::npos) m_.meta.versions[n] = v;
        else m_.meta.config[n] = v;
      }
    }
    if (db_.has_table("RANK_DEVICE_MAP")) {
      ColumnPicker c(db_, "RANK_DEVICE_MAP");
      int rank = c.add({"rankId"}), dev = c.add({"deviceId"});
      SqliteStmt st(db_, "SELECT " + c.select_list() + " FROM RANK_DEVICE_MAP", "RANK_DEVICE_MAP");
      if (st.step()) {
        if (c.has(rank) && int32_or(st, rank, -1) >= 0 && m_.meta.rank < 0) m_.meta.rank = int32_or(st, rank, -1);
        if (c.has(dev) && int32_or(st, dev, -1) >= 0) m_.meta.device = int32_or(st, dev, -1);
      }
    }
  }

  // ---- STEP_TIME ----

  void load_steps() {
    if (!db_.has_table("STEP_TIME")) return;
    ColumnPicker c(db_, "STEP_TIME");
    int id = c.add({"id"}), start = c.add({"startNs"}), end = c.add({"endNs"});
    if (!c.has(start) || !c.has(end)) {
      schema_notes_.push_back("STEP_TIME without startNs/endNs");
      return;
    }
    SqliteStmt st(db_, "SELECT rowid, " + c.select_list() + " FROM STEP_TIME", "STEP_TIME");
    while (st.step())
      step_rows_.push_back({st.i64(id + 1), st.i64(start + 1), st.i64(end + 1), st.i64(0)});
    std::sort(step_rows_.begin(), step_rows_.end(), [](auto& a, auto& b) { return a.start < b.start; });
  }

  int64_t step_of(Ns ts) const {
    auto it = std::upper_bound(step_rows_.begin(), step_rows_.end(), ts,
                               [](Ns v, const StepRow& s) { return v < s.start; });
    if (it == step_rows_.begin()) return kNoId;
    --it;
    return ts < it->end ? it->id : kNoId;
  }

  // ---- TASK (+ COMPUTE_TASK_INFO, COMMUNICATION_TASK_INFO) ----

  void load_tasks() {
    if (!db_.has_table("TASK")) {
      missing("trace_view.json", "TASK", "no device tasks: the step breakdown and dispatch checks are skipped");
      missing("kernel_details.csv", "TASK", "device operators: top-N, AI CPU, dynamic shapes, block dim, PMU");
      return;
    }
    ColumnPicker t(db_, "TASK");
    const int t_start = t.add({"startNs"}), t_end = t.add({"endNs"}), t_dev = t.add({"deviceId"}),
              t_conn = t.add({"connectionId"}), t_gid = t.add({"globalTaskId"}), t_type = t.add({"taskType"}),
              t_stream = t.add({"streamId"}), t_task = t.add({"taskId"}), t_model = t.add({"modelId"});
    if (!t.has(t_start) || !t.has(t_end))
      throw LoadError::whole_file(db_.path(), "table TASK has no startNs/endNs columns");
    const bool has_compute = db_.has_table("COMPUTE_TASK_INFO") && t.has(t_gid);
    const bool has_comm_task = db_.has_table("COMMUNICATION_TASK_INFO") && t.has(t_gid);
    ColumnPicker c(db_, "COMPUTE_TASK_INFO");
    const int c_name = c.add({"name"}), c_block = c.add({"blockNum", "blockDim", "block_dim"}),
              c_mix = c.add({"mixBlockNum", "mixBlockDim", "mix_block_dim"}), c_type = c.add({"taskType"}),
              c_optype = c.add({"opType"}), c_ifmt = c.add({"inputFormats"}), c_itype = c.add({"inputDataTypes"}),
              c_ishape = c.add({"inputShapes"}), c_ofmt = c.add({"outputFormats"}),
              c_otype = c.add({"outputDataTypes"}), c_oshape = c.add({"outputShapes"}), c_state = c.add({"opState"}),
              c_hf32 = c.add({"hf32Eligible"}), c_wait = c.add({"waitNs"}), c_gid = c.add({"globalTaskId"});
    ColumnPicker x(db_, "COMMUNICATION_TASK_INFO");
    const int x_name = x.add({"name"}), x_plane = x.add({"planeId"}), x_gid = x.add({"globalTaskId"});
    if (has_compute) {
      block_column_ = c.name(c_block);
      if (!c.has(c_gid)) throw LoadError::whole_file(db_.path(), "table COMPUTE_TASK_INFO has no globalTaskId column");
    }

    std::string sql = "SELECT t.rowid, " + t.select_list("t");
    if (has_compute) sql += ", c.rowid, " + c.select_list("c");
    if (has_comm_task && x.has(x_gid)) sql += ", x.rowid, " + x.select_list("x");
    sql += " FROM TASK t";
    if (has_compute) sql += " LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId";
    if (has_comm_task && x.has(x_gid)) sql += " LEFT JOIN COMMUNICATION_TASK_INFO x ON x.globalTaskId = t.globalTaskId";
    SqliteStmt st(db_, sql, "TASK");
    const int tb = 1;                                   // TASK fields start after t.rowid
    const int cb = tb + 9 + 1;                          // COMPUTE_TASK_INFO fields after c.rowid
    const int cr = cb - 1;                              // c.rowid
    const int xb = has_compute ? cb + 15 + 1 : cb;      // COMMUNICATION_TASK_INFO fields after x.rowid
    const int xr = xb - 1;
    const bool join_comm = has_comm_task && x.has(x_gid);

    const uint16_t p_task = part("TASK");
    const StrId comm_type = m_.strings.intern("COMMUNICATION"), runtime_type = m_.strings.intern("RUNTIME");
    uint64_t n_tasks = 0;
    task_by_conn_.reserve(rows_.tasks);
    while (st.step()) {
      ++n_tasks;
      const int64_t rowid = st.i64(0);
      const Ns start = st.i64(tb + t_start), end = st.i64(tb + t_end);
      // Corrupt times are no task: text reads as 0 and a float such as 1e300 saturates to
      // INT64_MAX (a device time a gate passed); negative or reversed ones the same.
      if (!st.is_integer(tb + t_start) || !st.is_integer(tb + t_end) || start < 0 || end < start) {
        if (bad_task_times_++ == 0) first_bad_task_ = rowid;
        continue;
      }
      const int32_t dev = t.has(t_dev) ? int32_or(st, tb + t_dev, -1) : -1;
      const int64_t stream = t.has(t_stream) ? st.i64(tb + t_stream) : 0;
      const int64_t conn = t.has(t_conn) ? st.i64_or(tb + t_conn, kNoId) : kNoId;
      StrId task_type = t.has(t_type) ? str(st, tb + t_type) : kEmptyStr;
      StrId name = task_type;
      const bool compute = has_compute && !st.null(cr);
      const bool comm = join_comm && !st.null(xr);
      if (compute) {
        name = str(st, cb + c_name);
        if (c.has(c_type) && !st.null(cb + c_type)) task_type = str(st, cb + c_type);
      } else if (comm) {
        name = str(st, xb + x_name);
        task_type = comm_type;  // HCCL transport tasks: communication whatever the raw type says
      } else if (has_compute) {
        // Not an operator: the profiler counts computing from COMPUTE_TASK_INFO alone, so a
        // task of raw type AI_CORE without a row there (HCCL's own reduce kernels) is not
        // computing. The raw type stays its name.
        task_type = runtime_type;
      }
      uint32_t tr = track(Proc::Hardware, dev, stream, [&] { return "Stream " + std::to_string(stream); }, dev);
      add_slice(tr, start, end, name, kEmptyStr, task_type, conn, p_task, rowid);
      if (conn != kNoId) {
        task_by_conn_.add(conn, static_cast<uint32_t>(task_ends_.size()));
        task_ends_.push_back({start, RunModel::make_loc(p_task, static_cast<uint64_t>(rowid)), tr});
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
      k.step_id = step_of(start);
      k.wait = c.has(c_wait) && !st.null(cb + c_wait) ? st.i64(cb + c_wait) : kNoId;
      k.block_dim = c.has(c_block) ? int32_or(st, cb + c_block, -1) : -1;
      k.mix_block_dim = c.has(c_mix) ? int32_or(st, cb + c_mix, -1) : -1;
      k.name = name;
      k.accel_core = task_type;
      k.type = c.has(c_optype) ? str(st, cb + c_optype) : kEmptyStr;
      k.op_state = c.has(c_state) ? str(st, cb + c_state) : kEmptyStr;
      k.hf32 = c.has(c_hf32) ? str(st, cb + c_hf32) : kEmptyStr;
      k.input_shapes = c.has(c_ishape) ? str(st, cb + c_ishape) : kEmptyStr;
      k.input_dtypes = c.has(c_itype) ? str(st, cb + c_itype) : kEmptyStr;
      k.input_formats = c.has(c_ifmt) ? str(st, cb + c_ifmt) : kEmptyStr;
      k.output_shapes = c.has(c_oshape) ? str(st, cb + c_oshape) : kEmptyStr;
      k.output_dtypes = c.has(c_otype) ? str(st, cb + c_otype) : kEmptyStr;
      k.output_formats = c.has(c_ofmt) ? str(st, cb + c_ofmt) : kEmptyStr;
      if (t.has(t_gid)) {
        int64_t gid = st.i64(tb + t_gid);
        if (gid >= 0 && gid < (int64_t{1} << 28)) {
          if (static_cast<size_t>(gid) >= dense_kernel_by_gid_.size())
            dense_kernel_by_gid_.resize(std::max(static_cast<size_t>(gid) + 1, dense_kernel_by_gid_.size() * 2), kNone32);
          dense_kernel_by_gid_[static_cast<size_t>(gid)] = static_cast<uint32_t>(m_.kernels.size());
        } else {
          kernel_by_gid_.emplace(gid, static_cast<uint32_t>(m_.kernels.size()));
        }
      }
      m_.kernels.push_back(k);
    }
    (void)x_plane;
    if (bad_task_times_ > 0)
      schema_notes_.push_back("TASK: " + std::to_string(bad_task_times_) +
                              " rows with a startNs/endNs that is not a non-negative integer, or ends before it "
                              "starts, were skipped (first: rowid " + std::to_string(first_bad_task_) + ")");
    task_by_conn_.build();
    tasks_loaded_ = n_tasks;
    if (has_compute) {
      uint16_t id = register_file("kernel_details.csv", "TASK+COMPUTE_TASK_INFO");
      m_.files[id].records = m_.kernels.size();
      m_.files[id].note = "from TASK joined with COMPUTE_TASK_INFO";
      auto gone = c.missing();
      std::erase_if(gone, [](const std::string& s) { return s == "waitNs" || s == "hf32Eligible" || s == "opState"; });
      if (!gone.empty()) {
        std::string l;
        for (auto& g : gone) l += (l.empty() ? "" : ", ") + g;
        m_.files[id].note += "; columns not in this schema: " + l;
      }
    } else {
      missing("kernel_details.csv", "COMPUTE_TASK_INFO",
              "device operators: top-N, AI CPU, dynamic shapes, block dim, PMU");
    }
  }

  uint32_t kernel_of(int64_t gid) const {
    if (gid >= 0 && static_cast<size_t>(gid) < dense_kernel_by_gid_.size()) return dense_kernel_by_gid_[static_cast<size_t>(gid)];
    auto it = kernel_by_gid_.find(gid);
    return it == kernel_by_gid_.end() ? kNone32 : it->second;
  }

  // ---- TASK_PMU_INFO (long format: one row per task and metric) ----

  // Runs on the PMU thread: touches nothing of the model but reads (kernel ids, strings);
  // metric names written as text are kept as text and interned by apply_pmu().
  void read_pmu() {
    try {
      if (!db_.has_table("TASK_PMU_INFO") || m_.kernels.empty()) return;
      SqliteDb db(db_.path());
      ColumnPicker p(db, "TASK_PMU_INFO");
      int gid = p.add({"globalTaskId"}), name = p.add({"name"}), value = p.add({"value"});
      if (!p.has(gid) || !p.has(name) || !p.has(value)) {
        pmu_.note = "TASK_PMU_INFO without globalTaskId/name/value";
        return;
      }
      pmu_.cols = {gid, name, value};
      pmu_.select = "SELECT " + p.select_list() + " FROM TASK_PMU_INFO";
      // Rows of the kernels' row-major table: the compute kernels, then room for the HCCL
      // rows that finish_trace_role() appends (NaN). The width is the number of metrics in
      // the first rows (every task has them all, in practice); a metric found later widens
      // the table (a copy), and unused width is squeezed out at the end.
      pmu_.rows = m_.kernels.size() + rows_.comm_ops;
      {
        SqliteStmt head(db, pmu_.select + " LIMIT 4096", "TASK_PMU_INFO");
        std::set<std::string> seen;
        while (head.step()) seen.insert((head.is_integer(name) ? "#" : "") + std::string(head.text(name)));
        pmu_.stride = std::max<size_t>(1, seen.size());
      }
      if (!read_pmu_in_chunks(db)) {
        // A metric that was not in the first rows (or a failed chunk): read it all in order.
        pmu_.names.clear();
        pmu_.values.clear();
        pmu_.col_of_text.clear();
        pmu_.col_of_id.clear();
        pmu_.col_of_big_id.clear();
        SqliteStmt st(db, pmu_.select, "TASK_PMU_INFO");
        read_pmu_rows(st, true);
      }
      // Squeeze the unused width out: row r moves down from r * stride to r * w.
      const size_t w = pmu_.names.size();
      if (w > 0 && w < pmu_.stride) {
        for (size_t r = 0; r < pmu_.rows; ++r)
          std::copy_n(pmu_.values.begin() + static_cast<ptrdiff_t>(r * pmu_.stride), w,
                      pmu_.values.begin() + static_cast<ptrdiff_t>(r * w));
        pmu_.values.resize(pmu_.rows * w);
        pmu_.stride = w;
      }
    } catch (...) {
      pmu_.error = std::current_exception();
    }
  }

  // Reads rows of TASK_PMU_INFO into the table. With `add_columns`, a metric seen for the first
  // time gets the next column (the sequential read); without, the columns are fixed and an
  // unknown metric stops the read and returns false (a chunk read on two threads).
  bool read_pmu_rows(SqliteStmt& st, bool add_columns) {
    const int gid = pmu_.cols[0], name = pmu_.cols[1], value = pmu_.cols[2];
    auto new_column = [&](StrId id, std::string text) {
      if (pmu_.names.size() == pmu_.stride || pmu_.values.empty()) widen_pmu(pmu_.values.empty() ? pmu_.stride : pmu_.stride * 2);
      pmu_.names.push_back({id, std::move(text)});
      return static_cast<uint32_t>(pmu_.names.size() - 1);
    };
    while (st.step()) {
      const uint32_t kernel = kernel_of(st.i64(gid));
      if (kernel == kNone32) continue;
      uint32_t col = kNone32;
      if (st.is_integer(name)) {
        const int64_t id = st.i64(name);
        if (id >= 0 && id < (int64_t{1} << 20)) {
          if (static_cast<size_t>(id) < pmu_.col_of_id.size()) col = pmu_.col_of_id[static_cast<size_t>(id)];
          if (col == kNone32 && add_columns) {
            if (static_cast<size_t>(id) >= pmu_.col_of_id.size()) pmu_.col_of_id.resize(static_cast<size_t>(id) + 1, kNone32);
            col = pmu_.col_of_id[static_cast<size_t>(id)] = new_column(string_id(id), "");
          }
        } else {
          auto it = pmu_.col_of_big_id.find(id);
          if (it != pmu_.col_of_big_id.end()) col = it->second;
          else if (add_columns) col = pmu_.col_of_big_id.emplace(id, new_column(string_id(id), "")).first->second;
        }
      } else {
        std::string text(st.text(name));
        auto it = pmu_.col_of_text.find(text);
        if (it != pmu_.col_of_text.end()) col = it->second;
        else if (add_columns) col = pmu_.col_of_text.emplace(text, new_column(kNone32, text)).first->second;
      }
      if (col == kNone32) return false;
      pmu_.values[size_t{kernel} * pmu_.stride + col] = st.null(value) ? std::nan("") : st.f64(value);
    }
    return true;
  }

  // TASK_PMU_INFO is the biggest table (one row per task and metric) and the last reader the
  // load waits for. Its columns are fixed from the first rows (in the order a sequential read
  // gives them), then the table is read in rowid ranges that this thread and, once it has
  // finished the other tables, the main thread (help_read_pmu) take in turn. Each range writes
  // its own tasks' cells. False when a range met a metric the first rows did not have.
  bool read_pmu_in_chunks(SqliteDb& db) {
    {
      SqliteStmt head(db, pmu_.select + " LIMIT 4096", "TASK_PMU_INFO");
      if (!read_pmu_rows(head, true)) return false;
    }
    if (pmu_.values.empty()) widen_pmu(pmu_.stride);
    SqliteStmt span(db, "SELECT (SELECT min(rowid) FROM TASK_PMU_INFO), (SELECT max(rowid) FROM TASK_PMU_INFO)",
                    "TASK_PMU_INFO");
    if (!span.step() || span.null(0)) return true;
    pmu_.first_rowid = span.i64(0);
    const int64_t last = span.i64(1);
    pmu_.chunk_rows = std::max<int64_t>(4096, (last - pmu_.first_rowid + 1) / 64 + 1);
    pmu_.chunks = static_cast<int>((last - pmu_.first_rowid) / pmu_.chunk_rows + 1);
    pmu_.ready.store(true);
    read_pmu_chunks(db);
    // Wait for a range the main thread may still be reading.
    while (pmu_.chunks_done.load() < pmu_.chunks) std::this_thread::yield();
    return !pmu_.chunk_failed.load();
  }

  void read_pmu_chunks(SqliteDb& db) {
    for (int c; (c = pmu_.next_chunk.fetch_add(1)) < pmu_.chunks;) {
      try {
        const int64_t lo = pmu_.first_rowid + c * pmu_.chunk_rows;
        SqliteStmt st(db, pmu_.select + " WHERE rowid >= " + std::to_string(lo) + " AND rowid < " +
                              std::to_string(lo + pmu_.chunk_rows), "TASK_PMU_INFO");
        if (!read_pmu_rows(st, false)) pmu_.chunk_failed.store(true);
      } catch (...) {
        pmu_.chunk_failed.store(true);  // read again in order, where the error is reported
      }
      pmu_.chunks_done.fetch_add(1);
    }
  }

  // The main thread, done with the other tables, reads PMU ranges too instead of waiting.
  void help_read_pmu() {
    if (!pmu_.ready.load() || pmu_.next_chunk.load() >= pmu_.chunks) return;
    try {
      SqliteDb db(db_.path());
      read_pmu_chunks(db);
    } catch (...) {
      // Opening failed: the PMU thread reads the remaining ranges itself.
    }
  }

  // The PMU table with room for `stride` metrics per row (NaN where a kernel has no value).
  void widen_pmu(size_t stride) {
    std::vector<double> wider;
    wider.reserve(pmu_.rows * stride);
    wider.assign(pmu_.rows * stride, std::nan(""));
    const size_t w = pmu_.names.size();
    if (!pmu_.values.empty())
      for (size_t r = 0; r < pmu_.rows; ++r)
        std::copy_n(pmu_.values.begin() + static_cast<ptrdiff_t>(r * pmu_.stride), w,
                    wider.begin() + static_cast<ptrdiff_t>(r * stride));
    pmu_.values.swap(wider);
    pmu_.stride = stride;
  }

  // ---- COMMUNICATION_OP: operator spans (Communication process) and HCCL kernel rows ----

  void load_comm_ops() {
    if (!db_.has_table("COMMUNICATION_OP")) return;
    ColumnPicker c(db_, "COMMUNICATION_OP");
    int name = c.add({"opName"}), start = c.add({"startNs"}), end = c.add({"endNs"}), conn = c.add({"connectionId"}),
        group = c.add({"groupName"}), optype = c.add({"opType"}), dev = c.add({"deviceId"});
    if (!c.has(start) || !c.has(end) || !c.has(name)) {
      schema_notes_.push_back("COMMUNICATION_OP without opName/startNs/endNs");
      return;
    }
    SqliteStmt st(db_, "SELECT rowid, " + c.select_list() + " FROM COMMUNICATION_OP", "COMMUNICATION_OP");
    const uint16_t p_op = part("COMMUNICATION_OP");
    const StrId hccl = m_.strings.intern("HCCL");
    while (st.step()) {
      int64_t rowid = st.i64(0);
      Ns s = st.i64(1 + start), e = st.i64(1 + end);
      int32_t d = c.has(dev) ? static_cast<int32_t>(st.i64(1 + dev)) : (m_.meta.device >= 0 ? m_.meta.device : -1);
      StrId g = c.has(group) ? str(st, 1 + group) : kEmptyStr;
      uint32_t tr = track(Proc::Communication, d, static_cast<int64_t>(g),
                          [&] { return "Group " + std::string(m_.str(g)) + " Communication"; }, d);
      int64_t cid = c.has(conn) ? st.i64_or(1 + conn, kNoId) : kNoId;
      StrId op_name = str(st, 1 + name);
      add_slice(tr, s, e, op_name, kEmptyStr, hccl, cid, p_op, rowid);
      // kernel_details lists each communication operator as one HCCL row.
      Kernel k;
      k.line = static_cast<uint32_t>(rowid);
      k.start = s;
      k.dur = std::max<Ns>(0, e - s);
      k.device = d;
      k.step_id = step_of(s);
      k.name = op_name;
      k.type = c.has(optype) ? str(st, 1 + optype) : kEmptyStr;
      k.accel_core = hccl;
      comm_kernels_.push_back(k);
    }
  }

  // ---- CANN_API: AscendCL@ / Runtime@ / Node@ / Model@ slices, HostToDevice flows ----

  std::string api_prefix(int64_t type) const {
    auto it = api_types_.find(type);
    std::string n = it != api_types_.end() ? it->second : "";
    if (type == kApiAcl || n == "acl") return "AscendCL@";
    if (type == kApiRuntime || n == "runtime") return "Runtime@";
    if (type == kApiNode || n == "node") return "Node@";
    if (type == kApiModel || n == "model") return "Model@";
    if (type == kApiHccl || n == "hccl" || n == "communication") return "HCCL@";
    return n.empty() ? "" : n + "@";
  }

  void load_cann_api() {
    if (!db_.has_table("CANN_API")) return;
    ColumnPicker c(db_, "CANN_API");
    int start = c.add({"startNs"}), end = c.add({"endNs"}), type = c.add({"type"}), tid = c.add({"globalTid"}),
        conn = c.add({"connectionId"}), name = c.add({"name"});
    if (!c.has(start) || !c.has(end) || !c.has(name)) {
      schema_notes_.push_back("CANN_API without startNs/endNs/name");
      return;
    }
    SqliteStmt st(db_, "SELECT rowid, " + c.select_list() + " FROM CANN_API", "CANN_API");
    const uint16_t p_api = part("CANN_API");
    // "Prefix@name" per API type, indexed by the bare name's id (types are few).
    std::vector<std::pair<int64_t, std::vector<StrId>>> full_names;
    size_t last_type = 0;
    while (st.step()) {
      int64_t rowid = st.i64(0);
      int64_t gtid = c.has(tid) ? st.i64(1 + tid) : 0;
      int64_t pid = gtid >> 32, t = gtid & 0xffffffff;
      uint32_t tr = track(Proc::Cann, pid, t, [&] { return "Thread " + std::to_string(t); });
      int64_t ty = c.has(type) ? st.i64(1 + type) : kApiAcl;
      StrId base = str(st, 1 + name);
      if (last_type >= full_names.size() || full_names[last_type].first != ty) {
        last_type = 0;
        while (last_type < full_names.size() && full_names[last_type].first != ty) ++last_type;
        if (last_type == full_names.size()) full_names.emplace_back(ty, std::vector<StrId>());
      }
      std::vector<StrId>& by_base = full_names[last_type].second;
      if (base >= by_base.size()) by_base.resize(std::max<size_t>(size_t{base} + 1, m_.strings.size()), kNone32);
      StrId& slot = by_base[base];
      if (slot == kNone32) slot = m_.strings.intern(api_prefix(ty) + std::string(m_.str(base)));
      int64_t cid = c.has(conn) ? st.i64_or(1 + conn, kNoId) : kNoId;
      Ns s = st.i64(1 + start);
      add_slice(tr, s, st.i64(1 + end), slot, kEmptyStr, kEmptyStr, cid, p_api, rowid);
      // A launch (Node@ / the API that owns the connection id) -> its device task(s).
      if (cid != kNoId && ty == kApiNode) add_flows(cid, {s, RunModel::make_loc(p_api, rowid), tr}, FlowKind::HostToDevice);
    }
  }

  // Flows from a launch (or a Python op) to each device task of its connection id.
  void add_flows(int64_t conn, const FlowEnd& from, FlowKind kind) {
    // Interned at the first flow of each kind, then reused.
    auto& names = flow_names_[kind == FlowKind::HostToDevice ? 0 : 1];
    for (uint32_t ref : task_by_conn_.values(conn)) {
      if (names.first == kNone32) {
        names.first = m_.strings.intern(to_string(kind));
        names.second = m_.strings.intern(kind == FlowKind::HostToDevice ? "HostToDevice" : "torch_to_npu");
      }
      m_.flows.push_back(Flow::between(conn, from, task_ends_[ref], kind, names.first, names.second));
    }
  }

  // ---- PYTORCH_API (+ CONNECTION_IDS): Python ops, steps, async_npu and task-queue flows ----

  // Runs on its own thread and connection: reads PYTORCH_API and CONNECTION_IDS into py_.
  // Touches nothing of the model; STRING_IDS ids are resolved through the string tables that
  // load_strings() filled before the thread started, text names are kept for the main thread.
  void read_pytorch_api() {
    try {
      if (!db_.has_table("PYTORCH_API")) return;
      SqliteDb db(db_.path());
      ColumnPicker c(db, "PYTORCH_API");
      int start = c.add({"startNs"}), end = c.add({"endNs"}), tid = c.add({"globalTid"}),
          conn = c.add({"connectionId"}), name = c.add({"name"}), type = c.add({"type"});
      if (!c.has(start) || !c.has(end) || !c.has(name)) return;
      py_.columns_ok = true;
      // CONNECTION_IDS: PYTORCH_API.connectionId -> id; connectionId there = TASK/CANN connectionId (1:N).
      if (db.has_table("CONNECTION_IDS")) {
        ColumnPicker k(db, "CONNECTION_IDS");
        int id = k.add({"id"}), cid = k.add({"connectionId"});
        if (k.has(id) && k.has(cid)) {
          SqliteStmt s2(db, "SELECT " + k.select_list() + " FROM CONNECTION_IDS", "CONNECTION_IDS");
          py_.conn_ids.reserve(rows_.connection_ids);
          while (s2.step()) py_.conn_ids.add(s2.i64(id), s2.i64(cid));
          py_.conn_ids.build();
        }
      }
      SqliteStmt st(db, "SELECT rowid, " + c.select_list() + " FROM PYTORCH_API", "PYTORCH_API");
      py_.rows.reserve(rows_.pytorch);
      std::unordered_map<std::string, StrId> text_index;
      const bool has_tid = c.has(tid), has_conn = c.has(conn), has_type = c.has(type);
      while (st.step()) {
        ApiRow& r = py_.rows.emplace_back();
        r.rowid = st.i64(0);
        r.start = st.i64(1 + start);
        r.end = st.i64(1 + end);
        r.gtid = has_tid ? st.i64(1 + tid) : 0;
        r.conn = has_conn ? st.i64_or(1 + conn, kNoId) : kNoId;
        switch (st.type(1 + name)) {
          case SQLITE_NULL: r.name = kEmptyStr; break;
          case SQLITE_INTEGER: r.name = string_id(st.i64(1 + name)); break;
          default: {
            auto [it, added] = text_index.try_emplace(std::string(st.text(1 + name)), 0);
            if (added) {
              it->second = kTextName | static_cast<StrId>(py_.texts.size());
              py_.texts.push_back(it->first);
            }
            r.name = it->second;
          }
        }
        const int64_t ty = has_type ? st.i64(1 + type) : kApiOp;
        r.kind = ty == kApiQueue ? ApiRow::Queue : ty == kApiTrace ? ApiRow::Trace : ty == kApiMstx ? ApiRow::Mstx : ApiRow::Op;
      }
    } catch (...) {
      py_.error = std::current_exception();
    }
  }

  void load_pytorch_api() {
    if (py_.error) std::rethrow_exception(py_.error);
    if (!db_.has_table("PYTORCH_API")) {
      add_step_slices();
      return;
    }
    if (!py_.columns_ok) {
      schema_notes_.push_back("PYTORCH_API without startNs/endNs/name");
      return;
    }
    const StrId cat_op = m_.strings.intern("cpu_op"), cat_enq = m_.strings.intern("enqueue"),
                cat_deq = m_.strings.intern("dequeue"), cat_py = m_.strings.intern("python_function"),
                cat_mstx = m_.strings.intern("mstx");
    const uint16_t p_api = part("PYTORCH_API");
    // Enqueue/Dequeue ends by connection id, in row order (a later row replaces an earlier one).
    std::vector<QueueEnd> queue_ends;
    queue_ends.reserve(rows_.pytorch);  // usually one end per row; untouched pages cost nothing
    // What a name's prefix says, found once per name: bit 0 known, bit 1 "Dequeue", bit 2 "ProfilerStep#".
    std::vector<uint8_t> name_flags;
    auto flags_of = [&](StrId n) {
      if (n >= name_flags.size()) name_flags.resize(std::max<size_t>(size_t{n} + 1, m_.strings.size()), 0);
      uint8_t& f = name_flags[n];
      if (!f) {
        std::string_view nv = m_.str(n);
        f = static_cast<uint8_t>(1 | (nv.rfind("Dequeue", 0) == 0 ? 2 : 0) | (nv.rfind("ProfilerStep#", 0) == 0 ? 4 : 0));
      }
      return f;
    };
    bool any_step = false;
    for (const ApiRow& row : py_.rows) {
      const int64_t rowid = row.rowid, t = row.gtid & 0xffffffff, pconn = row.conn;
      uint32_t tr = track(Proc::Python, row.gtid >> 32, t, [&] { return "Thread " + std::to_string(t); });
      StrId n = (row.name & kTextName) ? m_.strings.intern(py_.texts[row.name & ~kTextName]) : row.name;
      const uint8_t flags = flags_of(n);
      const bool queue = row.kind == ApiRow::Queue;
      StrId cat = cat_op;
      if (queue) cat = (flags & 2) ? cat_deq : cat_enq;
      else if (row.kind == ApiRow::Trace) cat = cat_py;
      else if (row.kind == ApiRow::Mstx) cat = cat_mstx;
      if (flags & 4) any_step = true;
      const Ns s = row.start;
      uint64_t loc = RunModel::make_loc(p_api, rowid);
      add_slice(tr, s, row.end, n, cat, kEmptyStr, pconn, p_api, rowid);
      if (pconn == kNoId) continue;
      for (int64_t cid : py_.conn_ids.values(pconn)) {
        if (queue) {
          queue_ends.push_back(QueueEnd{cid, {s, loc, tr}, cat == cat_deq});
        } else {
          add_flows(cid, {s, loc, tr}, FlowKind::AsyncNpu);
        }
      }
    }
    std::vector<ApiRow>().swap(py_.rows);
    py_.conn_ids = {};
    add_queue_flows(queue_ends);
    if (!any_step) add_step_slices();
    has_pytorch_api_ = true;
  }

  struct QueueEnd {
    int64_t cid;
    FlowEnd end;
    bool dequeue;
  };

  // Enqueue -> Dequeue of the same connection id: the task queue's latency. When an id has
  // several enqueues (or dequeues) the last row's wins. Flows come in connection id order.
  void add_queue_flows(const std::vector<QueueEnd>& ends) {
    const StrId q_cat = m_.strings.intern("async_task_queue"), q_name = m_.strings.intern("enqueue_to_dequeue");
    if (ends.empty()) return;
    auto [mn, mx] = std::minmax_element(ends.begin(), ends.end(),
                                        [](const QueueEnd& a, const QueueEnd& b) { return a.cid < b.cid; });
    const int64_t lo = mn->cid, hi = mx->cid;
    std::vector<std::pair<uint32_t, uint32_t>> pairs;  // (last enqueue, last dequeue) per id, in id order
    if (dense_id_range(lo, hi, ends.size())) {
      std::vector<std::pair<uint32_t, uint32_t>> last(static_cast<size_t>(hi - lo) + 1, {kNone32, kNone32});
      for (uint32_t i = 0; i < ends.size(); ++i) {
        auto& slot = last[static_cast<size_t>(ends[i].cid - lo)];
        (ends[i].dequeue ? slot.second : slot.first) = i;
      }
      for (const auto& p : last)
        if (p.first != kNone32 && p.second != kNone32) pairs.push_back(p);
    } else {
      // Ids spread thin: the ends sorted by (id, row); the last of each kind per id wins.
      std::vector<uint32_t> by_id(ends.size());
      std::iota(by_id.begin(), by_id.end(), 0u);
      std::sort(by_id.begin(), by_id.end(),
                [&](uint32_t a, uint32_t b) { return ends[a].cid != ends[b].cid ? ends[a].cid < ends[b].cid : a < b; });
      for (size_t k = 0; k < by_id.size();) {
        std::pair<uint32_t, uint32_t> p{kNone32, kNone32};
        const int64_t cid = ends[by_id[k]].cid;
        for (; k < by_id.size() && ends[by_id[k]].cid == cid; ++k) (ends[by_id[k]].dequeue ? p.second : p.first) = by_id[k];
        if (p.first != kNone32 && p.second != kNone32) pairs.push_back(p);
      }
    }
    for (const auto& [ei, di] : pairs)
      m_.flows.push_back(Flow::between(ends[ei].cid, ends[ei].end, ends[di].end, FlowKind::AsyncTaskQueue, q_cat, q_name));
  }

  // Steps come from ProfilerStep#N on the host timeline; without PYTORCH_API rows for them
  // (MindSpore, msprof), STEP_TIME gives the same spans.
  void add_step_slices() {
    if (step_rows_.empty()) return;
    const uint16_t p_step = part("STEP_TIME");
    uint32_t tr = track(Proc::Python, 0, 0, [] { return std::string("Steps (STEP_TIME)"); });
    for (const auto& s : step_rows_)
      add_slice(tr, s.start, s.end, m_.strings.intern("ProfilerStep#" + std::to_string(s.id)), kEmptyStr, kEmptyStr,
                kNoId, p_step, s.rowid);
  }

  // ---- GC_RECORD, OVERLAP_ANALYSIS ----

  void load_gc() {
    if (!db_.has_table("GC_RECORD")) return;
    ColumnPicker c(db_, "GC_RECORD");
    int start = c.add({"startNs"}), end = c.add({"endNs"}), tid = c.add({"globalTid"});
    if (!c.has(start) || !c.has(end)) return;
    SqliteStmt st(db_, "SELECT rowid, " + c.select_list() + " FROM GC_RECORD", "GC_RECORD");
    const uint16_t p = part("GC_RECORD");
    const StrId gc = m_.strings.intern("GC");
    while (st.step()) {
      int64_t gtid = c.has(tid) ? st.i64(1 + tid) : 0;
      uint32_t tr = track(Proc::PythonGC, gtid >> 32, gtid & 0xffffffff, [] { return std::string("GC"); });
      add_slice(tr, st.i64(1 + start), st.i64(1 + end), gc, kEmptyStr, kEmptyStr, kNoId, p, st.i64(0));
    }
  }

  void load_overlap() {
    if (!db_.has_table("OVERLAP_ANALYSIS")) return;
    ColumnPicker c(db_, "OVERLAP_ANALYSIS");
    int dev = c.add({"deviceId"}), start = c.add({"startNs"}), end = c.add({"endNs"}), type = c.add({"type"});
    if (!c.has(start) || !c.has(end) || !c.has(type)) return;
    // The segment types, in the profiler's order (msprof overlap_analysis_processor).
    static const char* kNames[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
    SqliteStmt st(db_, "SELECT rowid, " + c.select_list() + " FROM OVERLAP_ANALYSIS", "OVERLAP_ANALYSIS");
    const uint16_t p = part("OVERLAP_ANALYSIS");
    while (st.step()) {
      int64_t ty = st.i64(1 + type);
      if (ty < 0 || ty > 3) continue;
      int32_t d = c.has(dev) ? static_cast<int32_t>(st.i64(1 + dev)) : -1;
      uint32_t tr = track(Proc::Overlap, d, ty, [&] { return std::string(kNames[ty]); }, d);
      add_slice(tr, st.i64(1 + start), st.i64(1 + end), m_.strings.intern(kNames[ty]), kEmptyStr, kEmptyStr, kNoId, p,
                st.i64(0));
    }
  }

  // ---- memory tables (bytes in the DB; the model keeps the text exports' MB / KB) ----

  static constexpr double kMB = 1024.0 * 1024.0, kKB = 1024.0;

  static std::string device_type(const SqliteStmt& st, int col, bool has) {
    if (!has || st.null(col)) return "";
    return "NPU:" + std::to_string(st.i64(col));
  }

  void load_memory_record() {
    if (!db_.has_table("MEMORY_RECORD")) {
      missing("memory_record.csv", "MEMORY_RECORD", "memory peaks over time (profile_memory=True)");
      return;
    }
    ColumnPicker c(db_, "MEMORY_RECORD");
    int comp = c.add({"component"}), ts = c.add({"timestamp", "timestampNs"}), alloc = c.add({"totalAllocated"}),
        res = c.add({"totalReserved"}), act = c.add({"totalActive"}), dev = c.add({"deviceId"});
    if (!c.has(ts) || !c.has(alloc) || !c.has(res)) {
      missing("memory_record.csv", "MEMORY_RECORD", "the table lacks timestamp/totalAllocated/totalReserved");
      return;
    }
    SqliteStmt st(db_, "SELECT rowid, " + c.select_list() + " FROM MEMORY_RECORD", "MEMORY_RECORD");
    uint64_t n = 0;
    while (st.step()) {
      MemoryRecord r;
      r.line = static_cast<uint32_t>(st.i64(0));
      r.ts = st.i64(1 + ts);
      r.allocated_mb = st.f64(1 + alloc) / kMB;
      r.reserved_mb = st.f64(1 + res) / kMB;
      r.active_mb = c.has(act) && !st.null(1 + act) ? st.f64(1 + act) / kMB : -1;
      r.component = c.has(comp) ? str(st, 1 + comp) : kEmptyStr;
      r.device_type = m_.strings.intern(device_type(st, 1 + dev, c.has(dev)));
      m_.memory_records.push_back(r);
      ++n;
    }
    m_.files[register_file("memory_record.csv", "MEMORY_RECORD")].records = n;
  }

  void load_op_memory() {
    if (!db_.has_table("OP_MEMORY")) {
      missing("operator_memory.csv", "OP_MEMORY", "per-operator allocations (profile_memory=True)");
      return;
    }
    ColumnPicker c(db_, "OP_MEMORY");
    int name = c.add({"name"}), size = c.add({"size"}), at = c.add({"allocationTime"}), rt = c.add({"releaseTime"}),
        dur = c.add({"duration"}), aa = c.add({"allocationTotalAllocated"}), ar = c.add({"allocationTotalReserved"}),
        dev = c.add({"deviceId"});
    if (!c.has(name) || !c.has(size)) {
      missing("operator_memory.csv", "OP_MEMORY", "the table lacks name/size");
      return;
    }
    SqliteStmt st(db_, "SELECT rowid, " + c.select_list() + " FROM OP_MEMORY", "OP_MEMORY");
    uint64_t n = 0;
    auto opt = [&](int col, bool has) { return has && !st.null(1 + col) ? st.i64(1 + col) : kNoId; };
    while (st.step()) {
      OperatorMemory o;
      o.line = static_cast<uint32_t>(st.i64(0));
      o.name = str(st, 1 + name);
      o.size_kb = st.f64(1 + size) / kKB;
      o.alloc_ts = opt(at, c.has(at));
      o.release_ts = opt(rt, c.has(rt));
      o.duration = opt(dur, c.has(dur));
      o.alloc_total_allocated_mb = c.has(aa) && !st.null(1 + aa) ? st.f64(1 + aa) / kMB : -1;
      o.alloc_total_reserved_mb = c.has(ar) && !st.null(1 + ar) ? st.f64(1 + ar) / kMB : -1;
      o.device_type = m_.strings.intern(device_type(st, 1 + dev, c.has(dev)));
      m_.operator_memory.push_back(o);
      ++n;
    }
    m_.files[register_file("operator_memory.csv", "OP_MEMORY")].records = n;
  }

  void load_module_memory() {
    if (!db_.has_table("NPU_MODULE_MEM")) {
      missing("npu_module_mem.csv", "NPU_MODULE_MEM", "memory by CANN module");
      return;
    }
    ColumnPicker c(db_, "NPU_MODULE_MEM");
    int mod = c.add({"moduleId"}), ts = c.add({"timestampNs"}), res = c.add({"totalReserved"}), dev = c.add({"deviceId"});
    if (!c.has(ts) || !c.has(res)) return;
    SqliteStmt st(db_, "SELECT rowid, " + c.select_list() + " FROM NPU_MODULE_MEM", "NPU_MODULE_MEM");
    uint64_t n = 0;
    while (st.step()) {
      ModuleMemory r;
      r.line = static_cast<uint32_t>(st.i64(0));
      r.ts = st.i64(1 + ts);
      r.reserved_kb = st.f64(1 + res) / kKB;
      r.device = c.has(dev) ? static_cast<int32_t>(st.i64(1 + dev)) : -1;
      if (c.has(mod)) {
        auto it = modules_.find(st.i64(1 + mod));
        r.component = m_.strings.intern(it != modules_.end() ? it->second : std::to_string(st.i64(1 + mod)));
      }
      m_.module_memory.push_back(r);
      ++n;
    }
    m_.files[register_file("npu_module_mem.csv", "NPU_MODULE_MEM")].records = n;
  }

  // ---- wrap-up ----

  void finish_trace_role() {
    // HCCL rows after the compute kernels, then every kernel in start order (as kernel_details).
    if (!comm_kernels_.empty()) {
      m_.kernels.insert(m_.kernels.end(), comm_kernels_.begin(), comm_kernels_.end());
      if (const InputFile* f = m_.file("kernel_details.csv"); f && f->status == InputFile::Status::Loaded) {
        for (auto& file : m_.files)
          if (&file == f) {
            file.records = m_.kernels.size();
            file.table += "+COMMUNICATION_OP";
          }
      }
    }
    sort_kernels_and_pmu();
    if (trace_rows_ > 0) {
      std::string tables;
      for (const auto& t : trace_tables_) tables += (tables.empty() ? "" : "+") + t;
      uint16_t id = register_file("trace_view.json", tables);
      m_.files[id].records = trace_rows_;
      m_.files[id].note = "timeline rows from " + tables;
      m_.trace_file = id;
      m_.stats.trace_events += trace_rows_;  // rows that became timeline records
    }
    m_.files[db_file_].records = tasks_loaded_;
    m_.files[db_file_].note = std::to_string(db_.tables().size()) + " tables";
  }

  // Back on the loading thread: the PMU metric names into the model (the values follow in
  // sort_kernels_and_pmu()).
  void take_pmu_names() {
    if (pmu_.error) std::rethrow_exception(pmu_.error);
    if (!pmu_.note.empty()) schema_notes_.push_back(pmu_.note);
    for (const auto& [id, text] : pmu_.names) m_.pmu_columns.push_back(id != kNone32 ? id : m_.strings.intern(text));
  }

  // Kernels in start order (stable: HCCL rows after compute rows that start at the same time),
  // with their PMU rows, both permuted in place one cycle at a time (no second copy of either).
  void sort_kernels_and_pmu() {
    const size_t n = m_.kernels.size();
    const size_t w = m_.pmu_columns.size();
    if (w > 0) {
      m_.pmu_values.swap(pmu_.values);
      m_.pmu_values.resize(n * w, std::nan(""));  // drops the HCCL rows reserved but not used
    }
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return m_.kernels[a].start < m_.kernels[b].start; });
    // kernels[i] = kernels[order[i]] (and PMU row i = row order[i]).
    std::vector<bool> done(n, false);
    std::vector<double> row_tmp(w);
    double* pmu = m_.pmu_values.data();
    for (size_t i = 0; i < n; ++i) {
      if (done[i] || order[i] == i) continue;
      Kernel tmp = m_.kernels[i];
      std::copy_n(pmu + i * w, w, row_tmp.begin());
      size_t j = i;
      while (order[j] != i) {
        m_.kernels[j] = m_.kernels[order[j]];
        std::copy_n(pmu + size_t{order[j]} * w, w, pmu + j * w);
        done[j] = true;
        j = order[j];
      }
      m_.kernels[j] = tmp;
      std::copy_n(row_tmp.begin(), w, pmu + j * w);
      done[j] = true;
    }
  }

  DbSchemaInfo info() const {
    DbSchemaInfo i;
    std::string n = std::filesystem::path(db_.path()).filename().string();
    std::string who = n.rfind("ascend_pytorch_profiler", 0) == 0     ? "torch_npu DB export"
                      : n.rfind("ascend_mindspore_profiler", 0) == 0 ? "MindSpore DB export"
                      : n.rfind("msprof", 0) == 0                    ? "msprof DB"
                                                                     : "profiler DB";
    std::string schema;
    if (!block_column_.empty()) schema = "COMPUTE_TASK_INFO." + block_column_;
    if (db_.has_table("OVERLAP_ANALYSIS")) schema += std::string(schema.empty() ? "" : ", ") + "OVERLAP_ANALYSIS";
    if (!has_pytorch_api_ && db_.has_table("TASK")) schema += std::string(schema.empty() ? "" : ", ") + "no PYTORCH_API";
    i.description = who + (schema.empty() ? "" : " (schema with " + schema + ")");
    for (const auto& note : schema_notes_) m_.stats.warnings.push_back(db_.path() + ": " + note);
    if (uint64_t n = unresolved_ids_.load())
      m_.stats.warnings.push_back(db_.path() + ": " + std::to_string(n) + " text cells hold a string id that " +
                                  (db_.has_table("STRING_IDS") ? "STRING_IDS does not have" : "no STRING_IDS table resolves") +
                                  ": those names are empty");
    return i;
  }

  struct StepRow {
    int64_t id;
    Ns start, end;
    int64_t rowid;
  };

  SqliteDb db_;
  RunModel& m_;
  uint16_t db_file_ = 0;
  std::unordered_map<int64_t, StrId> strings_;
  std::vector<StrId> dense_strings_;
  std::unordered_map<int64_t, std::string> api_types_, modules_;
  std::unordered_map<TrackKey, uint32_t, TrackKeyHash> tracks_;
  TrackKey last_key_{};
  uint32_t last_track_ = kNone32;
  // PYTORCH_API as read by its thread: the SQLite work done, the model untouched.
  struct ApiRow {
    int64_t rowid, start, end, gtid, conn;
    StrId name;  // a STRING_IDS string, or kTextName | index into texts
    enum Kind : uint8_t { Op, Queue, Trace, Mstx } kind;
  };
  static constexpr StrId kTextName = 0x80000000u;
  struct PytorchRead {
    bool columns_ok = false;
    std::vector<ApiRow> rows;
    std::vector<std::string> texts;  // names written as text (older schemas), each once
    IdMultiIndex<int64_t> conn_ids;  // CONNECTION_IDS: id -> connectionIds
    std::exception_ptr error;
  } py_;
  IdMultiIndex<uint32_t> task_by_conn_;  // TASK.connectionId -> its tasks in task_ends_
  // Where flows end on device tasks (the task slices themselves wait in slices_).
  std::vector<FlowEnd> task_ends_;
  // Slices collected per track and moved into the model grouped at the end of the load, so
  // finalize() only checks each track's order (no key table or gather copy of ~11 M slices).
  TrackSliceBlocks slices_;
  std::pair<StrId, StrId> flow_names_[2] = {{kNone32, kNone32}, {kNone32, kNone32}};  // HostToDevice, async_npu
  struct RowCounts {
    uint64_t tasks = 0, comm_ops = 0, cann = 0, pytorch = 0, connection_ids = 0;
  } rows_;
  std::chrono::steady_clock::time_point phase_start_ = std::chrono::steady_clock::now();
  std::unordered_map<int64_t, uint32_t> kernel_by_gid_;
  std::vector<uint32_t> dense_kernel_by_gid_;
  struct PmuRead {
    std::vector<std::pair<StrId, std::string>> names;  // interned id, or the text to intern
    std::vector<double> values;  // rows x stride, row-major (kernel order as read)
    size_t rows = 0, stride = 0;
    std::string note;
    std::exception_ptr error;
    // Metric -> column (fixed while ranges are read on two threads).
    std::map<std::string, uint32_t> col_of_text;
    std::vector<uint32_t> col_of_id;  // STRING_IDS id -> column; ids are small
    std::unordered_map<int64_t, uint32_t> col_of_big_id;
    std::array<int, 3> cols{};  // globalTaskId, name, value in `select`
    std::string select;
    // Rowid ranges shared by the PMU thread and the main thread.
    std::atomic<bool> ready{false}, chunk_failed{false};
    std::atomic<int> next_chunk{0}, chunks_done{0};
    int chunks = 0;
    int64_t first_rowid = 0, chunk_rows = 1;
  } pmu_;
  std::vector<Kernel> comm_kernels_;
  std::vector<StepRow> step_rows_;
  std::set<std::string> trace_tables_;
  std::vector<std::string> schema_notes_;
  mutable std::atomic<uint64_t> unresolved_ids_{0};  // string ids STRING_IDS lacks
  uint64_t bad_task_times_ = 0;  // TASK rows skipped for corrupt times
  int64_t first_bad_task_ = 0;
  std::string block_column_;
  uint64_t trace_rows_ = 0, tasks_loaded_ = 0;
  bool has_pytorch_api_ = false;
};

}  // namespace

DbSchemaInfo load_profiler_db(const std::string& path, RunModel& model) {
  DbLoader l(path, model);
  return l.run();
}

void load_analysis_db(const std::string& path, RunModel& model) {
  SqliteDb db(path);
  InputFile f;
  f.role = "step_trace_time.csv";
  f.path = path;
  std::error_code ec;
  f.bytes = std::filesystem::file_size(path, ec);
  if (!db.has_table("StepTraceTime")) {
    f.path.clear();
    f.status = InputFile::Status::Missing;
    f.note = "no StepTraceTime table in " + std::filesystem::path(path).filename().string() +
             ": the profiler's own per-step breakdown (cross-check)";
    model.add_file(std::move(f));
    return;
  }
  f.status = InputFile::Status::Loaded;
  f.table = "StepTraceTime";
  uint16_t id = model.add_file(std::move(f));
  ColumnPicker c(db, "StepTraceTime");
  int dev = c.add({"deviceId"}), step = c.add({"step"}), comp = c.add({"computing"}),
      cno = c.add({"communication_not_overlapped"}), ovl = c.add({"overlapped"}), comm = c.add({"communication"}),
      free = c.add({"free"}), stage = c.add({"stage"}), bubble = c.add({"bubble"}),
      cnox = c.add({"communication_not_overlapped_and_exclude_receive"}), prep = c.add({"preparing"});
  if (!c.has(comp) || !c.has(free) || !c.has(cno))
    throw LoadError::whole_file(path, "table StepTraceTime has no computing/free/communication_not_overlapped columns");
  SqliteStmt st(db, "SELECT rowid, " + c.select_list() + " FROM StepTraceTime", "StepTraceTime");
  // Values are microseconds (as step_trace_time.csv), stored as NUMERIC: read the text and
  // convert exactly, never through a double.
  auto us = [&](int col, Ns dflt) -> Ns {
    if (!c.has(col) || st.null(1 + col)) return dflt;
    auto v = parse_us_to_ns(st.text(1 + col));
    if (!v)
      throw LoadError::whole_file(path, "StepTraceTime rowid " + std::to_string(st.i64(0)) + ": not a number: \"" +
                                            std::string(st.text(1 + col)) + "\"");
    return *v;
  };
  uint64_t n = 0;
  while (st.step()) {
    StepTraceRow r;
    r.line = static_cast<uint32_t>(st.i64(0));
    r.device = c.has(dev) && !st.null(1 + dev) ? static_cast<int32_t>(st.i64(1 + dev)) : -1;
    if (c.has(step) && !st.null(1 + step)) r.step = parse_int(st.text(1 + step)).value_or(kNoId);
    r.computing = us(comp, 0);
    r.comm_not_overlapped = us(cno, 0);
    r.overlapped = us(ovl, 0);
    r.communication = us(comm, 0);
    r.free = us(free, 0);
    r.stage = us(stage, kNoId);
    r.bubble = us(bubble, kNoId);
    r.comm_not_overlapped_excl_receive = us(cnox, kNoId);
    r.preparing = us(prep, kNoId);
    model.step_trace.push_back(r);
    ++n;
  }
  model.files[id].records = n;
  for (const auto& t : db.tables())
    if (t.rfind("CommAnalyzer", 0) == 0) {
      model.files[id].note = "also holds " + t + " (communication analysis: read by the planned cluster path)";
      break;
    }
}

}  // namespace npu
