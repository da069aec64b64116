// CANN_API: the CANN layer's host calls as AscendCL@ / Runtime@ / Node@ / Model@ / HCCL@
// slices on "CANN" thread tracks, and a HostToDevice flow from each Node@ launch to the device
// tasks of its connection id.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "loaders/db/db_readers.h"

namespace npu {
namespace {

using Proc = DbLoadContext::Proc;

std::string api_prefix(const DbLoadContext& cx, int64_t type) {
  auto it = cx.api_types.find(type);
  std::string n = it != cx.api_types.end() ? it->second : "";
  if (type == kApiAcl || n == "acl") return "AscendCL@";
  if (type == kApiRuntime || n == "runtime") return "Runtime@";
  if (type == kApiNode || n == "node") return "Node@";
  if (type == kApiModel || n == "model") return "Model@";
  if (type == kApiHccl || n == "hccl" || n == "communication") return "HCCL@";
  return n.empty() ? "" : n + "@";
}

}  // namespace

void read_cann_api(DbLoadContext& cx) {
  if (!cx.db.has_table("CANN_API")) return;
  ColumnPicker c(cx.db, "CANN_API");
  int start = c.add({"startNs"}), end = c.add({"endNs"}), type = c.add({"type"}), tid = c.add({"globalTid"}),
      conn = c.add({"connectionId"}), name = c.add({"name"});
  if (!c.has(start) || !c.has(end) || !c.has(name)) {
    cx.schema_notes.push_back("CANN_API without startNs/endNs/name");
    return;
  }
  SqliteStmt st(cx.db, "SELECT rowid, " + c.select_list() + " FROM CANN_API", "CANN_API");
  const uint16_t p_api = cx.part("CANN_API");
  // "Prefix@name" per API type, indexed by the bare name's id (types are few).
  std::vector<std::pair<int64_t, std::vector<StrId>>> full_names;
  size_t last_type = 0;
  while (st.step()) {
    int64_t rowid = st.i64(0);
    int64_t gtid = c.has(tid) ? st.i64(1 + tid) : 0;
    int64_t pid = gtid >> 32, t = gtid & 0xffffffff;
    uint32_t tr = cx.track(Proc::Cann, pid, t, [&] { return "Thread " + std::to_string(t); });
    int64_t ty = c.has(type) ? st.i64(1 + type) : kApiAcl;
    StrId base = cx.str(st, 1 + name);
    if (last_type >= full_names.size() || full_names[last_type].first != ty) {
      last_type = 0;
      while (last_type < full_names.size() && full_names[last_type].first != ty) ++last_type;
      if (last_type == full_names.size()) full_names.emplace_back(ty, std::vector<StrId>());
    }
    std::vector<StrId>& by_base = full_names[last_type].second;
    if (base >= by_base.size()) by_base.resize(std::max<size_t>(size_t{base} + 1, cx.model.strings.size()), kNone32);
    StrId& slot = by_base[base];
    if (slot == kNone32) slot = cx.model.strings.intern(api_prefix(cx, ty) + std::string(cx.model.str(base)));
    int64_t cid = c.has(conn) ? st.i64_or(1 + conn, kNoId) : kNoId;
    Ns s = st.i64(1 + start);
    cx.add_slice(tr, s, st.i64(1 + end), slot, kEmptyStr, kEmptyStr, cid, p_api, rowid);
    // A launch (Node@ / the API that owns the connection id) -> its device task(s).
    if (cid != kNoId && ty == kApiNode)
      cx.add_flows(cid, {s, RunModel::make_loc(p_api, rowid), tr}, FlowKind::HostToDevice);
  }
}

}  // namespace npu
