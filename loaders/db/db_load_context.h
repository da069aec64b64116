// What the table readers of one profiler database share (loaders/db/db_readers.h lists them,
// loaders/db/db_export.cpp runs them in order): the open database, the model being filled, the
// STRING_IDS and enum lookups, the timeline tracks and slices, and what one table leaves for a
// later one (STEP_TIME's steps for the kernels, TASK's connection ids for the flows, TASK's
// global task ids for the PMU rows, COMMUNICATION_OP's HCCL rows for the kernel table).
// The per-row helpers (str, string_id, track, add_slice, step_of, kernel_of) are inline here
// because they run once per cell or row of tables with millions of rows.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "loaders/common/track_slice_blocks.h"
#include "loaders/db/db_id_index.h"
#include "loaders/db/sqlite_db.h"
#include "model/model.h"

namespace npu {

// A small id or count (device, block dim) from an integer cell: `dflt` for NULL, a non-integer
// or a value outside 0..INT32_MAX (2^32 + 48 must not read as 48).
inline int32_t int32_or(const SqliteStmt& st, int col, int32_t dflt) {
  if (!st.is_integer(col)) return dflt;
  int64_t v = st.i64(col);
  return v >= 0 && v <= INT32_MAX ? static_cast<int32_t>(v) : dflt;
}

// ENUM_API_TYPE ids (msprof docs; used when the enum table is absent).
constexpr int64_t kApiAcl = 20000, kApiModel = 15000, kApiNode = 10000, kApiHccl = 5500, kApiRuntime = 5000;
constexpr int64_t kApiOp = 50001, kApiQueue = 50002, kApiTrace = 50003, kApiMstx = 50004;

// One STEP_TIME row, kept sorted by start.
struct DbStepRow {
  int64_t id;
  Ns start, end;
  int64_t rowid;
};

class DbLoadContext {
 public:
  DbLoadContext(const std::string& path, RunModel& m) : db(path), model(m) {}

  // ---- files, roles and provenance (db_load_context.cpp) ----

  uint16_t register_file(Role role, const std::string& table);
  void missing(Role role, const std::string& table, const std::string& why);
  uint16_t part(const std::string& table);  // a trace part for provenance; the table joins trace_view.json's note
  void phase_done(const char* name);        // the time since the last phase, into the load statistics

  // ---- strings ----

  // Text columns hold a STRING_IDS id in current schemas and the text itself in older ones.
  StrId str(const SqliteStmt& st, int col) {
    switch (st.type(col)) {
      case SQLITE_NULL: return kEmptyStr;
      case SQLITE_INTEGER: return string_id(st.i64(col));
      default: return model.strings.intern(st.text(col));
    }
  }
  // A STRING_IDS id's string; reads only (safe from the PMU thread once the strings are in).
  StrId string_id(int64_t k) const {
    if (k >= 0 && static_cast<size_t>(k) < dense_strings.size())
      if (dense_strings[static_cast<size_t>(k)] != kNone32) return dense_strings[static_cast<size_t>(k)];
    auto it = strings.find(k);
    if (it != strings.end()) return it->second;
    unresolved_ids.fetch_add(1, std::memory_order_relaxed);  // reported: names would be blank silently
    return kEmptyStr;
  }

  // ---- tracks and slices ----

  // One track per (process kind, pid, tid); the thread name is made only when a track is new.
  enum class Proc : uint8_t { Hardware, Communication, Cann, Python, PythonGC, Overlap };
  template <typename ThreadName>
  uint32_t track(Proc proc, int64_t pid, int64_t tid, ThreadName&& thread, int32_t device = -1) {
    TrackKey key{proc, pid, tid};
    if (last_track_ != kNone32 && key == last_key_) return last_track_;
    auto it = tracks_.find(key);
    if (it != tracks_.end()) {
      last_key_ = key;
      return last_track_ = it->second;
    }
    static const char* kNames[] = {"Ascend Hardware", "Communication", "CANN",
                                   "Python",          "Python GC",     "Overlap Analysis"};
    std::string_view process = kNames[static_cast<int>(proc)];
    Track t;
    t.pid = pid;
    t.tid = tid;
    t.process_name = model.strings.intern(process);
    t.thread_name = model.strings.intern(thread());
    if (device >= 0) t.process_label = model.strings.intern("NPU " + std::to_string(device));
    model.tracks.push_back(t);
    uint32_t idx = static_cast<uint32_t>(model.tracks.size() - 1);
    tracks_.emplace(key, idx);
    last_key_ = key;
    return last_track_ = idx;
  }

