#include "loaders/communication/communication_files.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "base/decimal.h"
#include "base/json_file.h"
#include "base/load_error.h"
#include "loaders/common/csv_table.h"
#include "loaders/common/duration_bound.h"
#include "loaders/common/step_trace_columns.h"

namespace npu {
namespace {

using nlohmann::json;

const char* const kTransports[] = {"HCCS", "PCIE", "RDMA", "SDMA", "SIO", "LOCAL"};

// "step12" -> 12; "step" or anything else -> kNoId (no step schedule).
int64_t step_id(const std::string& key) {
  if (key.size() > 4 && key.compare(0, 4, "step") == 0) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(key.data() + 4, key.data() + key.size(), v);
    if (ec == std::errc() && p == key.data() + key.size()) return v;
  }
  return kNoId;
}

// "hcom_allReduce__483_2@9350434047717501483" -> name, group.
void split_op(const std::string& key, std::string& name, std::string& group) {
  auto at = key.rfind('@');
  name = at == std::string::npos ? key : key.substr(0, at);
  group = at == std::string::npos ? std::string() : key.substr(at + 1);
}

// o[key] when it is an object, else an empty object (a wrongly typed field reads as absent
// instead of throwing json's type_error, which ended the whole report with exit 3).
const json& member_object(const json& o, const char* key) {
  static const json kEmpty = json::object();
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? *it : kEmpty;
}

double num(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return 0.0;
  return it->get<double>();
}

// A time in ms: absent (or null) is 0; a word, a negative time or one past ~11.6 days is not a
// time, and the file is refused naming the operator and the key (it was read as 0 and a -5 ms
// wait accepted).
int64_t ms(const json& o, const char* key, const std::string& path, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return 0;
  if (!it->is_number() || !(it->get<double>() >= 0 && it->get<double>() <= 1e9))
    throw LoadError::whole_file(
        path, where + ": \"" + key + "\" is " + it->dump().substr(0, 40) + ", not a possible time in ms");
  return json_ms_to_ns(*it);
}

bool is_p2p_name(const std::string& name) {
  return name.find("send") != std::string::npos || name.find("receive") != std::string::npos ||
         name.find("batchsendrecv") != std::string::npos;
}

// One operator's {"Communication Time Info", "Communication Bandwidth Info"}.
CommOp op_record(const std::string& path, const std::string& where, int64_t step, const std::string& kind,
                 const std::string& key, int rank, const json& info) {
  if (!info.is_object()) throw LoadError::whole_file(path, where + ": expected an object");
  CommOp r;
  split_op(key, r.name, r.group);
  r.step = step;
  r.kind = kind.empty() ? (is_p2p_name(r.name) ? "p2p" : "collective") : kind;
  r.rank = rank;
  const json& t = member_object(info, "Communication Time Info");
  r.elapse_ns = ms(t, "Elapse Time(ms)", path, where);
  r.transit_ns = ms(t, "Transit Time(ms)", path, where);
  r.wait_ns = ms(t, "Wait Time(ms)", path, where);
  r.sync_ns = ms(t, "Synchronization Time(ms)", path, where);
  r.idle_ns = ms(t, "Idle Time(ms)", path, where);
  r.wait_ratio = num(t, "Wait Time Ratio");
  r.sync_ratio = num(t, "Synchronization Time Ratio");
  const json& b = member_object(info, "Communication Bandwidth Info");
  for (const char* tr : kTransports) {
    auto it = b.find(tr);
    if (it == b.end() || !it->is_object()) continue;
    CommBandwidth u;
    u.transport = tr;
    u.size_mb = num(*it, "Transit Size(MB)");
    u.time_ns = ms(*it, "Transit Time(ms)", path, where);
    if (u.size_mb <= 0 && u.time_ns <= 0) continue;  // transport not used by this op
    if (auto d = it->find("Size Distribution"); d != it->end() && d->is_object())
      for (const auto& [sz, v] : d->items())
        if (v.is_array() && !v.empty() && v[0].is_number()) u.packets += static_cast<uint64_t>(v[0].get<double>());
    u.gbps = num(*it, "Bandwidth(GB/s)");
    u.large_packet_ratio = num(*it, "Large Packet Ratio");
    r.bandwidth.push_back(std::move(u));
  }
  std::sort(r.bandwidth.begin(), r.bandwidth.end(),
            [](const CommBandwidth& a, const CommBandwidth& c) { return a.transport < c.transport; });
  r.source = {path, "", -1, where};
  return r;
}

CommLink link_record(const std::string& path, const std::string& where, int64_t step, const std::string& kind,
                     const std::string& key, const std::string& src_dst, const json& info) {
  CommLink r;
  split_op(key, r.op, r.group);
  auto dash = src_dst.find('-');
  int src = -1, dst = -1;
  if (dash != std::string::npos) {
    std::from_chars(src_dst.data(), src_dst.data() + dash, src);
    std::from_chars(src_dst.data() + dash + 1, src_dst.data() + src_dst.size(), dst);
  }
  if (src < 0 || dst < 0)
    throw LoadError::whole_file(path, where + ": link key \"" + src_dst + "\" is not \"src-dst\"");
  r.step = step;
  r.kind = kind.empty() ? (is_p2p_name(r.op) ? "p2p" : "collective") : kind;
  r.src = src;
  r.dst = dst;
  auto tt = info.find("Transport Type");
  r.transport = tt != info.end() && tt->is_string() ? tt->get<std::string>() : std::string();
  r.size_mb = num(info, "Transit Size(MB)");
  r.time_ns = ms(info, "Transit Time(ms)", path, where);
  r.gbps = num(info, "Bandwidth(GB/s)");
  r.source = {path, "", -1, where};
  return r;
}

const json& object_at(const std::string& path, const json& v, const std::string& where) {
  if (!v.is_object()) throw LoadError::whole_file(path, (where.empty() ? "top level" : where) + ": expected an object");
  return v;
}

// communication(_matrix).json (step -> kind -> operator) and msprof-analyze's cluster files
// (group -> step -> operator) nest three object levels the same way; the "Total Op Info"
// summaries are skipped. `fn(outer, inner, op, where, value)`.
template <class Fn>
void for_each_op(const std::string& path, const json& doc, Fn fn) {
  for (const auto& [k1, v1] : object_at(path, doc, "").items()) {
    for (const auto& [k2, v2] : object_at(path, v1, k1).items()) {
      for (const auto& [op, oval] : object_at(path, v2, k1 + "/" + k2).items()) {
        if (op == "Total Op Info") continue;
        fn(k1, k2, op, k1 + "/" + k2 + "/" + op, oval);
      }
    }
  }
}

const char* cluster_kind(const std::string& group) { return group == "p2p" ? "p2p" : ""; }

}  // namespace

