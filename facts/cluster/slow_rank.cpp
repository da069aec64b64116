// The slow-rank verdict: Dixon votes from the collectives and robust outliers of the time
// breakdown, the rank they point at, a normal rank to compare it with, and who waited for it.
#include <algorithm>
#include <cmath>

#include "facts/cluster/cluster_parts.h"
#include "facts/cluster/dixon.h"

namespace npu::cluster {

namespace {

// Candidate from the time breakdown: the rank whose computing + free per step is highest,
// if it is a robust outlier (z > 3.5) or at least 5% of a step above the median. Pipeline
// stages do different work: a rank is compared with the ranks of its own stage.
struct TimeCandidate {
  int rank = -1;
  double excess = 0, z = 0;
  std::vector<double> busy;                                // computing + free per step, per row
  std::map<int, std::pair<double, double>> stage_med_mad;  // of busy, per stage
  double med_step = 0;                                     // the median device time per step
};

TimeCandidate time_candidate(const json& rank_rows, const std::map<int, int>& stage_of) {
  TimeCandidate c;
  std::map<int, std::vector<double>> busy_of_stage;
  for (const auto& r : rank_rows) {
    c.busy.push_back(dbl(r, "computing_per_step_ns") + dbl(r, "free_per_step_ns"));
    busy_of_stage[stage_index(stage_of, r["rank"].get<int>())].push_back(c.busy.back());
  }
  for (auto& [st, v] : busy_of_stage) c.stage_med_mad[st] = {median(v), mad(v, median(v))};
  std::vector<double> dev;
  for (const auto& r : rank_rows) dev.push_back(dbl(r, "device_time_per_step_ns"));
  c.med_step = median(dev);
  for (size_t i = 0; i < rank_rows.size(); ++i) {
    auto [med_b, mad_b] = c.stage_med_mad[stage_index(stage_of, rank_rows[i]["rank"].get<int>())];
    double excess = c.busy[i] - med_b;
    double z = mad_b > 0 ? excess / (1.4826 * mad_b) : (excess > 0 ? 1e9 : 0.0);
    if (excess > c.excess && z > 3.5 && c.med_step > 0 && excess > 0.05 * c.med_step) {
      c.excess = excess, c.z = z, c.rank = rank_rows[i]["rank"];
    }
  }
  return c;
}

// A normal rank to compare the slow one with: of its stage, the one whose computing + free is
// closest to the stage median (commands name its folder).
int normal_rank(const json& rank_rows, const TimeCandidate& c, const std::map<int, int>& stage_of, int rank,
                double med_busy) {
  int normal = -1;
  double best = 0;
  for (size_t i = 0; i < rank_rows.size(); ++i) {
    int rk = rank_rows[i]["rank"].get<int>();
    if (rk == rank || stage_index(stage_of, rk) != stage_index(stage_of, rank)) continue;
    double d = std::fabs(c.busy[i] - med_busy);
    if (normal < 0 || d < best) normal = rk, best = d;
  }
  return normal;
}

// The slow rank's numbers: its excess, votes and outlier scores, a normal rank, and which ranks
// waited for it (in its groups, the others' wait).
void describe_slow_rank(json& out, int rank, const json& rank_rows, const json& robust, const std::map<int, int>& votes,
                        const TimeCandidate& c, const json& groups, const std::map<int, int>& stage_of) {
  const json* row = nullptr;
  for (const auto& r : rank_rows)
    if (r["rank"] == rank) row = &r;
  // A rank voted slow may have no step rows, so no stage median: 0 then.
  const auto stage = c.stage_med_mad.find(stage_index(stage_of, rank));
  const double med_busy = stage != c.stage_med_mad.end() ? stage->second.first : 0.0;
  double excess = row ? (dbl(*row, "computing_per_step_ns") + dbl(*row, "free_per_step_ns")) - med_busy : 0;
  out["excess_per_step_ns"] = static_cast<int64_t>(std::llround(std::max(0.0, excess)));
  out["votes_for_rank"] = votes.count(rank) ? votes.at(rank) : 0;
  for (const char* k : kMetrics) {
    const std::string stem = std::string(k).substr(0, std::string(k).size() - 3);
    for (const auto& e : robust[k]["ranks"])
      if (e["rank"] == rank) out[stem + "_excess_ns"] = e["excess_ns"], out[stem + "_z"] = e["z"];
  }
  if (c.rank == rank) out["busy_z"] = c.z;
  out["normal_rank"] = normal_rank(rank_rows, c, stage_of, rank, med_busy);
  json in_groups = json::array();
  for (const auto& g : groups) {
    const auto& rs = g["ranks"];
    if (std::find(rs.begin(), rs.end(), json(rank)) != rs.end() && rs.size() > 1)
      in_groups.push_back(
          {{"group", g["group"]}, {"min_wait_rank", g["min_wait_rank"]}, {"wait_ratio", g["wait_ratio"]}});
  }
  out["groups"] = in_groups;
}

}  // namespace

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

  const TimeCandidate c = time_candidate(rank_rows, stage_of);
  const int time_rank = c.rank;
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
  out["median_step_ns"] = static_cast<int64_t>(std::llround(c.med_step));
  if (rank >= 0) describe_slow_rank(out, rank, rank_rows, robust, votes, c, groups, stage_of);
  return out;
}

}  // namespace npu::cluster
