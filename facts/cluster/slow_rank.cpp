// The slow-rank verdict: Dixon votes from the collectives and robust outliers of the time
// breakdown, the rank they point at, a normal rank to compare it with, and who waited for it.
#include <algorithm>
#include <cmath>

#include "facts/cluster/cluster_parts.h"
#include "facts/cluster/dixon.h"

namespace npu::cluster {

json slow_rank_verdict(const json& rank_rows, const json& robust, const std::map<int, int>& votes, int judged,
                       const json& groups, const std::map<int, int>& stage_of) {
  json out;
  out["judged_ops"] = judged;
  json vlist = json::array();
  for (const auto& [rk, v] : votes) vlist.push_back({{"rank", rk}, {"votes", v}});
  std::sort(vlist.begin(), vlist.end(),
            [](const json& a, const json& b) { return a["votes"].get<int>() > b["votes"].get<int>(); });
  out["votes"] = vlist;
  out["method"] =
      "Dixon's Q test (99.5%) on each collective's per-rank elapse time: the fastest rank is the one "
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
        if (e["rank"] == rank)
          out[std::string(k).substr(0, std::string(k).size() - 3) +
              "_excess_ns"] = e["excess_ns"],
              out[std::string(k).substr(0, std::string(k).size() - 3) + "_z"] = e["z"];
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
        in_groups.push_back(
            {{"group", g["group"]}, {"min_wait_rank", g["min_wait_rank"]}, {"wait_ratio", g["wait_ratio"]}});
    }
    out["groups"] = in_groups;
  }
  return out;
}

}  // namespace npu::cluster
