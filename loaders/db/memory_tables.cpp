// The memory tables of a profile_memory=True capture, into the same records as the text
// exports: MEMORY_RECORD (memory_record.csv: totals over time), OP_MEMORY (operator_memory.csv:
// per-operator allocations) and NPU_MODULE_MEM (npu_module_mem.csv: reserved memory by CANN
// module). The database stores bytes; the model keeps the text exports' MB / KB.
#include <cmath>
#include <initializer_list>
#include <string>

#include "loaders/db/db_readers.h"

namespace npu {
namespace {

constexpr double kMB = 1024.0 * 1024.0, kKB = 1024.0;

std::string device_type(const SqliteStmt& st, int col, bool has) {
  if (!has || st.null(col)) return "";
  return "NPU:" + std::to_string(st.i64(col));
}

// Rows whose size is no finite number (a REAL of inf or NaN): skipped and counted, as a CSV's
// bad cell is refused, never a null peak. One rejection per table.
struct NonFinite {
  const char* table;
  uint64_t rows = 0;
  int64_t first = 0;
  bool skip(const SqliteStmt& st, std::initializer_list<double> sizes) {
    for (double v : sizes)
      if (!std::isfinite(v)) {
        if (rows++ == 0) first = st.i64(0);
        return true;
      }
    return false;
  }
  void report(DbLoadContext& cx) const {
    if (rows)
      cx.rejections.push_back(std::string(table) + ": " + std::to_string(rows) + (rows == 1 ? " row" : " rows") +
                              " with a size that is not a finite number " + (rows == 1 ? "was" : "were") +
                              " skipped (first: rowid " + std::to_string(first) + ")");
  }
};

}  // namespace

void read_memory_record(DbLoadContext& cx) {
  if (!cx.db.has_table("MEMORY_RECORD")) {
    cx.missing(Role::MemoryRecord, "MEMORY_RECORD", "memory peaks over time (profile_memory=True)");
    return;
  }
  ColumnPicker c(cx.db, "MEMORY_RECORD");
  int comp = c.add({"component"}), ts = c.add({"timestamp", "timestampNs"}), alloc = c.add({"totalAllocated"}),
      res = c.add({"totalReserved"}), act = c.add({"totalActive"}), dev = c.add({"deviceId"});
  if (!c.has(ts) || !c.has(alloc) || !c.has(res)) {
    cx.missing(Role::MemoryRecord, "MEMORY_RECORD", "the table lacks timestamp/totalAllocated/totalReserved");
    return;
  }
  SqliteStmt st(cx.db, "SELECT rowid, " + c.select_list() + " FROM MEMORY_RECORD", "MEMORY_RECORD");
  uint64_t n = 0;
  NonFinite bad{"MEMORY_RECORD"};
  while (st.step()) {
    MemoryRecord r;
    r.line = static_cast<uint32_t>(st.i64(0));
    r.ts = st.i64(1 + ts);
    r.allocated_mb = st.f64(1 + alloc) / kMB;
    r.reserved_mb = st.f64(1 + res) / kMB;
    r.active_mb = c.has(act) && !st.null(1 + act) ? st.f64(1 + act) / kMB : -1;
    if (bad.skip(st, {r.allocated_mb, r.reserved_mb, r.active_mb})) continue;
    r.component = c.has(comp) ? cx.str(st, 1 + comp) : kEmptyStr;
    r.device_type = cx.model.strings.intern(device_type(st, 1 + dev, c.has(dev)));
    cx.model.memory_records.push_back(r);
    ++n;
  }
  bad.report(cx);
  cx.model.files[cx.register_file(Role::MemoryRecord, "MEMORY_RECORD")].records = n;
}

void read_op_memory(DbLoadContext& cx) {
  if (!cx.db.has_table("OP_MEMORY")) {
    cx.missing(Role::OperatorMemory, "OP_MEMORY", "per-operator allocations (profile_memory=True)");
    return;
  }
  ColumnPicker c(cx.db, "OP_MEMORY");
  int name = c.add({"name"}), size = c.add({"size"}), at = c.add({"allocationTime"}), rt = c.add({"releaseTime"}),
      dur = c.add({"duration"}), aa = c.add({"allocationTotalAllocated"}), ar = c.add({"allocationTotalReserved"}),
      dev = c.add({"deviceId"});
  if (!c.has(name) || !c.has(size)) {
    cx.missing(Role::OperatorMemory, "OP_MEMORY", "the table lacks name/size");
    return;
  }
  SqliteStmt st(cx.db, "SELECT rowid, " + c.select_list() + " FROM OP_MEMORY", "OP_MEMORY");
  uint64_t n = 0;
  NonFinite bad{"OP_MEMORY"};
  auto opt = [&](int col, bool has) { return has && !st.null(1 + col) ? st.i64(1 + col) : kNoId; };
  while (st.step()) {
    OperatorMemory o;
    o.line = static_cast<uint32_t>(st.i64(0));
    o.name = cx.str(st, 1 + name);
    o.size_kb = st.f64(1 + size) / kKB;
    o.alloc_ts = opt(at, c.has(at));
    o.release_ts = opt(rt, c.has(rt));
    o.duration = opt(dur, c.has(dur));
    o.alloc_total_allocated_mb = c.has(aa) && !st.null(1 + aa) ? st.f64(1 + aa) / kMB : -1;
    o.alloc_total_reserved_mb = c.has(ar) && !st.null(1 + ar) ? st.f64(1 + ar) / kMB : -1;
    if (bad.skip(st, {o.size_kb, o.alloc_total_allocated_mb, o.alloc_total_reserved_mb})) continue;
    o.device_type = cx.model.strings.intern(device_type(st, 1 + dev, c.has(dev)));
    cx.model.operator_memory.push_back(o);
    ++n;
  }
  bad.report(cx);
  cx.model.files[cx.register_file(Role::OperatorMemory, "OP_MEMORY")].records = n;
}

void read_module_memory(DbLoadContext& cx) {
  if (!cx.db.has_table("NPU_MODULE_MEM")) {
    cx.missing(Role::ModuleMemory, "NPU_MODULE_MEM", "memory by CANN module");
    return;
  }
  ColumnPicker c(cx.db, "NPU_MODULE_MEM");
  int mod = c.add({"moduleId"}), ts = c.add({"timestampNs"}), res = c.add({"totalReserved"}), dev = c.add({"deviceId"});
  if (!c.has(ts) || !c.has(res)) return;
  SqliteStmt st(cx.db, "SELECT rowid, " + c.select_list() + " FROM NPU_MODULE_MEM", "NPU_MODULE_MEM");
  uint64_t n = 0;
  NonFinite bad{"NPU_MODULE_MEM"};
  while (st.step()) {
    ModuleMemory r;
    r.line = static_cast<uint32_t>(st.i64(0));
    r.ts = st.i64(1 + ts);
    r.reserved_kb = st.f64(1 + res) / kKB;
    if (bad.skip(st, {r.reserved_kb})) continue;
    r.device = c.has(dev) ? static_cast<int32_t>(st.i64(1 + dev)) : -1;
    if (c.has(mod)) {
      auto it = cx.modules.find(st.i64(1 + mod));
      r.component = cx.model.strings.intern(it != cx.modules.end() ? it->second : std::to_string(st.i64(1 + mod)));
    }
    cx.model.module_memory.push_back(r);
    ++n;
  }
  bad.report(cx);
  cx.model.files[cx.register_file(Role::ModuleMemory, "NPU_MODULE_MEM")].records = n;
}

}  // namespace npu
