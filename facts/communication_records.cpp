#include "facts/communication_records.h"

namespace npu {
namespace {

using nlohmann::json;

json step_json(int64_t step) { return step == kNoId ? json(nullptr) : json(step); }

int64_t step_from(const json& o) {
  auto it = o.find("step");
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : kNoId;
}
int64_t int_from(const json& o, const char* key, int64_t fallback) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<int64_t>() : fallback;
}
double double_from(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}
uint64_t count_from(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() && it->get<double>() >= 0 ? it->get<uint64_t>() : 0;
}
std::string text_from(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void name_group(json& r, const std::string& group, const std::vector<ParallelGroup>& groups) {
  if (groups.empty()) return;
  if (const auto* g = find_parallel_group(groups, group)) r["group_name"] = g->name;
}

RecordSource first_evidence(const json& o) {
  auto ev = o.find("evidence");
  return ev != o.end() && ev->is_array() && !ev->empty() ? record_source_from_json((*ev)[0]) : RecordSource{};
}

}  // namespace

json record_source_json(const RecordSource& s) {
  json e = {{"file", s.file}, {"what", s.what}};
  if (!s.table.empty()) e["table"] = s.table, e["rowid"] = s.row;
  else if (s.row >= 0) e["line"] = s.row;
  return e;
}

json record_evidence_json(const RecordSource& s) {
  return s.file.empty() ? json::array() : json::array({record_source_json(s)});
}

RecordSource record_source_from_json(const json& e) {
  if (!e.is_object()) return {};
  RecordSource s{text_from(e, "file"), text_from(e, "table"), -1, text_from(e, "what")};
  s.row = int_from(e, s.table.empty() ? "line" : "rowid", -1);
  return s;
}

json comm_op_json(const CommOp& op, const std::vector<ParallelGroup>& groups) {
  json bw = json::object();
  for (const CommBandwidth& b : op.bandwidth)
    bw[b.transport] = {{"size_mb", b.size_mb},
                       {"time_ns", b.time_ns},
                       {"gbps", b.gbps},
                       {"large_packet_ratio", b.large_packet_ratio},
                       {"packets", b.packets}};
  json r = {{"step", step_json(op.step)},
            {"kind", op.kind},
            {"name", op.name},
            {"group", op.group},
            {"rank", op.rank},
            {"elapse_ns", op.elapse_ns},
            {"transit_ns", op.transit_ns},
            {"wait_ns", op.wait_ns},
            {"sync_ns", op.sync_ns},
            {"idle_ns", op.idle_ns},
            {"wait_ratio", op.wait_ratio},
            {"sync_ratio", op.sync_ratio},
            {"bandwidth", std::move(bw)},
            {"evidence", record_evidence_json(op.source)}};
  name_group(r, op.group, groups);
  return r;
}

json comm_ops_json(const std::vector<CommOp>& ops, const std::vector<ParallelGroup>& groups) {
  json out = json::array();
  for (const CommOp& op : ops) out.push_back(comm_op_json(op, groups));
  return out;
}

json comm_links_json(const std::vector<CommLink>& links, const std::vector<ParallelGroup>& groups) {
  json out = json::array();
  for (const CommLink& l : links) {
    json r = {{"step", step_json(l.step)},
              {"kind", l.kind},
              {"op", l.op},
              {"group", l.group},
              {"src", l.src},
              {"dst", l.dst},
              {"transport", l.transport},
              {"size_mb", l.size_mb},
              {"time_ns", l.time_ns},
              {"gbps", l.gbps},
              {"evidence", record_evidence_json(l.source)}};
    name_group(r, l.group, groups);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<CommOp> comm_ops_from_json(const json& ops) {
  std::vector<CommOp> out;
  if (!ops.is_array()) return out;
  out.reserve(ops.size());
  for (const auto& o : ops) {
    if (!o.is_object()) continue;
    CommOp r;
    r.step = step_from(o);
    r.kind = text_from(o, "kind"), r.name = text_from(o, "name"), r.group = text_from(o, "group");
    r.rank = static_cast<int32_t>(int_from(o, "rank", -1));
    r.elapse_ns = int_from(o, "elapse_ns", 0), r.transit_ns = int_from(o, "transit_ns", 0),
    r.wait_ns = int_from(o, "wait_ns", 0), r.sync_ns = int_from(o, "sync_ns", 0), r.idle_ns = int_from(o, "idle_ns", 0);
    r.wait_ratio = double_from(o, "wait_ratio"), r.sync_ratio = double_from(o, "sync_ratio");
    if (auto bw = o.find("bandwidth"); bw != o.end() && bw->is_object())
      for (const auto& [tr, b] : bw->items()) {
        if (!b.is_object()) continue;
        r.bandwidth.push_back({tr, double_from(b, "size_mb"), int_from(b, "time_ns", 0), double_from(b, "gbps"),
                               double_from(b, "large_packet_ratio"), count_from(b, "packets")});
      }
    r.source = first_evidence(o);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<CommLink> comm_links_from_json(const json& links) {
  std::vector<CommLink> out;
  if (!links.is_array()) return out;
  out.reserve(links.size());
  for (const auto& o : links) {
    if (!o.is_object()) continue;
    CommLink r;
    r.step = step_from(o);
    r.kind = text_from(o, "kind"), r.op = text_from(o, "op"), r.group = text_from(o, "group");
    r.src = static_cast<int32_t>(int_from(o, "src", -1)), r.dst = static_cast<int32_t>(int_from(o, "dst", -1));
    r.transport = text_from(o, "transport");
    r.size_mb = double_from(o, "size_mb"), r.time_ns = int_from(o, "time_ns", 0), r.gbps = double_from(o, "gbps");
    r.source = first_evidence(o);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace npu
