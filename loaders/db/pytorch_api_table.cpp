// PYTORCH_API (with CONNECTION_IDS): the framework's host side. Python operators, task-queue
// enqueues and dequeues, Python functions and mstx marks become slices on "Python" thread
// tracks; ProfilerStep#N rows are the steps. Their connection ids give the async_npu flows to
// the device tasks and the enqueue -> dequeue flows of the task queue.
#include "loaders/db/pytorch_api_table.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>

#include "loaders/db/db_readers.h"

namespace npu {
namespace {

using Proc = DbLoadContext::Proc;

struct QueueEnd {
  int64_t cid;
  FlowEnd end;
  bool dequeue;
};

// Enqueue -> Dequeue of the same connection id: the task queue's latency. When an id has
// several enqueues (or dequeues) the last row's wins. Flows come in connection id order.
void add_queue_flows(DbLoadContext& cx, const std::vector<QueueEnd>& ends) {
  const StrId q_cat = cx.model.strings.intern("async_task_queue"),
              q_name = cx.model.strings.intern("enqueue_to_dequeue");
  if (ends.empty()) return;
  auto [mn, mx] =
      std::minmax_element(ends.begin(), ends.end(), [](const QueueEnd& a, const QueueEnd& b) { return a.cid < b.cid; });
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
      for (; k < by_id.size() && ends[by_id[k]].cid == cid; ++k)
        (ends[by_id[k]].dequeue ? p.second : p.first) = by_id[k];
      if (p.first != kNone32 && p.second != kNone32) pairs.push_back(p);
    }
  }
  for (const auto& [ei, di] : pairs)
    cx.model.flows.push_back(
        Flow::between(ends[ei].cid, ends[ei].end, ends[di].end, FlowKind::AsyncTaskQueue, q_cat, q_name));
}

}  // namespace

void PytorchApiReader::read() {
  try {
    if (!cx_.db.has_table("PYTORCH_API")) return;
    SqliteDb db(cx_.db.path());
    ColumnPicker c(db, "PYTORCH_API");
    int start = c.add({"startNs"}), end = c.add({"endNs"}), tid = c.add({"globalTid"}), conn = c.add({"connectionId"}),
        name = c.add({"name"}), type = c.add({"type"});
    if (!c.has(start) || !c.has(end) || !c.has(name)) return;
    columns_ok_ = true;
    // CONNECTION_IDS: PYTORCH_API.connectionId -> id; connectionId there = TASK/CANN connectionId (1:N).
    if (db.has_table("CONNECTION_IDS")) {
      ColumnPicker k(db, "CONNECTION_IDS");
      int id = k.add({"id"}), cid = k.add({"connectionId"});
      if (k.has(id) && k.has(cid)) {
        SqliteStmt s2(db, "SELECT " + k.select_list() + " FROM CONNECTION_IDS", "CONNECTION_IDS");
        conn_ids_.reserve(cx_.rows.connection_ids);
        while (s2.step()) conn_ids_.add(s2.i64(id), s2.i64(cid));
        conn_ids_.build();
      }
    }
    SqliteStmt st(db, "SELECT rowid, " + c.select_list() + " FROM PYTORCH_API", "PYTORCH_API");
    rows_.reserve(cx_.rows.pytorch);
    std::unordered_map<std::string, StrId> text_index;
    const bool has_tid = c.has(tid), has_conn = c.has(conn), has_type = c.has(type);
    while (st.step()) {
      ApiRow& r = rows_.emplace_back();
      r.rowid = st.i64(0);
      r.start = st.i64(1 + start);
      r.end = st.i64(1 + end);
      r.gtid = has_tid ? st.i64(1 + tid) : 0;
      r.conn = has_conn ? st.i64_or(1 + conn, kNoId) : kNoId;
      switch (st.type(1 + name)) {
        case SQLITE_NULL: r.name = kEmptyStr; break;
        case SQLITE_INTEGER: r.name = cx_.string_id(st.i64(1 + name)); break;
        default: {
          auto [it, added] = text_index.try_emplace(std::string(st.text(1 + name)), 0);
          if (added) {
            it->second = kTextName | static_cast<StrId>(texts_.size());
            texts_.push_back(it->first);
          }
          r.name = it->second;
        }
      }
      const int64_t ty = has_type ? st.i64(1 + type) : kApiOp;
      r.kind = ty == kApiQueue   ? ApiRow::Queue
               : ty == kApiTrace ? ApiRow::Trace
               : ty == kApiMstx  ? ApiRow::Mstx
                                 : ApiRow::Op;
    }
  } catch (...) {
    error_ = std::current_exception();
  }
}