  void add_slice(uint32_t tr, Ns start, Ns end, StrId name, StrId cat, StrId task_type, int64_t corr, uint16_t part_id,
                 int64_t rowid) {
    Slice s;
    s.ts = start;
    s.dur = std::max<Ns>(0, end - start);
    s.name = name;
    s.cat = cat;
    s.task_type = task_type;
    s.corr = corr;
    s.track = tr;
    s.loc = RunModel::make_loc(part_id, static_cast<uint64_t>(rowid));
    slices.push(tr, s);
    ++trace_rows;
  }

  // Flows from a launch (or a Python op) to each device task of its connection id.
  void add_flows(int64_t conn, const FlowEnd& from, FlowKind kind) {
    // Interned at the first flow of each kind, then reused.
    auto& names = flow_names_[kind == FlowKind::HostToDevice ? 0 : 1];
    for (uint32_t ref : task_by_conn.values(conn)) {
      if (names.first == kNone32) {
        names.first = model.strings.intern(to_string(kind));
        names.second = model.strings.intern(kind == FlowKind::HostToDevice ? "HostToDevice" : "torch_to_npu");
      }
      model.flows.push_back(Flow::between(conn, from, task_ends[ref], kind, names.first, names.second));
    }
  }

  // ---- lookups left by earlier tables ----

  // The STEP_TIME step that holds `ts`, or kNoId.
  int64_t step_of(Ns ts) const {
    auto it =
        std::upper_bound(step_rows.begin(), step_rows.end(), ts, [](Ns v, const DbStepRow& s) { return v < s.start; });
    if (it == step_rows.begin()) return kNoId;
    --it;
    return ts < it->end ? it->id : kNoId;
  }

  // The model.kernels index of a TASK.globalTaskId, or kNone32.
  uint32_t kernel_of(int64_t gid) const {
    if (gid >= 0 && static_cast<size_t>(gid) < dense_kernel_by_gid.size())
      return dense_kernel_by_gid[static_cast<size_t>(gid)];
    auto it = kernel_by_gid.find(gid);
    return it == kernel_by_gid.end() ? kNone32 : it->second;
  }

  SqliteDb db;
  RunModel& model;
  uint16_t db_file = 0;  // the database's own InputFile
  std::chrono::steady_clock::time_point phase_start = std::chrono::steady_clock::now();

  // STRING_IDS: small ids in a vector, the rest in a map; ENUM_API_TYPE and ENUM_MODULE.
  std::unordered_map<int64_t, StrId> strings;
  std::vector<StrId> dense_strings;
  std::unordered_map<int64_t, std::string> api_types, modules;
  mutable std::atomic<uint64_t> unresolved_ids{0};  // string ids STRING_IDS lacks

  // The big tables' row counts, read up front to reserve the model's tables.
  struct RowCounts {
    uint64_t tasks = 0, comm_ops = 0, cann = 0, pytorch = 0, connection_ids = 0;
  } rows;

  std::vector<DbStepRow> step_rows;  // STEP_TIME, by start

  // Left by TASK: its tasks by connection id, where flows end on them (the task slices themselves
  // wait in `slices`), and the compute kernels by global task id.
  IdMultiIndex<uint32_t> task_by_conn;  // TASK.connectionId -> its tasks in task_ends
  std::vector<FlowEnd> task_ends;
  std::unordered_map<int64_t, uint32_t> kernel_by_gid;
  std::vector<uint32_t> dense_kernel_by_gid;
  std::string block_column;  // COMPUTE_TASK_INFO's block dim column, named in the schema description
  uint64_t tasks_loaded = 0;

  // Left by COMMUNICATION_OP: one HCCL kernel row per operator, appended after the compute kernels.
  std::vector<Kernel> comm_kernels;
  bool has_pytorch_api = false;  // PYTORCH_API was read (the schema description says when not)

  // Slices collected per track and moved into the model grouped at the end of the load, so
  // finalize() only checks each track's order (no key table or gather copy of ~11 M slices).
  TrackSliceBlocks slices;
  std::set<std::string> trace_tables;  // the tables that gave timeline rows
  uint64_t trace_rows = 0;
  std::vector<std::string> schema_notes;  // become load warnings
  std::vector<std::string> rejections;    // rows dropped: load warnings that make the run partial

 private:
  struct TrackKey {
    Proc proc;
    int64_t a, b;
    bool operator==(const TrackKey&) const = default;
  };
  struct TrackKeyHash {
    size_t operator()(const TrackKey& k) const {
      uint64_t h =
          static_cast<uint64_t>(k.a) * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(k.b) + 0x632BE59BD9B4E019ull);
      return static_cast<size_t>(h ^ (h >> 29) ^ static_cast<uint64_t>(k.proc));
    }
  };
  std::unordered_map<TrackKey, uint32_t, TrackKeyHash> tracks_;
  TrackKey last_key_{};
  uint32_t last_track_ = kNone32;
  std::pair<StrId, StrId> flow_names_[2] = {{kNone32, kNone32}, {kNone32, kNone32}};  // HostToDevice, async_npu
};

}  // namespace npu