int64_t json_ms_to_ns(const nlohmann::json& v) {
  if (!v.is_number()) return 0;
  if (v.is_number_integer()) return v.get<int64_t>() * 1000000;
  // The shortest text that round-trips the double is the text the profiler wrote (up to 15
  // significant digits); shifting its decimal point by 3 makes it microseconds.
  std::string text = v.dump();
  auto e = text.find_first_of("eE");
  std::optional<Ns> ns;
  if (e == std::string::npos) {
    ns = parse_us_to_ns(text + "e3");
  } else {
    int exp = 0;
    std::from_chars(text.data() + e + 1 + (text[e + 1] == '+'), text.data() + text.size(), exp);
    ns = parse_us_to_ns(text.substr(0, e) + "e" + std::to_string(exp + 3));
  }
  return ns.value_or(0);
}

std::vector<CommOp> load_communication_ops(const std::string& path, int rank) {
  std::vector<CommOp> out;
  for_each_op(path, read_json_file(path),
              [&](const std::string& step, const std::string& kind, const std::string& op, const std::string& where,
                  const json& oval) { out.push_back(op_record(path, where, step_id(step), kind, op, rank, oval)); });
  return out;
}

std::vector<CommLink> load_communication_links(const std::string& path) {
  std::vector<CommLink> out;
  for_each_op(path, read_json_file(path),
              [&](const std::string& step, const std::string& kind, const std::string& op, const std::string& where,
                  const json& oval) {
                for (const auto& [lkey, lval] : object_at(path, oval, where).items())
                  out.push_back(link_record(path, where + "/" + lkey, step_id(step), kind, op, lkey,
                                            object_at(path, lval, where)));
              });
  return out;
}

std::vector<CommOp> load_cluster_communication_ops(const std::string& path) {
  std::vector<CommOp> out;
  for_each_op(
      path, read_json_file(path),
      [&](const std::string& group, const std::string& step, const std::string& op, const std::string& where,
          const json& oval) {
        for (const auto& [rkey, rval] : object_at(path, oval, where).items()) {
          int rank = -1;
          auto [p, ec] = std::from_chars(rkey.data(), rkey.data() + rkey.size(), rank);
          if (ec != std::errc() || p != rkey.data() + rkey.size())
            throw LoadError::whole_file(path, where + ": rank key \"" + rkey + "\" is not an integer");
          out.push_back(op_record(path, where + "/" + rkey, step_id(step), cluster_kind(group), op, rank, rval));
        }
      });
  return out;
}

std::vector<CommLink> load_cluster_communication_links(const std::string& path) {
  std::vector<CommLink> out;
  for_each_op(path, read_json_file(path),
              [&](const std::string& group, const std::string& step, const std::string& op, const std::string& where,
                  const json& oval) {
                for (const auto& [lkey, lval] : object_at(path, oval, where).items())
                  out.push_back(link_record(path, where + "/" + lkey, step_id(step), cluster_kind(group), op, lkey,
                                            object_at(path, lval, where)));
              });
  return out;
}