void PytorchApiReader::apply(DbLoadContext& cx) {
  if (error_) std::rethrow_exception(error_);
  if (!cx.db.has_table("PYTORCH_API")) {
    add_step_slices(cx);
    return;
  }
  if (!columns_ok_) {
    cx.schema_notes.push_back("PYTORCH_API without startNs/endNs/name");
    return;
  }
  const StrId cat_op = cx.model.strings.intern("cpu_op"), cat_enq = cx.model.strings.intern("enqueue"),
              cat_deq = cx.model.strings.intern("dequeue"), cat_py = cx.model.strings.intern("python_function"),
              cat_mstx = cx.model.strings.intern("mstx");
  const uint16_t p_api = cx.part("PYTORCH_API");
  // Enqueue/Dequeue ends by connection id, in row order (a later row replaces an earlier one).
  std::vector<QueueEnd> queue_ends;
  queue_ends.reserve(cx.rows.pytorch);  // usually one end per row; untouched pages cost nothing
  // What a name's prefix says, found once per name: bit 0 known, bit 1 "Dequeue", bit 2 "ProfilerStep#".
  std::vector<uint8_t> name_flags;
  auto flags_of = [&](StrId n) {
    if (n >= name_flags.size()) name_flags.resize(std::max<size_t>(size_t{n} + 1, cx.model.strings.size()), 0);
    uint8_t& f = name_flags[n];
    if (!f) {
      std::string_view nv = cx.model.str(n);
      f = static_cast<uint8_t>(1 | (nv.rfind("Dequeue", 0) == 0 ? 2 : 0) | (nv.rfind("ProfilerStep#", 0) == 0 ? 4 : 0));
    }
    return f;
  };
  bool any_step = false;
  for (const ApiRow& row : rows_) {
    const int64_t rowid = row.rowid, t = row.gtid & 0xffffffff, pconn = row.conn;
    uint32_t tr = cx.track(Proc::Python, row.gtid >> 32, t, [&] { return "Thread " + std::to_string(t); });
    StrId n = (row.name & kTextName) ? cx.model.strings.intern(texts_[row.name & ~kTextName]) : row.name;
    const uint8_t flags = flags_of(n);
    const bool queue = row.kind == ApiRow::Queue;
    StrId cat = cat_op;
    if (queue) cat = (flags & 2) ? cat_deq : cat_enq;
    else if (row.kind == ApiRow::Trace) cat = cat_py;
    else if (row.kind == ApiRow::Mstx) cat = cat_mstx;
    if (flags & 4) any_step = true;
    const Ns s = row.start;
    uint64_t loc = RunModel::make_loc(p_api, rowid);
    cx.add_slice(tr, s, row.end, n, cat, kEmptyStr, pconn, p_api, rowid);
    if (pconn == kNoId) continue;
    for (int64_t cid : conn_ids_.values(pconn)) {
      if (queue) {
        queue_ends.push_back(QueueEnd{cid, {s, loc, tr}, cat == cat_deq});
      } else {
        cx.add_flows(cid, {s, loc, tr}, FlowKind::AsyncNpu);
      }
    }
  }
  std::vector<ApiRow>().swap(rows_);
  conn_ids_ = {};
  add_queue_flows(cx, queue_ends);
  if (!any_step) add_step_slices(cx);
  cx.has_pytorch_api = true;
}

}  // namespace npu
