// cluster.step_split: one rank's "where the step goes" (facts.idle_attribution, else its step
// breakdown), for the job.
// Means add up where medians do not: the mean over ranks of each part is a part of the mean
// over ranks of the step, so the cluster's savings can be drawn from it without counting any
// time twice (rules/attribution.cpp), as on one rank.
#include <algorithm>
#include <array>
#include <string>

#include "facts/cluster/cluster_parts.h"

namespace npu::cluster {

namespace {
std::string ranks_of(size_t n, const std::string& what) {
  return n == 1 ? "1 rank's " + what : std::to_string(n) + " ranks' " + what + "s";
}
}  // namespace

json step_split(const std::vector<RankFacts>& ranks, const std::vector<StepRow>& rows, const std::string& rows_source) {
  static const char* const kParts[] = {"computing_ns", "communication_ns", "bubble_ns", "idle_ns"};
  std::map<std::string, int64_t> sum;  // part or "idle.<cause>" -> sum over ranks of its mean per step
  std::vector<int> used;
  size_t with_causes = 0;
  for (const auto& r : ranks) {
    if (const auto a = r.facts.find("idle_attribution"); a != r.facts.end() && a->is_object() && i64(*a, "steps") > 0) {
      const int64_t steps = i64(*a, "steps");
      used.push_back(r.rank);
      ++with_causes;
      for (const char* k : kParts) sum[k] += i64(*a, k) / steps;
      if (const auto c = a->find("causes"); c != a->end() && c->is_object())
        for (const auto& [name, v] : c->items()) sum["idle." + name] += i64(v, "ns") / steps;
      continue;
    }
    // No split (no device timeline: the breakdown is the profiler's own table): the breakdown's
    // parts, as one rank's report takes them (rules/attribution.cpp): idle = Free + Preparing.
    const auto o = r.facts.find("overall");
    if (o == r.facts.end() || !o->is_object() || i64(*o, "steps") <= 0 || !o->contains("device_time_ns")) continue;
    const int64_t steps = i64(*o, "steps"), bubble = std::min(i64(*o, "bubble_ns"), i64(*o, "comm_not_overlapped_ns"));
    used.push_back(r.rank);
    sum["computing_ns"] += i64(*o, "computing_ns") / steps;
    sum["communication_ns"] += (i64(*o, "comm_not_overlapped_ns") - bubble) / steps;
    sum["bubble_ns"] += bubble / steps;
    sum["idle_ns"] += (i64(*o, "free_ns") + i64(*o, "preparing_ns")) / steps;
  }
  std::string from = with_causes == used.size() ? "each rank's split (facts.idle_attribution)"
                     : with_causes == 0
                         ? "each rank's step breakdown (facts.overall: no device timeline, so no idle causes)"
                         : ranks_of(with_causes, "split") + " (facts.idle_attribution), " +
                               ranks_of(used.size() - with_causes, "step breakdown") + " (facts.overall: no idle causes)";
  size_t rank_count = ranks.size();
  if (used.empty()) {
    // No rank folders (the ranks are known only from the profiler's cluster_step_trace_time.csv):
    // its rows, without idle causes. Idle is Free; communication is not-overlapped less Bubble.
    std::map<int, std::array<int64_t, 5>> per;  // rank -> computing, communication, bubble, idle, steps
    for (const StepRow& r : rows) {
      auto& a = per[r.rank];
      a[0] += r.computing, a[1] += r.comm_not_overlapped - r.bubble, a[2] += r.bubble, a[3] += r.free, a[4] += 1;
    }
    for (const auto& [rank, a] : per) {
      used.push_back(rank);
      for (int k = 0; k < 4; ++k) sum[kParts[k]] += a[static_cast<size_t>(k)] / a[4];
    }
    from = rows_source;
    rank_count = per.size();
  }
  if (used.empty()) return nullptr;
  const int64_t n = static_cast<int64_t>(used.size());
  json out = json::object();
  int64_t step = 0;
  for (const char* k : kParts) step += (out[k] = sum[k] / n).get<int64_t>();
  out["per_step_ns"] = step;
  json causes = json::object();
  for (const auto& [key, v] : sum)
    if (key.rfind("idle.", 0) == 0) causes[key.substr(5)] = v / n;
  out["causes"] = std::move(causes);
  out["ranks"] = used;
  out["rank_count"] = rank_count;
  out["source"] = from;
  out["over"] = "the mean over " + (used.size() == rank_count ? std::to_string(n) : std::to_string(n) + " of " +
                                                                                         std::to_string(rank_count)) +
                " ranks of each rank's mean step";
  return out;
}

}  // namespace npu::cluster
