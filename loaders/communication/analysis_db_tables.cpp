#include "loaders/communication/analysis_db_tables.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "base/load_error.h"
#include "loaders/communication/communication_files.h"
#include "loaders/db/sqlite_db.h"

namespace npu {
namespace {

using nlohmann::json;

// A NUMERIC cell in ms -> ns through its decimal text, as communication.json's numbers are.
int64_t ms_cell(const SqliteStmt& st, int col) {
  if (st.null(col)) return 0;
  json v = json::parse(st.text(col), nullptr, false);
  return v.is_number() ? json_ms_to_ns(v) : 0;
}

double num_cell(const SqliteStmt& st, int col) {
  if (st.null(col)) return 0;
  json v = json::parse(st.text(col), nullptr, false);
  return v.is_number() ? v.get<double>() : 0;
}

int64_t step_of(std::string_view s) {  // "step50" -> 50
  if (s.rfind("step", 0) == 0 && s.size() > 4 && s.find_first_not_of("0123456789", 4) == std::string_view::npos)
    return std::stoll(std::string(s.substr(4)));
  return kNoId;
}

}  // namespace

std::vector<CommOp> load_comm_analyzer_ops(const std::string& path, int rank) {
  SqliteDb db(path);
  std::vector<CommOp> ops;
  if (!db.has_table("CommAnalyzerTime")) return ops;
  ColumnPicker c(db, "CommAnalyzerTime");
  const int name = c.add({"hccl_op_name"}), group = c.add({"group_name"}), elapse = c.add({"elapse_time"}),
            transit = c.add({"transit_time"}), wait = c.add({"wait_time"}), sync = c.add({"synchronization_time"}),
            idle = c.add({"idle_time"}), step = c.add({"step"}), type = c.add({"type"});
  SqliteStmt st(db, "SELECT rowid, " + c.select_list() + " FROM CommAnalyzerTime", "CommAnalyzerTime");
  std::map<std::pair<std::string, std::string>, size_t> index;  // (op, step) -> record
  while (st.step()) {
    CommOp r;
    const std::string op(st.text(1 + name)), st_text(st.text(1 + step));
    r.step = step_of(st_text);
    r.kind = c.has(type) && !st.null(1 + type) ? std::string(st.text(1 + type)) : "collective";
    r.name = op;
    r.group = std::string(st.text(1 + group));
    r.rank = rank;
    r.elapse_ns = ms_cell(st, 1 + elapse);
    r.transit_ns = ms_cell(st, 1 + transit);
    r.wait_ns = ms_cell(st, 1 + wait);
    r.sync_ns = ms_cell(st, 1 + sync);
    r.idle_ns = ms_cell(st, 1 + idle);
    // The JSON export writes the ratios, the table does not: x / (x + transit), as the profiler computes them.
    const double w = static_cast<double>(r.wait_ns), t = static_cast<double>(r.transit_ns),
                 sy = static_cast<double>(r.sync_ns);
    r.wait_ratio = w + t > 0 ? w / (w + t) : 0.0;
    r.sync_ratio = sy + t > 0 ? sy / (sy + t) : 0.0;
    r.source = {path, "CommAnalyzerTime", st.i64(0), op};
    index[{op, st_text}] = ops.size();
    ops.push_back(std::move(r));
  }
  if (!db.has_table("CommAnalyzerBandwidth")) return ops;
  ColumnPicker b(db, "CommAnalyzerBandwidth");
  const int bname = b.add({"hccl_op_name"}), bstep = b.add({"step"}), tr = b.add({"transport_type"}),
            size = b.add({"transit_size"}), time = b.add({"transit_time"}), bw = b.add({"bandwidth"}),
            large = b.add({"large_packet_ratio"}), count = b.add({"count"});
  SqliteStmt bs(db, "SELECT rowid, " + b.select_list() + " FROM CommAnalyzerBandwidth", "CommAnalyzerBandwidth");
  while (bs.step()) {
    auto it = index.find({std::string(bs.text(1 + bname)), std::string(bs.text(1 + bstep))});
    if (it == index.end()) continue;
    const std::string transport(bs.text(1 + tr));
    std::vector<CommBandwidth>& rec = ops[it->second].bandwidth;
    const double size_mb = num_cell(bs, 1 + size);
    const int64_t time_ns = ms_cell(bs, 1 + time);
    if (size_mb <= 0 && time_ns <= 0) continue;
    // One row per (transport, packet size): the transport's totals repeat, the packets add up.
    auto at = std::lower_bound(rec.begin(), rec.end(), transport,
                               [](const CommBandwidth& u, const std::string& t) { return u.transport < t; });
    if (at == rec.end() || at->transport != transport)
      at = rec.insert(at, {transport, size_mb, time_ns, num_cell(bs, 1 + bw), num_cell(bs, 1 + large), 0});
    at->packets += static_cast<uint64_t>(num_cell(bs, 1 + count));
  }
  return ops;
}

std::vector<CommLink> load_comm_analyzer_links(const std::string& path) {
  SqliteDb db(path);
  std::vector<CommLink> out;
  if (!db.has_table("CommAnalyzerMatrix")) return out;
  ColumnPicker c(db, "CommAnalyzerMatrix");
  const int op = c.add({"hccl_op_name"}), group = c.add({"group_name"}), src = c.add({"src_rank"}),
            dst = c.add({"dst_rank"}), tr = c.add({"transport_type"}), size = c.add({"transit_size"}),
            time = c.add({"transit_time"}), bw = c.add({"bandwidth"}), step = c.add({"step"}), type = c.add({"type"});
  if (!c.has(src) || !c.has(dst))
    throw LoadError::whole_file(path, "table CommAnalyzerMatrix has no src_rank/dst_rank columns");
  SqliteStmt st(db, "SELECT rowid, " + c.select_list() + " FROM CommAnalyzerMatrix", "CommAnalyzerMatrix");
  auto rank_at = [&](int field) {
    const std::string t(st.text(1 + field));
    int v = -1;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || v < 0)
      throw LoadError::whole_file(
          path, "CommAnalyzerMatrix rowid " + std::to_string(st.i64(0)) + ": rank \"" + t + "\" is not an integer");
    return v;
  };
  while (st.step()) {
    // hccl_op_name is the matrix's operator ("allreduce-top1", the key of communication_matrix.json).
    const std::string name(st.text(1 + op));
    CommLink r;
    r.step = step_of(st.text(1 + step));
    r.kind = c.has(type) && !st.null(1 + type) ? std::string(st.text(1 + type)) : "collective";
    r.op = name;
    r.group = std::string(st.text(1 + group));
    r.src = rank_at(src);
    r.dst = rank_at(dst);
    r.transport = std::string(st.text(1 + tr));
    r.size_mb = num_cell(st, 1 + size);
    r.time_ns = ms_cell(st, 1 + time);
    r.gbps = num_cell(st, 1 + bw);
    r.source = {path, "CommAnalyzerMatrix", st.i64(0), name};
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace npu
