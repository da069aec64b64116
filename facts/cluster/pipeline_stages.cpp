// Pipeline parallelism across ranks: which stage each rank is in and the bubble per stage.
#include <algorithm>
#include <climits>
#include <cmath>

#include "facts/cluster/cluster_parts.h"
#include "facts/cluster/dixon.h"
#include "facts/communication_records.h"

namespace npu::cluster {

// rank -> stage index, from cluster_step_trace_time.csv's stage rows (in file order).
std::map<int, int> stage_map(const ClusterReference& ref) {
  std::map<int, int> out;
  for (size_t i = 0; i < ref.stages.size(); ++i)
    for (int64_t r : ref.stages[i].ranks) out[static_cast<int>(r)] = static_cast<int>(i);
  return out;
}

// Per stage (or, without stage rows, over all ranks): each rank's bubble per aligned step
// (its receive time: waiting for the previous stage), the spread over the stage's ranks, and
// the bubble's share of the step. Null when no aligned row has a bubble.
json pipeline_section(const std::vector<StepRow>& aligned, const ClusterReference& ref,
                      const std::map<int, int>& stage_of) {
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
    if (st >= 0 && static_cast<size_t>(st) < ref.stages.size())
      row["evidence"] = record_evidence_json(ref.stages[static_cast<size_t>(st)].source);
    stages.push_back(std::move(row));
  }
  return {
      {"source", ref.stages.empty() ? "each rank's Bubble (receive time) per aligned step; no stage rows, so one group"
                                    : "Bubble per rank; stages from cluster_step_trace_time.csv stage rows"},
      {"stage_count", ref.stages.empty() ? json(nullptr) : json(ref.stages.size())},
      {"stages", stages},
      {"bubble_ratio_max", worst_ratio}};
}

}  // namespace npu::cluster
