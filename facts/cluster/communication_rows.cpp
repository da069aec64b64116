#include "facts/cluster/communication_rows.h"

#include "facts/cluster/cluster_parts.h"

namespace npu::cluster {

const TransportUse* CommOpRow::use(const std::string& transport) const {
  for (const auto& u : bandwidth)
    if (u.transport == transport) return &u;
  return nullptr;
}

namespace {

int int_of(const json& o, const char* key, int fallback) {
  auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<int>() : fallback;
}
json step_of(const json& o) {
  auto it = o.find("step");
  return it != o.end() ? *it : json(nullptr);
}
uint64_t count_of(const json& o, const char* key) {
  if (!o.is_object()) return 0;
  auto it = o.find(key);
  return it != o.end() && it->is_number() && it->get<double>() >= 0 ? it->get<uint64_t>() : 0;
}
std::string text_of(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::vector<CommOpRow> comm_op_rows(const json& ops, int rank) {
  std::vector<CommOpRow> out;
  if (!ops.is_array()) return out;
  out.reserve(ops.size());
  for (const auto& op : ops) {
    CommOpRow r;
    r.rank = rank >= 0 ? rank : int_of(op, "rank", -1);
    r.step = step_of(op);
    r.group = text_of(op, "group"), r.name = text_of(op, "name"), r.kind = text_of(op, "kind");
    r.elapse_ns = i64(op, "elapse_ns"), r.transit_ns = i64(op, "transit_ns"), r.wait_ns = i64(op, "wait_ns"),
    r.sync_ns = i64(op, "sync_ns");
    if (auto bw = op.find("bandwidth"); bw != op.end() && bw->is_object())
      for (const auto& [tr, b] : bw->items())
        r.bandwidth.push_back({tr, dbl(b, "size_mb"), dbl(b, "large_packet_ratio"), i64(b, "time_ns"),
                               count_of(b, "packets")});
    if (auto ev = op.find("evidence"); ev != op.end() && ev->is_array() && !ev->empty()) r.evidence = (*ev)[0].dump();
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<LinkRow> link_rows(const json& links) {
  std::vector<LinkRow> out;
  if (!links.is_array()) return out;
  out.reserve(links.size());
  for (const auto& l : links) {
    LinkRow r;
    r.transport = text_of(l, "transport");
    r.src = int_of(l, "src", -1), r.dst = int_of(l, "dst", -1);
    if (r.src == r.dst || r.transport == "LOCAL") continue;  // a rank's copy to itself: no link
    r.step = step_of(l);
    r.group = text_of(l, "group"), r.op = text_of(l, "op");
    r.size_mb = dbl(l, "size_mb"), r.time_ns = i64(l, "time_ns");
    auto ev = l.find("evidence");
    r.evidence = ev != l.end() ? ev->dump() : "[]";
    out.push_back(std::move(r));
  }
  return out;
}

json rows_to_json(const std::vector<CommOpRow>& ops, const std::vector<LinkRow>& links) {
  json o = json::array(), l = json::array();
  for (const auto& r : ops) {
    json bw = json::array();
    for (const auto& u : r.bandwidth) bw.push_back({u.transport, u.size_mb, u.large_packet_ratio, u.time_ns, u.packets});
    o.push_back({r.rank, r.step, r.group, r.name, r.kind, r.elapse_ns, r.transit_ns, r.wait_ns, r.sync_ns, bw,
                 r.evidence});
  }
  for (const auto& r : links)
    l.push_back({r.step, r.group, r.op, r.transport, r.src, r.dst, r.size_mb, r.time_ns, r.evidence});
  return {{"ops", std::move(o)}, {"links", std::move(l)}};
}

void rows_from_json(const json& j, std::vector<CommOpRow>& ops, std::vector<LinkRow>& links) {
  for (const auto& x : j.at("ops")) {
    CommOpRow r;
    r.rank = x.at(0).get<int>();
    r.step = x.at(1);
    r.group = x.at(2).get<std::string>(), r.name = x.at(3).get<std::string>(), r.kind = x.at(4).get<std::string>();
    r.elapse_ns = x.at(5).get<int64_t>(), r.transit_ns = x.at(6).get<int64_t>(), r.wait_ns = x.at(7).get<int64_t>(),
    r.sync_ns = x.at(8).get<int64_t>();
    for (const auto& u : x.at(9))
      r.bandwidth.push_back({u.at(0).get<std::string>(), u.at(1).get<double>(), u.at(2).get<double>(),
                             u.at(3).get<int64_t>(), u.at(4).get<uint64_t>()});
    r.evidence = x.at(10).get<std::string>();
    ops.push_back(std::move(r));
  }
  for (const auto& x : j.at("links")) {
    LinkRow r;
    r.step = x.at(0);
    r.group = x.at(1).get<std::string>(), r.op = x.at(2).get<std::string>(), r.transport = x.at(3).get<std::string>();
    r.src = x.at(4).get<int>(), r.dst = x.at(5).get<int>();
    r.size_mb = x.at(6).get<double>(), r.time_ns = x.at(7).get<int64_t>();
    r.evidence = x.at(8).get<std::string>();
    links.push_back(std::move(r));
  }
}

}  // namespace npu::cluster
