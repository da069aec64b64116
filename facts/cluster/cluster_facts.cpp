#include "facts/cluster/cluster_facts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "facts/cluster/dixon.h"

namespace npu::cluster {
namespace {

using nlohmann::json;

int64_t i64(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<int64_t>() : 0;
}
double dbl(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}
std::string step_text(const json& s) { return s.is_null() ? std::string("-") : s.dump(); }

const char* const kMetrics[] = {"computing_ns", "comm_not_overlapped_ns", "free_ns"};
constexpr int64_t StepRow::*kMetricFields[] = {&StepRow::computing, &StepRow::comm_not_overlapped, &StepRow::free};
constexpr size_t kMaxShownSteps = 50;  // rank x step rows written to the facts (the heat map's columns)

json step_json(int64_t step) { return step == StepRow::kNoStep ? json(nullptr) : json(step); }

// ---- rank x step ----------------------------------------------------------------------

std::vector<StepRow> rank_step_rows(const std::vector<RankFacts>& ranks, const ClusterReference& ref, std::string& source) {
  std::vector<StepRow> rows;
  for (const auto& r : ranks)
    for (StepRow s : r.steps) {
      s.rank = r.rank;
      rows.push_back(s);
    }
  source = "each rank's recomputed steps";
  if (rows.empty() && !ref.rank_steps.empty()) {
    for (const auto& r : ref.rank_steps) {
      StepRow s;
      s.rank = r.value("rank", -1);
      s.step = r["step"].is_number_integer() ? r["step"].get<int64_t>() : StepRow::kNoStep;
      s.computing = i64(r, "computing_ns"), s.comm_not_overlapped = i64(r, "comm_not_overlapped_ns"), s.free = i64(r, "free_ns");
      s.communication = i64(r, "communication_ns"), s.overlapped = i64(r, "overlapped_ns"), s.device_time = i64(r, "device_time_ns");
      s.bubble = i64(r, "bubble_ns");
      rows.push_back(s);
    }
    source = "cluster_step_trace_time.csv";
  }
  std::sort(rows.begin(), rows.end(), [](const StepRow& a, const StepRow& b) { return std::tie(a.step, a.rank) < std::tie(b.step, b.rank); });
  return rows;
}

// ---- steps aligned across ranks --------------------------------------------------------

// Which steps are compared across ranks. Ranks are compared step by step (step N of every rank
// against step N of the others), never across steps: a warm-up step of one rank against a
// steady step of another is not an imbalance. A step id is compared only when every rank has
// it (partial steps, where a rank started or stopped capturing earlier, are left out), and the
// first of them is left out as warm-up (one-off costs: compilation, allocator growth, the first
// collective's link setup) when at least kMinStepsForWarmup steps remain after it.
constexpr size_t kMinStepsForWarmup = 2;

struct Alignment {
  std::vector<int64_t> ids;            // the compared step ids, sorted
  std::vector<int64_t> partial;        // ids some rank lacks
  int64_t warmup = StepRow::kNoStep;   // the id left out as warm-up, if any
  json to_json(size_t rank_count) const {
    json j = {{"rule", "a step is compared when every rank has it; the first such step is warm-up when at least " +
                           std::to_string(kMinStepsForWarmup) + " others remain; statistics are per step across ranks"},
              {"ranks", rank_count},
              {"steps_compared", ids.size()},
              {"partial_steps", partial.size()},
              {"warmup_step", step_json(warmup)}};
    if (!partial.empty()) {
      json ex = json::array();
      for (size_t i = 0; i < partial.size() && i < 20; ++i) ex.push_back(step_json(partial[i]));
      j["partial_step_ids"] = ex;
    }
    return j;
  }
};

Alignment align_steps(const std::vector<StepRow>& rows) {
  std::map<int64_t, std::set<int>> ranks_of;
  std::set<int> all;
  for (const auto& r : rows) ranks_of[r.step].insert(r.rank), all.insert(r.rank);
  Alignment a;
  for (const auto& [id, rs] : ranks_of) (rs.size() == all.size() ? a.ids : a.partial).push_back(id);
  if (a.ids.size() > kMinStepsForWarmup && a.ids.front() != StepRow::kNoStep) {
    a.warmup = a.ids.front();
    a.ids.erase(a.ids.begin());
  }
  return a;
}

std::vector<StepRow> aligned_rows(const std::vector<StepRow>& rows, const Alignment& a) {
  std::vector<StepRow> out;
  for (const auto& r : rows)
    if (std::binary_search(a.ids.begin(), a.ids.end(), r.step)) out.push_back(r);
  return out;
}

json row_json(const StepRow& r) {
  return {{"rank", r.rank},
          {"step", step_json(r.step)},
          {"computing_ns", r.computing},
          {"comm_not_overlapped_ns", r.comm_not_overlapped},
          {"free_ns", r.free},
          {"communication_ns", r.communication},
          {"overlapped_ns", r.overlapped},
          {"device_time_ns", r.device_time}};
}

// The step ids, and the ones whose rows go into the facts: all of them up to kMaxShownSteps,
// else evenly spaced ones (first and last included).
std::vector<int64_t> shown_steps(const std::vector<int64_t>& ids) {
  if (ids.size() <= kMaxShownSteps) return ids;
  std::vector<int64_t> out;
  for (size_t i = 0; i < kMaxShownSteps; ++i) out.push_back(ids[i * (ids.size() - 1) / (kMaxShownSteps - 1)]);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Per rank: totals over all its steps, and the mean per step over the aligned steps (the
// steps every rank has, warm-up excluded: see align_steps), so ranks are compared on the same
// steps. When no step is common to all ranks, the means fall back to each rank's own steps.
json rank_table(const std::vector<StepRow>& rows, const std::vector<StepRow>& aligned, const std::vector<RankFacts>& ranks) {
  struct Acc {
    int steps = 0;
    int64_t computing = 0, cno = 0, free = 0, device = 0;
  };
  std::map<int, Acc> by_rank, per_step;
  for (const auto& r : rows) {
    Acc& a = by_rank[r.rank];
    a.steps++, a.computing += r.computing, a.cno += r.comm_not_overlapped, a.free += r.free, a.device += r.device_time;
  }
  for (const auto& r : aligned.empty() ? rows : aligned) {
    Acc& a = per_step[r.rank];
    a.steps++, a.computing += r.computing, a.cno += r.comm_not_overlapped, a.free += r.free, a.device += r.device_time;
  }
  std::map<int, std::string> paths;
  for (const auto& r : ranks) {
    by_rank[r.rank];
    paths[r.rank] = r.path;
  }
  json out = json::array();
  for (const auto& [rk, a] : by_rank) {
    const Acc& m = per_step[rk];
    int64_t n = m.steps > 0 ? m.steps : 1;
    json t = {{"rank", rk},
              {"steps", a.steps},
              {"steps_compared", m.steps},
              {"computing_ns", a.computing},
              {"comm_not_overlapped_ns", a.cno},
              {"free_ns", a.free},
              {"device_time_ns", a.device},
              {"computing_per_step_ns", m.computing / n},
              {"comm_not_overlapped_per_step_ns", m.cno / n},
              {"free_per_step_ns", m.free / n},
              {"device_time_per_step_ns", m.device / n}};
    if (paths.count(rk)) t["path"] = paths[rk];
    out.push_back(std::move(t));
  }
  return out;
}

// The pipeline stage of a rank (stage_map), -1 when there are no stages.
int stage_index(const std::map<int, int>& stage_of, int rank) {
  auto it = stage_of.find(rank);
  return it == stage_of.end() ? -1 : it->second;
}

// The reference advisor's spread, per step across ranks: for each aligned step, (max - min)
// over the ranks of that step; the typical step is the one with the median difference (robust
// to one odd step), and ratio = its difference / the mean device time of an aligned row (the
// reference advisor's denominator; with one step our numbers are the reference's).
// Identical ranks give 0. `worst_*` is the step with the largest difference.
//
// Pipeline parallelism: ranks are compared only with the ranks of their own stage (stage_of;
// stages do different layers, so their times differ by design), and communication not
// overlapped is taken without receive (Bubble: waiting for the previous stage is the pipeline
// schedule, not a slow rank; the profiler's "Communication(Not Overlapped and Exclude Receive)").
json spread(const std::vector<StepRow>& aligned_in, const std::map<int, int>& stage_of) {
  json out = json::object();
  if (aligned_in.empty()) return out;
  std::vector<StepRow> aligned = aligned_in;
  for (auto& r : aligned) r.comm_not_overlapped = std::max<int64_t>(0, r.comm_not_overlapped - r.bubble);
  double sum = 0;
  for (const auto& r : aligned) sum += static_cast<double>(r.device_time);
  const double typical_total = sum / static_cast<double>(aligned.size());
  std::map<std::pair<int64_t, int>, std::vector<const StepRow*>> by_step;  // (step, stage)
  for (const auto& r : aligned) by_step[{r.step, stage_index(stage_of, r.rank)}].push_back(&r);
  for (size_t m = 0; m < std::size(kMetrics); ++m) {
    auto f = kMetricFields[m];
    struct Diff {
      int64_t diff;
      const StepRow *mx, *mn;
    };
    std::map<int, std::vector<Diff>> diffs;  // per stage, one per step
    for (const auto& [key, rs] : by_step) {
      Diff d{0, rs[0], rs[0]};
      for (const StepRow* r : rs) {
        if (r->*f > d.mx->*f) d.mx = r;
        if (r->*f < d.mn->*f) d.mn = r;
      }
      d.diff = d.mx->*f - d.mn->*f;
      diffs[key.second].push_back(d);
    }
    // Per stage the typical step (lower median: a real step); the stage whose typical
    // difference is largest is reported, and the worst step of any stage.
    const Diff* typ_p = nullptr;
    const Diff* worst_p = nullptr;
    for (auto& [st, v] : diffs) {
      std::sort(v.begin(), v.end(), [](const Diff& a, const Diff& b) { return a.diff < b.diff; });
      const Diff& t = v[(v.size() - 1) / 2];
      if (!typ_p || t.diff > typ_p->diff) typ_p = &t;
      if (!worst_p || v.back().diff > worst_p->diff) worst_p = &v.back();
    }
    const Diff& typ = *typ_p;
    const Diff& worst = *worst_p;
    out[kMetrics[m]] = {{"max_ns", typ.mx->*f},  {"max_rank", typ.mx->rank}, {"max_step", step_json(typ.mx->step)},
                        {"min_ns", typ.mn->*f},  {"min_rank", typ.mn->rank}, {"min_step", step_json(typ.mn->step)},
                        {"diff_ns", typ.diff},   {"mean_row_total_ns", static_cast<int64_t>(std::llround(typical_total))},
                        {"ratio", typical_total > 0 ? static_cast<double>(typ.diff) / typical_total : 0.0},
                        {"steps", by_step.size()},
                        {"worst_step", step_json(worst.mx->step)}, {"worst_diff_ns", worst.diff},
                        {"worst_max_rank", worst.mx->rank}, {"worst_min_rank", worst.mn->rank}};
  }
  return out;
}

// Median / MAD of the per-step means over ranks; robust z = (x - median) / (1.4826 MAD).
json robust_stats(const json& rank_rows) {
  json out = json::object();
  for (const char* k : kMetrics) {
    std::string key = std::string(k).replace(std::string(k).size() - 3, 3, "_per_step_ns");
    std::vector<double> v;
    for (const auto& r : rank_rows) v.push_back(dbl(r, key.c_str()));
    if (v.empty()) continue;
    double med = median(v), m = mad(v, med);
    json per = json::array();
    for (const auto& r : rank_rows) {
      double x = dbl(r, key.c_str());
      double z = m > 0 ? (x - med) / (1.4826 * m) : 0.0;
      per.push_back({{"rank", r["rank"]}, {"value_ns", static_cast<int64_t>(x)}, {"z", z},
                     {"excess_ns", static_cast<int64_t>(std::llround(x - med))}});
    }
    out[k] = {{"median_ns", static_cast<int64_t>(std::llround(med))}, {"mad_ns", static_cast<int64_t>(std::llround(m))},
              {"ranks", per}};
  }
  return out;
}

// ---- pipeline stages and bubbles -------------------------------------------------------

// rank -> stage index, from cluster_step_trace_time.csv's stage rows (in file order).
std::map<int, int> stage_map(const ClusterReference& ref) {
  std::map<int, int> out;
  for (size_t i = 0; i < ref.stages.size(); ++i)
    for (const auto& r : ref.stages[i]["ranks"]) out[r.get<int>()] = static_cast<int>(i);
  return out;
}

// Per stage (or, without stage rows, over all ranks): each rank's bubble per aligned step
// (its receive time: waiting for the previous stage), the spread over the stage's ranks, and
// the bubble's share of the step. Null when no aligned row has a bubble.
json pipeline_section(const std::vector<StepRow>& aligned, const ClusterReference& ref, const std::map<int, int>& stage_of) {
  struct Acc {
    int64_t bubble = 0, device = 0;
    int steps = 0;
  };
  std::map<int, Acc> per_rank;
  bool any = false;
  for (const auto& r : aligned) {
    Acc& a = per_rank[r.rank];
    a.bubble += r.bubble, a.device += r.device_time, a.steps++;
    any = any || r.bubble > 0;
  }
  if (!any) return nullptr;
  std::map<int, std::vector<int>> members;  // stage -> ranks
  for (const auto& [rk, a] : per_rank) members[stage_index(stage_of, rk)].push_back(rk);
  json stages = json::array();
  double worst_ratio = 0;
  for (const auto& [st, rks] : members) {
    std::vector<double> b, d;
    int64_t bmin = INT64_MAX, bmax = -1;
    int rmin = -1, rmax = -1;
    for (int rk : rks) {
      const Acc& a = per_rank[rk];
      int64_t pb = a.bubble / std::max(1, a.steps);
      b.push_back(static_cast<double>(pb));
      d.push_back(static_cast<double>(a.device / std::max(1, a.steps)));
      if (pb < bmin) bmin = pb, rmin = rk;
      if (pb > bmax) bmax = pb, rmax = rk;
    }
    double med_b = median(b), med_d = median(d);
    double ratio = med_d > 0 ? med_b / med_d : 0.0;
    worst_ratio = std::max(worst_ratio, ratio);
    json row = {{"stage", st < 0 ? json(nullptr) : json(st)},
                {"ranks", rks},
                {"bubble_per_step_median_ns", static_cast<int64_t>(std::llround(med_b))},
                {"bubble_per_step_min_ns", bmin},
                {"bubble_per_step_min_rank", rmin},
                {"bubble_per_step_max_ns", bmax},
                {"bubble_per_step_max_rank", rmax},
                {"step_median_ns", static_cast<int64_t>(std::llround(med_d))},
                {"bubble_ratio", ratio}};
    if (st >= 0 && static_cast<size_t>(st) < ref.stages.size()) row["evidence"] = ref.stages[static_cast<size_t>(st)]["evidence"];
    stages.push_back(std::move(row));
  }
  return {{"source", ref.stages.empty() ? "each rank's Bubble (receive time) per aligned step; no stage rows, so one group"
                                        : "Bubble per rank; stages from cluster_step_trace_time.csv stage rows"},
          {"stage_count", ref.stages.empty() ? json(nullptr) : json(ref.stages.size())},
          {"stages", stages},
          {"bubble_ratio_max", worst_ratio}};
}

// ---- communication --------------------------------------------------------------------

bool is_p2p(const json& op) {
  const std::string n = op.value("name", "");
  return op.value("kind", "") == "p2p" || n.find("send") != std::string::npos || n.find("receive") != std::string::npos;
}

struct OpKey {
  std::string step, group, name;
  bool operator<(const OpKey& o) const { return std::tie(step, group, name) < std::tie(o.step, o.group, o.name); }
};

json communication_ops(const std::vector<RankFacts>& ranks, const ClusterReference& ref, std::string& source) {
  json ops = json::array();
  for (const auto& r : ranks) {
    const json c = r.facts.value("communication", json::object());
    for (const auto& op : c.value("ops", json::array())) {
      json o = op;
      o["rank"] = r.rank;  // the discovered rank id wins over what the rank's facts said
      ops.push_back(std::move(o));
    }
  }
  // A db export's ranks carry the same records from analysis.db (CommAnalyzer* tables).
  bool from_db = false;
  for (const auto& r : ranks)
    from_db = from_db || r.facts.value("communication", json::object()).value("ops_source", "").find("CommAnalyzer") != std::string::npos;
  source = from_db ? "communication.json or analysis.db CommAnalyzerTime/CommAnalyzerBandwidth of each rank"
                   : "communication.json of each rank";
  if (ops.empty() && !ref.ops.empty()) {
    ops = ref.ops;
    source = "cluster_communication.json";
  }
  return ops;
}

// Dixon votes per collective (excluding send/receive, like the recipe) and the per-op table.
json judge_ops(const json& ops, std::map<int, int>& votes, int& judged) {
  std::map<OpKey, std::vector<const json*>> by_op;
  for (const auto& op : ops)
    if (!is_p2p(op)) by_op[{step_text(op["step"]), op.value("group", ""), op.value("name", "")}].push_back(&op);
  json table = json::array();
  judged = 0;
  for (const auto& [key, recs] : by_op) {
    std::vector<double> elapse;
    for (const json* r : recs) elapse.push_back(dbl(*r, "elapse_ns"));
    OutlierResult t = low_outliers(elapse);
    if (t.tested) ++judged;
    json slow = json::array();
    for (size_t i : t.low) {
      int rk = (*recs[i])["rank"];
      votes[rk]++;
      slow.push_back(rk);
    }
    auto [mn, mx] = std::minmax_element(elapse.begin(), elapse.end());
    int64_t wait_max = 0, wait_min = INT64_MAX, wait_sum = 0, transit_sum = 0, sync_sum = 0, transit_max = 0;
    int wait_max_rank = -1, wait_min_rank = -1;
    for (const json* r : recs) {
      int64_t w = i64(*r, "wait_ns");
      wait_sum += w, transit_sum += i64(*r, "transit_ns"), sync_sum += i64(*r, "sync_ns");
      transit_max = std::max(transit_max, i64(*r, "transit_ns"));
      if (w > wait_max || wait_max_rank < 0) wait_max = w, wait_max_rank = (*r)["rank"];
      if (w < wait_min) wait_min = w, wait_min_rank = (*r)["rank"];
    }
    json row = {{"step", recs[0]->at("step")},
                {"group", key.group},
                {"name", key.name},
                {"ranks", recs.size()},
                {"elapse_max_ns", static_cast<int64_t>(*mx)},
                {"elapse_min_ns", static_cast<int64_t>(*mn)},
                {"elapse_median_ns", static_cast<int64_t>(median(elapse))},
                {"fastest_rank", (*recs[static_cast<size_t>(mn - elapse.begin())])["rank"]},
                {"wait_max_ns", wait_max},
                {"wait_max_rank", wait_max_rank},
                {"wait_min_ns", wait_min == INT64_MAX ? 0 : wait_min},
                {"wait_min_rank", wait_min_rank},
                {"transit_max_ns", transit_max},
                {"wait_ratio", wait_sum + transit_sum > 0 ? static_cast<double>(wait_sum) / static_cast<double>(wait_sum + transit_sum) : 0.0},
                {"sync_ratio", sync_sum + transit_sum > 0 ? static_cast<double>(sync_sum) / static_cast<double>(sync_sum + transit_sum) : 0.0},
                {"slow_ranks", slow}};
    if (t.tested) row["test"] = {{"method", t.method}, {"statistic", t.statistic}, {"critical", t.critical}};
    const json& fastest = *recs[static_cast<size_t>(mn - elapse.begin())];
    if (fastest.contains("evidence") && fastest["evidence"].is_array() && !fastest["evidence"].empty())
      row["evidence"] = json::array({fastest["evidence"][0]});
    table.push_back(std::move(row));
  }
  std::sort(table.begin(), table.end(), [](const json& a, const json& b) { return i64(a, "elapse_max_ns") > i64(b, "elapse_max_ns"); });
  return table;
}

json groups_table(const json& ops) {
  struct Acc {
    std::set<int> ranks;
    std::set<std::string> names;
    int64_t elapse = 0, transit = 0, wait = 0, sync = 0;
    std::map<int, std::array<int64_t, 3>> per_rank;  // wait, transit, sync
    bool p2p = false;
  };
  std::map<std::string, Acc> by_group;
  for (const auto& op : ops) {
    Acc& a = by_group[op.value("group", "")];
    int rk = op["rank"];
    a.ranks.insert(rk);
    a.names.insert(op.value("name", ""));
    a.p2p = a.p2p || is_p2p(op);
    a.elapse += i64(op, "elapse_ns"), a.transit += i64(op, "transit_ns"), a.wait += i64(op, "wait_ns"), a.sync += i64(op, "sync_ns");
    auto& pr = a.per_rank[rk];
    pr[0] += i64(op, "wait_ns"), pr[1] += i64(op, "transit_ns"), pr[2] += i64(op, "sync_ns");
  }
  auto ratio = [](int64_t a, int64_t b) { return a + b > 0 ? static_cast<double>(a) / static_cast<double>(a + b) : 0.0; };
  json out = json::array();
  for (const auto& [g, a] : by_group) {
    json per = json::array();
    double wmax = -1, wmin = 2;
    int rmax = -1, rmin = -1;
    for (const auto& [rk, v] : a.per_rank) {
      double wr = ratio(v[0], v[1]), sr = ratio(v[2], v[1]);
      per.push_back({{"rank", rk}, {"wait_ns", v[0]}, {"transit_ns", v[1]}, {"sync_ns", v[2]}, {"wait_ratio", wr}, {"sync_ratio", sr}});
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
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return i64(a, "elapse_ns") > i64(b, "elapse_ns"); });
  return out;
}

json bandwidth_table(const json& ops) {
  const json standard = standard_bandwidth();
  struct Acc {
    double size = 0, large_weighted = 0;
    int64_t time = 0;
    uint64_t ops = 0, packets = 0;
    std::map<int, std::pair<double, int64_t>> per_rank;
  };
  std::map<std::string, Acc> by_tr;
  for (const auto& op : ops) {
    const json bw = op.value("bandwidth", json::object());  // a named copy: items() must not outlive it
    for (const auto& [tr, b] : bw.items()) {
      if (tr == "LOCAL") continue;
      Acc& a = by_tr[tr];
      double size = dbl(b, "size_mb");
      int64_t time = i64(b, "time_ns");
      a.size += size, a.time += time, a.ops++, a.packets += b.value("packets", uint64_t{0});
      a.large_weighted += size * dbl(b, "large_packet_ratio");
      auto& pr = a.per_rank[op["rank"].get<int>()];
      pr.first += size, pr.second += time;
    }
  }
  json out = json::array();
  for (const auto& [tr, a] : by_tr) {
    // MB / ms is GB/s (10^6 / 10^-3 = 10^9).
    double gbps = a.time > 0 ? a.size / (static_cast<double>(a.time) / 1e6) : 0.0;
    json per = json::array();
    for (const auto& [rk, v] : a.per_rank)
      per.push_back({{"rank", rk}, {"size_mb", v.first}, {"time_ns", v.second},
                     {"gbps", v.second > 0 ? v.first / (static_cast<double>(v.second) / 1e6) : 0.0}});
    json row = {{"transport", tr}, {"ops", a.ops}, {"size_mb", a.size}, {"time_ns", a.time}, {"gbps", gbps},
                {"packets", a.packets}, {"large_packet_ratio", a.size > 0 ? a.large_weighted / a.size : 0.0}, {"per_rank", per}};
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
json small_packets(const json& ops) {
  json out = json::array();
  for (auto [tr, threshold] : {std::pair<const char*, double>{"SDMA", 16.0}, {"RDMA", 1.0}}) {
    uint64_t n = 0, small = 0;
    int64_t small_time = 0;
    std::map<std::string, uint64_t> names;
    for (const auto& op : ops) {
      auto b = op.value("bandwidth", json::object());
      if (!b.contains(tr) || dbl(b[tr], "size_mb") <= 0) continue;
      ++n;
      if (dbl(b[tr], "size_mb") < threshold) ++small, small_time += i64(b[tr], "time_ns"), names[op.value("name", "")]++;
    }
    if (n == 0) continue;
    json top = json::array();
    for (const auto& [name, c] : names) {
      top.push_back({{"name", name}, {"count", c}});
      if (top.size() >= 10) break;
    }
    out.push_back({{"transport", tr}, {"threshold_mb", threshold}, {"ops", n}, {"small_ops", small},
                   {"small_ratio", static_cast<double>(small) / static_cast<double>(n)}, {"small_time_ns", small_time},
                   {"examples", top}});
  }
  return out;
}

// RDMA retransmission (reference advisor): every rank spent >= 4 s in the op (not a desync)
// and some rank's RDMA transit took > 4 s.
json retransmission(const json& ops) {
  std::map<OpKey, std::vector<const json*>> by_op;
  for (const auto& op : ops) by_op[{step_text(op["step"]), op.value("group", ""), op.value("name", "")}].push_back(&op);
  constexpr int64_t kLimit = 4'000'000'000;
  json out = json::array();
  for (const auto& [key, recs] : by_op) {
    int64_t min_elapse = INT64_MAX, max_rdma = 0;
    json slow = json::array();
    for (const json* r : recs) {
      min_elapse = std::min(min_elapse, i64(*r, "elapse_ns"));
      int64_t t = r->contains("bandwidth") && (*r)["bandwidth"].contains("RDMA") ? i64((*r)["bandwidth"]["RDMA"], "time_ns") : 0;
      max_rdma = std::max(max_rdma, t);
      if (t > kLimit) slow.push_back((*r)["rank"]);
    }
    if (min_elapse >= kLimit && max_rdma > kLimit)
      out.push_back({{"step", recs[0]->at("step")}, {"group", key.group}, {"name", key.name}, {"min_elapse_ns", min_elapse},
                     {"max_rdma_transit_ns", max_rdma}, {"ranks", slow}});
  }
  return out;
}

json link_section(const std::vector<RankFacts>& ranks, const ClusterReference& ref) {
  json raw = json::array();
  std::string source = "communication_matrix.json of each rank";
  for (const auto& r : ranks) {
    const json c = r.facts.value("communication", json::object());
    for (const auto& l : c.value("links", json::array())) raw.push_back(l);
    if (c.value("links_source", "").find("CommAnalyzerMatrix") != std::string::npos)
      source = "communication_matrix.json or analysis.db CommAnalyzerMatrix of each rank";
  }
  if (raw.empty() && !ref.links.empty()) raw = ref.links, source = "cluster_communication_matrix.json";
  // One record per (step, group, op, src, dst): both ends of a link may report it.
  std::set<std::tuple<std::string, std::string, std::string, int, int>> seen;
  struct Acc {
    std::string transport;
    double size = 0;
    int64_t time = 0;
    uint64_t ops = 0;
    json evidence;
  };
  std::map<std::tuple<int, int, std::string>, Acc> by_link;
  for (const auto& l : raw) {
    int src = l["src"], dst = l["dst"];
    std::string tr = l.value("transport", "");
    if (src == dst || tr == "LOCAL") continue;
    if (!seen.insert({step_text(l["step"]), l.value("group", ""), l.value("op", ""), src, dst}).second) continue;
    Acc& a = by_link[{src, dst, tr}];
    a.transport = tr, a.size += dbl(l, "size_mb"), a.time += i64(l, "time_ns"), a.ops++;
    if (a.evidence.is_null()) a.evidence = l.value("evidence", json::array());
  }
  json list = json::array();
  std::map<std::string, std::vector<double>> by_tr;
  for (const auto& [k, a] : by_link) {
    double gbps = a.time > 0 ? a.size / (static_cast<double>(a.time) / 1e6) : 0.0;
    list.push_back({{"src", std::get<0>(k)}, {"dst", std::get<1>(k)}, {"transport", a.transport}, {"size_mb", a.size},
                    {"time_ns", a.time}, {"gbps", gbps}, {"ops", a.ops}, {"evidence", a.evidence}});
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
  std::sort(list.begin(), list.end(), [](const json& a, const json& b) { return dbl(a, "ratio_to_median") < dbl(b, "ratio_to_median"); });
  return {{"source", source}, {"count", list.size()}, {"median_gbps", medians}, {"list", list}};
}

// ---- slow rank verdict ----------------------------------------------------------------

json slow_rank_verdict(const json& rank_rows, const json& robust, const std::map<int, int>& votes, int judged,
                       const json& groups, const std::map<int, int>& stage_of) {
  json out;
  out["judged_ops"] = judged;
  json vlist = json::array();
  for (const auto& [rk, v] : votes) vlist.push_back({{"rank", rk}, {"votes", v}});
  std::sort(vlist.begin(), vlist.end(), [](const json& a, const json& b) { return a["votes"].get<int>() > b["votes"].get<int>(); });
  out["votes"] = vlist;
  out["method"] = "Dixon's Q test (99.5%) on each collective's per-rank elapse time: the fastest rank is the one "
                  "the others waited for; median/MAD of each rank's computing and free per step";

  // Candidate from the time breakdown: the rank whose computing + free per step is highest,
  // if it is a robust outlier (z > 3.5) or at least 5% of a step above the median.
  int time_rank = -1;
  double best_excess = 0, best_z = 0;
  // Pipeline stages do different work: a rank is compared with the ranks of its own stage.
  std::vector<double> busy;
  std::map<int, std::vector<double>> busy_of_stage;
  for (const auto& r : rank_rows) {
    busy.push_back(dbl(r, "computing_per_step_ns") + dbl(r, "free_per_step_ns"));
    busy_of_stage[stage_index(stage_of, r["rank"].get<int>())].push_back(busy.back());
  }
  std::map<int, std::pair<double, double>> stage_med_mad;
  for (auto& [st, v] : busy_of_stage) stage_med_mad[st] = {median(v), mad(v, median(v))};
  std::vector<double> dev;
  for (const auto& r : rank_rows) dev.push_back(dbl(r, "device_time_per_step_ns"));
  double med_step = median(dev);
  double med_busy = 0;
  for (size_t i = 0; i < rank_rows.size(); ++i) {
    auto [med_b, mad_b] = stage_med_mad[stage_index(stage_of, rank_rows[i]["rank"].get<int>())];
    double excess = busy[i] - med_b;
    double z = mad_b > 0 ? excess / (1.4826 * mad_b) : (excess > 0 ? 1e9 : 0.0);
    if (excess > best_excess && z > 3.5 && med_step > 0 && excess > 0.05 * med_step) {
      best_excess = excess, best_z = z, time_rank = rank_rows[i]["rank"];
    }
  }
  int vote_rank = vlist.empty() ? -1 : vlist[0]["rank"].get<int>();
  int top_votes = vlist.empty() ? 0 : vlist[0]["votes"].get<int>();
  // A vote winner needs a clear plurality: more than a quarter of the judged ops and more
  // votes than the runner-up.
  bool vote_clear = top_votes > 0 && judged > 0 && top_votes * 4 > judged &&
                    (vlist.size() < 2 || vlist[1]["votes"].get<int>() < top_votes);
  int rank = -1;
  std::string basis;
  if (vote_clear && (time_rank < 0 || time_rank == vote_rank)) {
    rank = vote_rank;
    basis = time_rank == vote_rank ? "communication and time breakdown agree" : "communication (Dixon votes)";
  } else if (time_rank >= 0) {
    rank = time_rank;
    basis = vote_clear ? "time breakdown (the Dixon votes point at another rank)" : "time breakdown";
  }
  out["rank"] = rank;
  out["basis"] = rank < 0 ? "no outlier" : basis;
  out["median_step_ns"] = static_cast<int64_t>(std::llround(med_step));
  if (rank >= 0) {
    const json* row = nullptr;
    for (const auto& r : rank_rows)
      if (r["rank"] == rank) row = &r;
    med_busy = stage_med_mad[stage_index(stage_of, rank)].first;
    double excess = row ? (dbl(*row, "computing_per_step_ns") + dbl(*row, "free_per_step_ns")) - med_busy : 0;
    out["excess_per_step_ns"] = static_cast<int64_t>(std::llround(std::max(0.0, excess)));
    out["votes_for_rank"] = votes.count(rank) ? votes.at(rank) : 0;
    for (const char* k : kMetrics) {
      for (const auto& e : robust[k]["ranks"])
        if (e["rank"] == rank) out[std::string(k).substr(0, std::string(k).size() - 3) + "_excess_ns"] = e["excess_ns"], out[std::string(k).substr(0, std::string(k).size() - 3) + "_z"] = e["z"];
    }
    if (time_rank == rank) out["busy_z"] = best_z;
    // A normal rank to compare it with: of its stage, the one whose computing + free is
    // closest to the stage median (commands name its folder).
    int normal = -1;
    double best = 0;
    for (size_t i = 0; i < rank_rows.size(); ++i) {
      int rk = rank_rows[i]["rank"].get<int>();
      if (rk == rank || stage_index(stage_of, rk) != stage_index(stage_of, rank)) continue;
      double d = std::fabs(busy[i] - med_busy);
      if (normal < 0 || d < best) normal = rk, best = d;
    }
    out["normal_rank"] = normal;
    // Which ranks waited for it: in its groups, the others' wait.
    json in_groups = json::array();
    for (const auto& g : groups) {
      const auto& rs = g["ranks"];
      if (std::find(rs.begin(), rs.end(), json(rank)) != rs.end() && rs.size() > 1)
        in_groups.push_back({{"group", g["group"]}, {"min_wait_rank", g["min_wait_rank"]}, {"wait_ratio", g["wait_ratio"]}});
    }
    out["groups"] = in_groups;
  }
  return out;
}

// ---- each rank's own causes, merged ------------------------------------------------------

// The single-run findings of every rank (RankFacts.facts["findings"], cli/cluster_input.cpp),
// merged by rule: on how many ranks it fired, the spread of its saving per step over those
// ranks, and the text of the rank where it saves most. The cluster's saving of a cause is the
// median over the ranks that show it (what a typical affected rank gains).
json merge_rank_findings(const std::vector<RankFacts>& ranks) {
  struct Acc {
    std::vector<std::pair<int64_t, int>> savings;  // saving_ns, rank
    std::vector<double> confidence;
    const json* top = nullptr;
    int64_t top_saving = -1;
  };
  std::map<std::string, Acc> by_rule;
  size_t with_findings = 0;
  for (const auto& r : ranks) {
    auto it = r.facts.find("findings");
    if (it == r.facts.end() || !it->is_array()) continue;
    ++with_findings;
    std::set<std::string> seen;  // a rule that fired twice on a rank counts once, with its largest saving
    for (const auto& f : *it) {
      std::string rule = f.value("rule", "");
      Acc& a = by_rule[rule];
      int64_t saving = i64(f, "saving_ns");
      if (!seen.insert(rule).second) {
        for (auto& [sv, rk] : a.savings)
          if (rk == r.rank) sv = std::max(sv, saving);
      } else {
        a.savings.push_back({saving, r.rank});
        a.confidence.push_back(dbl(f, "confidence"));
      }
      if (saving > a.top_saving) a.top_saving = saving, a.top = &f;
    }
  }
  json out = json::array();
  for (auto& [rule, a] : by_rule) {
    std::sort(a.savings.begin(), a.savings.end());
    std::vector<double> sv;
    json rks = json::array();
    for (const auto& [v, rk] : a.savings) sv.push_back(static_cast<double>(v));
    std::vector<int> ids;
    for (const auto& p : a.savings) ids.push_back(p.second);
    std::sort(ids.begin(), ids.end());
    for (int id : ids) rks.push_back(id);
    const json& t = *a.top;
    out.push_back({{"rule", rule},
                   {"title", t.value("title", "")},
                   {"category", t.value("category", "")},
                   {"severity", t.value("severity", "")},
                   {"ranks", rks},
                   {"rank_count", ranks.size()},
                   {"ranks_analysed", with_findings},
                   {"saving_min_ns", a.savings.front().first},
                   {"saving_min_rank", a.savings.front().second},
                   {"saving_max_ns", a.savings.back().first},
                   {"saving_max_rank", a.savings.back().second},
                   {"saving_median_ns", static_cast<int64_t>(std::llround(median(sv)))},
                   {"confidence", median(a.confidence)},
                   {"observed", t.value("observed", "")},
                   {"action", t.value("action", "")},
                   {"commands", t.value("commands", json::array())}});
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return dbl(a, "saving_median_ns") * dbl(a, "confidence") > dbl(b, "saving_median_ns") * dbl(b, "confidence");
  });
  return out;
}

json agreement_with_reference(const std::vector<StepRow>& ours, const ClusterReference& ref) {
  if (ref.rank_steps.empty() || ours.empty()) return nullptr;
  std::map<std::pair<int, std::string>, const json*> theirs;
  for (const auto& r : ref.rank_steps) theirs[{r["rank"].get<int>(), step_text(r["step"])}] = &r;
  int64_t worst = 0;
  json worst_at;
  int compared = 0;
  for (const auto& r : ours) {
    auto it = theirs.find({r.rank, step_text(step_json(r.step))});
    if (it == theirs.end()) continue;
    ++compared;
    for (size_t m = 0; m < std::size(kMetrics); ++m) {
      int64_t d = std::llabs(r.*kMetricFields[m] - i64(*it->second, kMetrics[m]));
      if (d > worst) worst = d, worst_at = {{"rank", r.rank}, {"step", step_json(r.step)}, {"metric", kMetrics[m]}};
    }
  }
  return {{"rows_compared", compared}, {"max_abs_diff_ns", worst}, {"worst", worst_at}, {"file", "cluster_step_trace_time.csv"}};
}

}  // namespace

json standard_bandwidth() { return {{"HCCS", 18.0}, {"SDMA", 18.0}, {"PCIE", 20.0}, {"RDMA", 12.5}}; }

RankFacts rank_facts_from(int rank, std::string path, const json& facts) {
  RankFacts out;
  out.rank = rank;
  out.path = std::move(path);
  json s = json::object();
  for (const char* k : {"schema", "schema_version", "overall", "communication", "unavailable", "input", "findings"})
    if (facts.contains(k)) s[k] = facts[k];
  if (facts.contains("run")) {
    s["run"] = json::object();
    for (const char* k : {"framework", "source_format", "rank", "device", "profiler_level", "worker_name", "platform"})
      if (facts["run"].contains(k)) s["run"][k] = facts["run"][k];
  }
  for (const auto& st : facts.value("steps", json::array())) {
    StepRow r;
    r.rank = rank;
    r.step = st.contains("id") && st["id"].is_number_integer() ? st["id"].get<int64_t>() : StepRow::kNoStep;
    r.computing = i64(st, "computing_ns"), r.comm_not_overlapped = i64(st, "comm_not_overlapped_ns"), r.free = i64(st, "free_ns");
    r.communication = i64(st, "communication_ns"), r.overlapped = i64(st, "overlapped_ns"), r.device_time = i64(st, "device_time_ns");
    r.bubble = i64(st, "bubble_ns");
    out.steps.push_back(r);
  }
  out.facts = std::move(s);
  return out;
}

Facts build_cluster_facts(const std::vector<RankFacts>& ranks, const ClusterReference& ref,
                          const std::vector<std::string>& warnings, const std::string& input_path) {
  Facts f;
  f.doc["schema"] = kFactsSchema;
  f.doc["schema_version"] = kFactsSchemaVersion;
  f.doc["unavailable"] = json::array();
  json run = {{"framework", ranks.empty() ? std::string("torch_npu") : ranks[0].facts.value("run", json::object()).value("framework", "")},
              {"source_format", "cluster"}, {"rank", -1}, {"device", -1}};
  json inputs = json::array();
  for (const auto& r : ranks)
    inputs.push_back({{"role", "rank " + std::to_string(r.rank)}, {"status", "loaded"}, {"path", r.path}, {"bytes", 0},
                      {"records", r.steps.size()}, {"note", "rank facts"}});
  for (const auto& file : ref.files)
    inputs.push_back({{"role", "cluster_analysis_output"}, {"status", "loaded"}, {"path", file}, {"bytes", 0}, {"records", 0},
                      {"note", "the profiler's own cluster analysis (reference)"}});
  run["inputs"] = inputs;
  run["warnings"] = warnings;
  f.doc["run"] = run;
  for (const char* s : {"steps", "overall", "dispatch", "operators", "operator_health", "memory"})
    f.unavailable(s, "cluster report: single-rank checks run on each rank (npu-advisor analyze RANK_DIR)");

  json c;
  c["input"] = input_path;
  // The folder holding the ranks (their paths' common parent): what commands name as the job's
  // profiling folder. Not `input`, which is the facts folder for `analyze --facts`.
  if (!ranks.empty()) {
    std::string common = ranks[0].path;
    for (const auto& r : ranks) {
      size_t n = 0;
      while (n < common.size() && n < r.path.size() && common[n] == r.path[n]) ++n;
      common.resize(n);
    }
    if (ranks.size() == 1 || common.empty() || common.back() != '/') {
      auto slash = common.rfind('/');
      common = slash == std::string::npos ? std::string() : common.substr(0, slash);
    } else {
      common.pop_back();
    }
    if (!common.empty()) c["job_dir"] = common;
  }
  c["warnings"] = warnings;
  std::string rows_source, ops_source;
  std::vector<StepRow> rows = rank_step_rows(ranks, ref, rows_source);
  const Alignment alignment = align_steps(rows);
  const std::vector<StepRow> aligned = aligned_rows(rows, alignment);
  json rank_rows = rank_table(rows, aligned, ranks);
  c["rank_count"] = rank_rows.size();
  c["ranks"] = rank_rows;
  c["rank_steps_source"] = rows_source;
  {
    std::vector<int64_t> ids;
    for (const auto& r : rows) ids.push_back(r.step);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<int64_t> shown = shown_steps(ids);
    json steps = json::array(), table = json::array();
    for (int64_t id : shown) steps.push_back(step_json(id));
    for (const auto& r : rows)
      if (std::binary_search(shown.begin(), shown.end(), r.step)) table.push_back(row_json(r));
    c["step_count"] = ids.size();
    c["steps"] = steps;
    c["rank_steps"] = table;
    if (shown.size() < ids.size())
      c["rank_steps_sampled"] = {{"steps_total", ids.size()}, {"steps_shown", shown.size()},
                                 {"note", "evenly spaced steps; every total, spread and verdict uses all steps"}};
    std::vector<double> dev;
    for (const auto& r : rows) dev.push_back(static_cast<double>(r.device_time));
    if (!dev.empty()) c["step_time"] = {{"median_ns", static_cast<int64_t>(std::llround(median(dev)))}, {"rows", dev.size()}};
  }
  if (rows.empty()) {
    // Say why, in the first rank's own words.
    std::string why = "no rank has a step breakdown and there is no cluster_step_trace_time.csv";
    if (!ranks.empty())
      for (const auto& u : ranks[0].facts.value("unavailable", json::array()))
        if (u.value("fact", "") == "steps") why += " (rank " + std::to_string(ranks[0].rank) + ": " + u.value("why", "") + ")";
    f.unavailable("cluster.rank_steps", why);
  }
  if (!rows.empty()) c["alignment"] = alignment.to_json(rank_rows.size());
  const std::map<int, int> stage_of = stage_map(ref);
  c["spread"] = spread(aligned, stage_of);
  if (json p = pipeline_section(aligned, ref, stage_of); !p.is_null()) c["pipeline"] = std::move(p);
  json robust = robust_stats(rank_rows);
  c["robust"] = robust;

  json ops = communication_ops(ranks, ref, ops_source);
  std::map<int, int> votes;
  int judged = 0;
  json groups = json::array();
  if (!ops.empty()) {
    json comm;
    comm["source"] = ops_source;
    comm["op_records"] = ops.size();
    json table = judge_ops(ops, votes, judged);
    comm["ops_judged"] = judged;
    comm["ops_count"] = table.size();
    if (table.size() > 30) table.erase(table.begin() + 30, table.end());
    comm["top_ops"] = table;
    groups = groups_table(ops);
    comm["groups"] = groups;
    c["communication"] = comm;
    c["bandwidth"] = bandwidth_table(ops);
    c["small_packets"] = small_packets(ops);
    c["retransmission"] = retransmission(ops);
  } else {
    f.unavailable("cluster.communication",
                  "no communication.json (or analysis.db CommAnalyzer* tables) in the ranks and no cluster_communication.json "
                  "(profiler_level Level1+)");
    f.unavailable("cluster.bandwidth", "no communication.json: bandwidth per transport unknown");
    f.unavailable("cluster.small_packets", "no communication.json: transfer sizes unknown");
  }
  json links = link_section(ranks, ref);
  if (links["count"].get<size_t>() > 0) {
    if (links["list"].size() > 50) links["list"].erase(links["list"].begin() + 50, links["list"].end());
    c["links"] = links;
  } else {
    f.unavailable("cluster.links", "no communication_matrix.json in the ranks and no cluster_communication_matrix.json");
  }
  json merged = merge_rank_findings(ranks);
  if (!merged.empty()) c["rank_findings"] = merged;
  if (!rank_rows.empty() && (rank_rows.size() >= 3 || judged > 0)) {
    c["slow_rank"] = slow_rank_verdict(rank_rows, robust, votes, judged, groups, stage_of);
    // The slow rank's own causes next to the verdict: what to fix on it.
    if (int sr = c["slow_rank"]["rank"].get<int>(); sr >= 0)
      for (const auto& r : ranks)
        if (r.rank == sr && r.facts.contains("findings")) {
          json own = json::array();
          for (const auto& f : r.facts["findings"]) {
            if (own.size() == 3) break;
            own.push_back({{"rule", f.value("rule", "")}, {"title", f.value("title", "")}, {"saving_ns", i64(f, "saving_ns")},
                           {"observed", f.value("observed", "")}});
          }
          c["slow_rank"]["own_findings"] = own;
        }
  } else
    f.unavailable("cluster.slow_rank", "needs at least 3 ranks with steps (or collectives judged across ranks)");
  if (!ref.groups.empty()) c["reference_groups"] = ref.groups;
  if (!ref.empty()) {
    c["reference"] = {{"dir", ref.dir}, {"files", ref.files}};
    if (json a = agreement_with_reference(rows_source == "cluster_step_trace_time.csv" ? std::vector<StepRow>{} : rows, ref);
        !a.is_null())
      c["reference"]["agreement"] = a;
  }
  f.doc["cluster"] = std::move(c);
  return f;
}

}  // namespace npu::cluster
