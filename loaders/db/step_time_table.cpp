// STEP_TIME: the profiler's step spans. Read first, because each kernel takes its step from
// it (DbLoadContext::step_of); where PYTORCH_API has no ProfilerStep#N rows (MindSpore, msprof)
// the same spans become the timeline's step slices.
#include <algorithm>
#include <string>

#include "loaders/db/db_readers.h"

namespace npu {

using Proc = DbLoadContext::Proc;

void read_step_time(DbLoadContext& cx) {
  if (!cx.db.has_table("STEP_TIME")) return;
  ColumnPicker c(cx.db, "STEP_TIME");
  int id = c.add({"id"}), start = c.add({"startNs"}), end = c.add({"endNs"});
  if (!c.has(start) || !c.has(end)) {
    cx.schema_notes.push_back("STEP_TIME without startNs/endNs");
    return;
  }
  SqliteStmt st(cx.db, "SELECT rowid, " + c.select_list() + " FROM STEP_TIME", "STEP_TIME");
  while (st.step()) cx.step_rows.push_back({st.i64(id + 1), st.i64(start + 1), st.i64(end + 1), st.i64(0)});
  std::sort(cx.step_rows.begin(), cx.step_rows.end(), [](auto& a, auto& b) { return a.start < b.start; });
}

// Steps come from ProfilerStep#N on the host timeline; without PYTORCH_API rows for them
// (MindSpore, msprof), STEP_TIME gives the same spans.
void add_step_slices(DbLoadContext& cx) {
  if (cx.step_rows.empty()) return;
  const uint16_t p_step = cx.part("STEP_TIME");
  uint32_t tr = cx.track(Proc::Python, 0, 0, [] { return std::string("Steps (STEP_TIME)"); });
  for (const auto& s : cx.step_rows)
    cx.add_slice(tr, s.start, s.end, cx.model.strings.intern("ProfilerStep#" + std::to_string(s.id)), kEmptyStr,
                 kEmptyStr, kNoId, p_step, s.rowid);
}

}  // namespace npu
