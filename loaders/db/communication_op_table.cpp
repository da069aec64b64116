// COMMUNICATION_OP: each collective or point-to-point operator as a slice on its group's
// "Communication" track, and as the HCCL row kernel_details lists for it (appended after the
// compute kernels at the end of the load).
#include <algorithm>
#include <string>

#include "loaders/db/db_readers.h"

namespace npu {

using Proc = DbLoadContext::Proc;

void read_communication_ops(DbLoadContext& cx) {
  if (!cx.db.has_table("COMMUNICATION_OP")) return;
  ColumnPicker c(cx.db, "COMMUNICATION_OP");
  int name = c.add({"opName"}), start = c.add({"startNs"}), end = c.add({"endNs"}), conn = c.add({"connectionId"}),
      group = c.add({"groupName"}), optype = c.add({"opType"}), dev = c.add({"deviceId"});
  if (!c.has(start) || !c.has(end) || !c.has(name)) {
    cx.schema_notes.push_back("COMMUNICATION_OP without opName/startNs/endNs");
    return;
  }
  SqliteStmt st(cx.db, "SELECT rowid, " + c.select_list() + " FROM COMMUNICATION_OP", "COMMUNICATION_OP");
  const uint16_t p_op = cx.part("COMMUNICATION_OP");
  const StrId hccl = cx.model.strings.intern("HCCL");
  while (st.step()) {
    int64_t rowid = st.i64(0);
    Ns s = st.i64(1 + start), e = st.i64(1 + end);
    int32_t d =
        c.has(dev) ? static_cast<int32_t>(st.i64(1 + dev)) : (cx.model.meta.device >= 0 ? cx.model.meta.device : -1);
    StrId g = c.has(group) ? cx.str(st, 1 + group) : kEmptyStr;
    uint32_t tr = cx.track(
        Proc::Communication, d, static_cast<int64_t>(g),
        [&] { return "Group " + std::string(cx.model.str(g)) + " Communication"; }, d);
    int64_t cid = c.has(conn) ? st.i64_or(1 + conn, kNoId) : kNoId;
    StrId op_name = cx.str(st, 1 + name);
    cx.add_slice(tr, s, e, op_name, kEmptyStr, hccl, cid, p_op, rowid);
    // kernel_details lists each communication operator as one HCCL row.
    Kernel k;
    k.line = static_cast<uint32_t>(rowid);
    k.start = s;
    k.dur = std::max<Ns>(0, e - s);
    k.device = d;
    k.step_id = cx.step_of(s);
    k.name = op_name;
    k.type = c.has(optype) ? cx.str(st, 1 + optype) : kEmptyStr;
    k.accel_core = hccl;
    cx.comm_kernels.push_back(k);
  }
}

}  // namespace npu
