// Rank x step rows (docs/facts-cluster.md): gathered from the ranks, aligned across ranks
// (the steps every rank has, warm-up left out), per-rank totals, and the spread and robust
// statistics across ranks.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "facts/cluster/cluster_parts.h"
#include "facts/cluster/dixon.h"

namespace npu::cluster {
namespace {

constexpr size_t kMaxShownSteps = 50;     // rank x step rows written to the facts (the heat map's columns)
constexpr size_t kMinStepsForWarmup = 2;  // see Alignment (cluster_parts.h)

}  // namespace

std::vector<StepRow> rank_step_rows(const std::vector<RankFacts>& ranks, const ClusterReference& ref,
                                    std::string& source) {
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
      s.rank = r.rank;
      s.step = r.step;
      s.computing = r.computing_ns, s.comm_not_overlapped = r.comm_not_overlapped_ns, s.free = r.free_ns;
      s.communication = r.communication_ns, s.overlapped = r.overlapped_ns, s.device_time = r.device_time_ns;
      s.bubble = r.bubble_ns;
      rows.push_back(s);
    }
    source = "cluster_step_trace_time.csv";
  }
  std::sort(rows.begin(), rows.end(),
            [](const StepRow& a, const StepRow& b) { return std::tie(a.step, a.rank) < std::tie(b.step, b.rank); });
  return rows;
}

json Alignment::to_json(size_t rank_count) const {
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
json rank_table(const std::vector<StepRow>& rows, const std::vector<StepRow>& aligned,
                const std::vector<RankFacts>& ranks) {
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
    out[kMetrics[m]] = {{"max_ns", typ.mx->*f},
                        {"max_rank", typ.mx->rank},
                        {"max_step", step_json(typ.mx->step)},
                        {"min_ns", typ.mn->*f},
                        {"min_rank", typ.mn->rank},
                        {"min_step", step_json(typ.mn->step)},
                        {"diff_ns", typ.diff},
                        {"mean_row_total_ns", static_cast<int64_t>(std::llround(typical_total))},
                        {"ratio", typical_total > 0 ? static_cast<double>(typ.diff) / typical_total : 0.0},
                        {"steps", by_step.size()},
                        {"worst_step", step_json(worst.mx->step)},
                        {"worst_diff_ns", worst.diff},
                        {"worst_max_rank", worst.mx->rank},
                        {"worst_min_rank", worst.mn->rank}};
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
      per.push_back({{"rank", r["rank"]},
                     {"value_ns", static_cast<int64_t>(x)},
                     {"z", z},
                     {"excess_ns", static_cast<int64_t>(std::llround(x - med))}});
    }
    out[k] = {{"median_ns", static_cast<int64_t>(std::llround(med))},
              {"mad_ns", static_cast<int64_t>(std::llround(m))},
              {"ranks", per}};
  }
  return out;
}

}  // namespace npu::cluster
