// GC_RECORD (Python garbage collections, on "Python GC" tracks) and OVERLAP_ANALYSIS (the
// profiler's own computing / communication / free segments per device, on "Overlap Analysis"
// tracks): timeline rows the host and overlap checks read like the text export's.
#include <string>

#include "loaders/db/db_readers.h"

namespace npu {

using Proc = DbLoadContext::Proc;

void read_gc_records(DbLoadContext& cx) {
  if (!cx.db.has_table("GC_RECORD")) return;
  ColumnPicker c(cx.db, "GC_RECORD");
  int start = c.add({"startNs"}), end = c.add({"endNs"}), tid = c.add({"globalTid"});
  if (!c.has(start) || !c.has(end)) return;
  SqliteStmt st(cx.db, "SELECT rowid, " + c.select_list() + " FROM GC_RECORD", "GC_RECORD");
  const uint16_t p = cx.part("GC_RECORD");
  const StrId gc = cx.model.strings.intern("GC");
  while (st.step()) {
    int64_t gtid = c.has(tid) ? st.i64(1 + tid) : 0;
    uint32_t tr = cx.track(Proc::PythonGC, gtid >> 32, gtid & 0xffffffff, [] { return std::string("GC"); });
    cx.add_slice(tr, st.i64(1 + start), st.i64(1 + end), gc, kEmptyStr, kEmptyStr, kNoId, p, st.i64(0));
  }
}

void read_overlap_analysis(DbLoadContext& cx) {
  if (!cx.db.has_table("OVERLAP_ANALYSIS")) return;
  ColumnPicker c(cx.db, "OVERLAP_ANALYSIS");
  int dev = c.add({"deviceId"}), start = c.add({"startNs"}), end = c.add({"endNs"}), type = c.add({"type"});
  if (!c.has(start) || !c.has(end) || !c.has(type)) return;
  // The segment types, in the profiler's order (msprof overlap_analysis_processor).
  static const char* kNames[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
  SqliteStmt st(cx.db, "SELECT rowid, " + c.select_list() + " FROM OVERLAP_ANALYSIS", "OVERLAP_ANALYSIS");
  const uint16_t p = cx.part("OVERLAP_ANALYSIS");
  while (st.step()) {
    int64_t ty = st.i64(1 + type);
    if (ty < 0 || ty > 3) continue;
    int32_t d = c.has(dev) ? static_cast<int32_t>(st.i64(1 + dev)) : -1;
    uint32_t tr = cx.track(
        Proc::Overlap, d, ty, [&] { return std::string(kNames[ty]); }, d);
    cx.add_slice(tr, st.i64(1 + start), st.i64(1 + end), cx.model.strings.intern(kNames[ty]), kEmptyStr, kEmptyStr,
                 kNoId, p, st.i64(0));
  }
}

}  // namespace npu