std::vector<ClusterStepRow> load_cluster_step_trace_time(const std::string& path) {
  CsvTable t(path);
  std::vector<ClusterStepRow> out;
  if (t.header().empty()) return out;
  // The rank rows have the columns of a rank's own step_trace_time.csv (one owner of their names),
  // after Type and Index.
  namespace col = step_trace_columns;
  const int c_step = t.col(col::kCsvStep);
  const int c_type = t.require({"Type"});
  const int c_index = t.require({"Index"});
  const int c_comp = t.require({col::csv_of(&StepTraceRow::computing)});
  const int c_cno = t.require({col::csv_of(&StepTraceRow::comm_not_overlapped)});
  const int c_ovl = t.col({col::csv_of(&StepTraceRow::overlapped)});
  const int c_comm = t.col({col::csv_of(&StepTraceRow::communication)});
  const int c_free = t.require({col::csv_of(&StepTraceRow::free)});
  const int c_stage = t.col({col::csv_of(&StepTraceRow::stage)});
  const int c_bubble = t.col({col::csv_of(&StepTraceRow::bubble)});
  t.for_each_row([&](const CsvTable::Row& r) {
    if (trim_cell(r[c_type]) != "rank") return;
    auto rank = r.integer(c_index);
    if (!rank) throw LoadError::at_line(path, r.line(), "rank row without an integer Index");
    ClusterStepRow row;
    row.rank = static_cast<int32_t>(*rank);
    row.step = r.integer(c_step).value_or(kNoId);
    row.computing_ns = r.us_to_ns(c_comp).value_or(0);
    row.comm_not_overlapped_ns = r.us_to_ns(c_cno).value_or(0);
    row.overlapped_ns = r.us_to_ns(c_ovl).value_or(0);
    row.communication_ns = r.us_to_ns(c_comm).value_or(0);
    row.free_ns = r.us_to_ns(c_free).value_or(0);
    if (c_bubble >= 0) row.bubble_ns = r.us_to_ns(c_bubble).value_or(0);
    if (c_stage >= 0) row.stage_ns = r.us_to_ns(c_stage).value_or(0);
    // As a rank's own step rows (loaders/common/duration_bound.h): a time over a day is corrupt.
    for (Ns v : {row.computing_ns, row.comm_not_overlapped_ns, row.overlapped_ns, row.communication_ns, row.free_ns,
                 row.bubble_ns, row.stage_ns})
      if (impossibly_long(v)) throw LoadError::at_line(path, r.line(), std::string("rank row ") + kImpossiblyLongRow);
    row.device_time_ns = row.computing_ns + row.comm_not_overlapped_ns + row.free_ns;
    row.source = {path, "", static_cast<int64_t>(r.line()), "rank row"};
    out.push_back(std::move(row));
  });
  return out;
}

std::vector<ClusterStage> load_cluster_pipeline_stages(const std::string& path) {
  CsvTable t(path);
  std::vector<ClusterStage> out;
  if (t.header().empty()) return out;
  const int c_type = t.require({"Type"});
  const int c_index = t.require({"Index"});
  std::set<std::string> seen;
  t.for_each_row([&](const CsvTable::Row& r) {
    if (trim_cell(r[c_type]) != "stage") return;
    std::string index(trim_cell(r[c_index]));
    if (!seen.insert(index).second) return;  // one row per step and stage: the ranks are the same
    // "(8, 9, 10, 11)": the ranks of the stage.
    ClusterStage stage;
    int64_t v = -1;
    for (char ch : index + ",") {
      if (ch >= '0' && ch <= '9') v = (v < 0 ? 0 : v * 10) + (ch - '0');
      else if (v >= 0) stage.ranks.push_back(v), v = -1;
    }
    if (stage.ranks.empty()) throw LoadError::at_line(path, r.line(), "stage row whose Index names no rank: " + index);
    stage.source = {path, "", static_cast<int64_t>(r.line()), "stage row"};
    out.push_back(std::move(stage));
  });
  return out;
}

std::vector<ClusterCommGroup> communication_groups(const json& doc) {
  std::vector<ClusterCommGroup> out;
  for (const char* kind : {"collective", "p2p"}) {
    if (!doc.is_object() || !doc.contains(kind) || !doc[kind].is_array()) continue;
    for (const auto& g : doc[kind]) {
      if (!g.is_array()) continue;
      ClusterCommGroup group{kind, {}};
      for (const auto& r : g)
        if (auto id = json_small_id(r)) group.ranks.push_back(*id);
      std::sort(group.ranks.begin(), group.ranks.end());
      out.push_back(std::move(group));
    }
  }
  return out;
}

}  // namespace npu
