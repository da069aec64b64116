// The ranks' communication reduced over the cluster: per collective (Dixon votes on the
// slow rank), per group, per transport against the standard bandwidth, per link, small packets
// and RDMA retransmission.
#include <algorithm>
#include <array>
#include <climits>
#include <set>
#include <tuple>

#include "facts/cluster/cluster_parts.h"
#include "facts/cluster/dixon.h"
#include "facts/communication_records.h"

namespace npu::cluster {
namespace {

bool is_p2p(const CommOp& op) {
  return op.kind == "p2p" || op.name.find("send") != std::string::npos || op.name.find("receive") != std::string::npos;
}

struct OpKey {
  std::string step, group, name;
  bool operator<(const OpKey& o) const { return std::tie(step, group, name) < std::tie(o.step, o.group, o.name); }
};

}  // namespace

std::vector<CommOp> communication_ops(const std::vector<RankFacts>& ranks, const ClusterReference& ref,
                                      std::string& source) {
  std::vector<CommOp> ops;
  for (const auto& r : ranks)
    for (CommOp op : r.comm_ops) {
      op.rank = r.rank;  // the discovered rank id wins over what the rank's facts said
      ops.push_back(std::move(op));
    }
  // A db export's ranks carry the same records from analysis.db (CommAnalyzer* tables).
  bool from_db = false;
  for (const auto& r : ranks)
    if (auto c = r.facts.find("communication"); c != r.facts.end() && c->is_object())
      from_db = from_db || c->value("ops_source", "").find("CommAnalyzer") != std::string::npos;
  source =
      role_name(Role::Communication) +
      std::string(from_db ? " or analysis.db CommAnalyzerTime/CommAnalyzerBandwidth of each rank" : " of each rank");
  if (ops.empty() && !ref.ops.empty()) {
    ops = ref.ops;
    source = "cluster_communication.json";
  }
  return ops;
}

// Dixon votes per collective (excluding send/receive, like the recipe) and the per-op table.
json judge_ops(const std::vector<CommOp>& ops, std::map<int, int>& votes, int& judged) {
  std::map<OpKey, std::vector<const CommOp*>> by_op;
  for (const auto& op : ops)
    if (!is_p2p(op)) by_op[{step_text(op.step), op.group, op.name}].push_back(&op);
  json table = json::array();
  judged = 0;
  for (const auto& [key, recs] : by_op) {
    std::vector<double> elapse;
    for (const CommOp* r : recs) elapse.push_back(static_cast<double>(r->elapse_ns));
    OutlierResult t = low_outliers(elapse);
    if (t.tested) ++judged;
    json slow = json::array();
    for (size_t i : t.low) {
      int rk = recs[i]->rank;
      votes[rk]++;
      slow.push_back(rk);
    }
    auto [mn, mx] = std::minmax_element(elapse.begin(), elapse.end());
    int64_t wait_max = 0, wait_min = INT64_MAX, wait_sum = 0, transit_sum = 0, sync_sum = 0, transit_max = 0;
    int wait_max_rank = -1, wait_min_rank = -1;
    for (const CommOp* r : recs) {
      int64_t w = r->wait_ns;
      wait_sum += w, transit_sum += r->transit_ns, sync_sum += r->sync_ns;
      transit_max = std::max(transit_max, r->transit_ns);
      if (w > wait_max || wait_max_rank < 0) wait_max = w, wait_max_rank = r->rank;
      if (w < wait_min) wait_min = w, wait_min_rank = r->rank;
    }
    const CommOp& fastest = *recs[static_cast<size_t>(mn - elapse.begin())];
    json row = {{"step", step_json(recs[0]->step)},
                {"group", key.group},
                {"name", key.name},
                {"ranks", recs.size()},
                {"elapse_max_ns", static_cast<int64_t>(*mx)},
                {"elapse_min_ns", static_cast<int64_t>(*mn)},
                {"elapse_median_ns", static_cast<int64_t>(median(elapse))},
                {"fastest_rank", fastest.rank},
                {"wait_max_ns", wait_max},
                {"wait_max_rank", wait_max_rank},
                {"wait_min_ns", wait_min == INT64_MAX ? 0 : wait_min},
                {"wait_min_rank", wait_min_rank},
                {"transit_max_ns", transit_max},
                {"wait_ratio", wait_sum + transit_sum > 0
                                   ? static_cast<double>(wait_sum) / static_cast<double>(wait_sum + transit_sum)
                                   : 0.0},
                {"sync_ratio", sync_sum + transit_sum > 0
                                   ? static_cast<double>(sync_sum) / static_cast<double>(sync_sum + transit_sum)
                                   : 0.0},
                {"slow_ranks", slow}};
    if (t.tested) row["test"] = {{"method", t.method}, {"statistic", t.statistic}, {"critical", t.critical}};
    if (!fastest.source.file.empty()) row["evidence"] = record_evidence_json(fastest.source);
    table.push_back(std::move(row));
  }
  std::sort(table.begin(), table.end(),
            [](const json& a, const json& b) { return i64(a, "elapse_max_ns") > i64(b, "elapse_max_ns"); });
  return table;
}

json groups_table(const std::vector<CommOp>& ops) {
  struct Acc {
    std::set<int> ranks;
    std::set<std::string> names;
    int64_t elapse = 0, transit = 0, wait = 0, sync = 0;
    std::map<int, std::array<int64_t, 3>> per_rank;  // wait, transit, sync
    bool p2p = false;
  };
  std::map<std::string, Acc> by_group;
  for (const auto& op : ops) {
    Acc& a = by_group[op.group];
    int rk = op.rank;
    a.ranks.insert(rk);
    a.names.insert(op.name);
    a.p2p = a.p2p || is_p2p(op);
    a.elapse += op.elapse_ns, a.transit += op.transit_ns, a.wait += op.wait_ns, a.sync += op.sync_ns;
    auto& pr = a.per_rank[rk];
    pr[0] += op.wait_ns, pr[1] += op.transit_ns, pr[2] += op.sync_ns;
  }
  auto ratio = [](int64_t a, int64_t b) {
    return a + b > 0 ? static_cast<double>(a) / static_cast<double>(a + b) : 0.0;
  };
  json out = json::array();
  for (const auto& [g, a] : by_group) {
    json per = json::array();
    double wmax = -1, wmin = 2;
    int rmax = -1, rmin = -1;
    for (const auto& [rk, v] : a.per_rank) {
      double wr = ratio(v[0], v[1]), sr = ratio(v[2], v[1]);
      per.push_back({{"rank", rk},
                     {"wait_ns", v[0]},
                     {"transit_ns", v[1]},
                     {"sync_ns", v[2]},
                     {"wait_ratio", wr},
                     {"sync_ratio", sr}});
      if (wr > wmax) wmax = wr, rmax = rk;
      if (wr < wmin) wmin = wr, rmin = rk;
    }
    json row = {{"group", g},
                {"kind", a.p2p ? "p2p" : "collective"},
                {"ranks", json(std::vector<int>(a.ranks.begin(), a.ranks.end()))},
                {"ops", a.names.size()},
                {"elapse_ns", a.elapse},
                {"transit_ns", a.transit},
                {"wait_ns", a.wait},
                {"sync_ns", a.sync},
                {"wait_ratio", ratio(a.wait, a.transit)},
                {"sync_ratio", ratio(a.sync, a.transit)},
                {"max_wait_rank", rmax},
                {"max_wait_ratio", wmax < 0 ? 0.0 : wmax},
                {"min_wait_rank", rmin},
                {"min_wait_ratio", wmin > 1 ? 0.0 : wmin},
                {"per_rank", per}};
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(),
            [](const json& a, const json& b) { return i64(a, "elapse_ns") > i64(b, "elapse_ns"); });
  return out;
}

json bandwidth_table(const std::vector<CommOp>& ops) {
  const json standard = standard_bandwidth();
  struct Acc {
    double size = 0, large_weighted = 0;
    int64_t time = 0;
    uint64_t ops = 0, packets = 0;
    std::map<int, std::pair<double, int64_t>> per_rank;
  };
  std::map<std::string, Acc> by_tr;
  for (const auto& op : ops) {
    for (const CommBandwidth& b : op.bandwidth) {
      if (b.transport == "LOCAL") continue;
      Acc& a = by_tr[b.transport];
      a.size += b.size_mb, a.time += b.time_ns, a.ops++, a.packets += b.packets;
      a.large_weighted += b.size_mb * b.large_packet_ratio;
      auto& pr = a.per_rank[op.rank];
      pr.first += b.size_mb, pr.second += b.time_ns;
    }
  }
  json out = json::array();
  for (const auto& [tr, a] : by_tr) {
    // MB / ms is GB/s (10^6 / 10^-3 = 10^9).
    double gbps = a.time > 0 ? a.size / (static_cast<double>(a.time) / 1e6) : 0.0;
    json per = json::array();
    for (const auto& [rk, v] : a.per_rank)
      per.push_back({{"rank", rk},
                     {"size_mb", v.first},
                     {"time_ns", v.second},
                     {"gbps", v.second > 0 ? v.first / (static_cast<double>(v.second) / 1e6) : 0.0}});
    json row = {{"transport", tr},
                {"ops", a.ops},
                {"size_mb", a.size},
                {"time_ns", a.time},
                {"gbps", gbps},
                {"packets", a.packets},
                {"large_packet_ratio", a.size > 0 ? a.large_weighted / a.size : 0.0},
                {"per_rank", per}};
    if (standard.contains(tr)) {
      row["standard_gbps"] = standard[tr];
      row["utilization"] = gbps / standard[tr].get<double>();
    }
    out.push_back(std::move(row));
  }
  return out;
}

// Small packets as the reference advisor counts them: ops whose SDMA transfer is < 16 MB or
// RDMA transfer < 1 MB, among the ops that used the transport.
json small_packets(const std::vector<CommOp>& ops) {
  json out = json::array();
  for (auto [tr, threshold] : {std::pair<const char*, double>{"SDMA", 16.0}, {"RDMA", 1.0}}) {
    uint64_t n = 0, small = 0;
    int64_t small_time = 0;
    std::map<std::string, uint64_t> names;
    for (const auto& op : ops) {
      const CommBandwidth* b = op.use(tr);
      if (!b || b->size_mb <= 0) continue;
      ++n;
      if (b->size_mb < threshold) ++small, small_time += b->time_ns, names[op.name]++;
    }
    if (n == 0) continue;
    json top = json::array();
    for (const auto& [name, c] : names) {
      top.push_back({{"name", name}, {"count", c}});
      if (top.size() >= 10) break;
    }
    out.push_back({{"transport", tr},
                   {"threshold_mb", threshold},
                   {"ops", n},
                   {"small_ops", small},
                   {"small_ratio", static_cast<double>(small) / static_cast<double>(n)},
                   {"small_time_ns", small_time},
                   {"examples", top}});
  }
  return out;
}

// RDMA retransmission (reference advisor): every rank spent >= 4 s in the op (not a desync)
// and some rank's RDMA transit took > 4 s.
json retransmission(const std::vector<CommOp>& ops) {
  std::map<OpKey, std::vector<const CommOp*>> by_op;
  for (const auto& op : ops) by_op[{step_text(op.step), op.group, op.name}].push_back(&op);
  constexpr int64_t kLimit = 4'000'000'000;
  json out = json::array();
  for (const auto& [key, recs] : by_op) {
    int64_t min_elapse = INT64_MAX, max_rdma = 0;
    json slow = json::array();
    for (const CommOp* r : recs) {
      min_elapse = std::min(min_elapse, r->elapse_ns);
      const CommBandwidth* rdma = r->use("RDMA");
      int64_t t = rdma ? rdma->time_ns : 0;
      max_rdma = std::max(max_rdma, t);
      if (t > kLimit) slow.push_back(r->rank);
    }
    if (min_elapse >= kLimit && max_rdma > kLimit)
      out.push_back({{"step", step_json(recs[0]->step)},
                     {"group", key.group},
                     {"name", key.name},
                     {"min_elapse_ns", min_elapse},
                     {"max_rdma_transit_ns", max_rdma},
                     {"ranks", slow}});
  }
  return out;
}

std::vector<CommLink> without_self_links(std::vector<CommLink> links) {
  std::erase_if(links, [](const CommLink& l) { return l.src == l.dst || l.transport == "LOCAL"; });
  return links;
}

json link_section(const std::vector<RankFacts>& ranks, const ClusterReference& ref) {
  std::vector<const CommLink*> raw;
  std::string source = std::string(role_name(Role::CommunicationMatrix)) + " of each rank";
  for (const auto& r : ranks) {
    for (const auto& l : r.links) raw.push_back(&l);
    if (auto c = r.facts.find("communication");
        c != r.facts.end() && c->is_object() &&
        c->value("links_source", "").find("CommAnalyzerMatrix") != std::string::npos)
      source = std::string(role_name(Role::CommunicationMatrix)) + " or analysis.db CommAnalyzerMatrix of each rank";
  }
  std::vector<CommLink> from_ref;
  if (raw.empty() && !ref.links.empty()) {
    from_ref = without_self_links(ref.links);
    for (const auto& l : from_ref) raw.push_back(&l);
    source = "cluster_communication_matrix.json";
  }
  // One record per (step, group, op, src, dst): both ends of a link may report it.
  std::set<std::tuple<std::string, std::string, std::string, int, int>> seen;
  struct Acc {
    std::string transport;
    double size = 0;
    int64_t time = 0;
    uint64_t ops = 0;
    const RecordSource* source = nullptr;  // of the first record
  };
  std::map<std::tuple<int, int, std::string>, Acc> by_link;
  for (const CommLink* l : raw) {
    const int src = l->src, dst = l->dst;
    const std::string& tr = l->transport;  // never LOCAL, never src = dst: without_self_links() leaves those out
    if (!seen.insert({step_text(l->step), l->group, l->op, src, dst}).second) continue;
    Acc& a = by_link[{src, dst, tr}];
    a.transport = tr, a.size += l->size_mb, a.time += l->time_ns, a.ops++;
    if (!a.source) a.source = &l->source;
  }
  json list = json::array();
  std::map<std::string, std::vector<double>> by_tr;
  for (const auto& [k, a] : by_link) {
    double gbps = a.time > 0 ? a.size / (static_cast<double>(a.time) / 1e6) : 0.0;
    list.push_back({{"src", std::get<0>(k)},
                    {"dst", std::get<1>(k)},
                    {"transport", a.transport},
                    {"size_mb", a.size},
                    {"time_ns", a.time},
                    {"gbps", gbps},
                    {"ops", a.ops},
                    {"evidence", record_evidence_json(*a.source)}});
    by_tr[a.transport].push_back(gbps);
  }
  json medians = json::object();
  for (auto& [tr, v] : by_tr) medians[tr] = median(v);
  const json standard = standard_bandwidth();
  for (auto& l : list) {
    double med = medians[l["transport"].get<std::string>()];
    l["ratio_to_median"] = med > 0 ? dbl(l, "gbps") / med : 1.0;
    if (standard.contains(l["transport"])) l["utilization"] = dbl(l, "gbps") / standard[l["transport"]].get<double>();
  }
  std::sort(list.begin(), list.end(),
            [](const json& a, const json& b) { return dbl(a, "ratio_to_median") < dbl(b, "ratio_to_median"); });
  return {{"source", source}, {"count", list.size()}, {"median_gbps", medians}, {"list", list}};
}

}  // namespace npu::cluster
