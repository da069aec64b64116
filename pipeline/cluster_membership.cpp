#include "pipeline/cluster_membership.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "base/text.h"

namespace npu::pipeline {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The capture timestamp in a profiler folder name ("host_1234_20261122093000123_ascend_pt":
// the third segment from the end, like msprof-analyze), else the file's modification time.
std::string folder_timestamp(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= name.size(); ++i)
    if (i == name.size() || name[i] == '_') parts.push_back(name.substr(start, i - start)), start = i + 1;
  if (parts.size() >= 3 && (name.ends_with("_ascend_pt") || name.ends_with("_ascend_ms")))
    return parts[parts.size() - 3];
  std::error_code ec;
  auto t = fs::last_write_time(path, ec);
  return ec ? std::string() : std::to_string(t.time_since_epoch().count());
}

// The worker a run names: profiler_info's worker_name, else the file name
// tensorboard_trace_handler writes, "{worker_name}.{time_ms}.pt.trace.json[.gz]".
std::string worker_of(const RunOfList& r) {
  std::string w = r.facts.doc.value("run", json::object()).value("worker_name", "");
  if (!w.empty()) return w;
  std::string n = fs::path(r.path).filename().string();
  for (const char* ext : {".pt.trace.json.gz", ".pt.trace.json"})
    if (n.ends_with(ext)) {
      n.resize(n.size() - std::string(ext).size());
      size_t dot = n.rfind('.');
      if (dot == std::string::npos || dot == 0 || n.size() - dot - 1 < 10) return "";
      if (n.find_first_not_of("0123456789", dot + 1) != std::string::npos) return "";
      return n.substr(0, dot);
    }
  return "";
}

}  // namespace

std::vector<cluster::RankFacts> resolve_ranks(std::vector<cluster::RankFacts> in, std::vector<std::string>& warnings) {
  std::sort(in.begin(), in.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  std::map<int, cluster::RankFacts> by_rank;
  std::vector<cluster::RankFacts> unknown;
  for (auto& r : in) {
    if (r.rank < 0) {
      unknown.push_back(std::move(r));
      continue;
    }
    auto it = by_rank.find(r.rank);
    if (it == by_rank.end()) {
      by_rank.emplace(r.rank, std::move(r));
      continue;
    }
    bool newer = folder_timestamp(r.path) > folder_timestamp(it->second.path);
    const std::string& kept = newer ? r.path : it->second.path;
    const std::string& dropped = newer ? it->second.path : r.path;
    warnings.push_back("rank " + std::to_string(r.rank) + " appears twice: kept the newest capture " + kept +
                       ", ignored " + dropped);
    if (newer) it->second = std::move(r);
  }
  int next = by_rank.empty() ? 0 : by_rank.rbegin()->first + 1;
  for (auto& r : unknown) {
    warnings.push_back(r.path +
                       ": no rank id (profiler_info_{rank}.json, rank_id, distributedInfo.rank); numbered rank " +
                       std::to_string(next));
    r.rank = next;
    by_rank.emplace(next++, std::move(r));
  }
  std::vector<cluster::RankFacts> out;
  for (auto& [id, r] : by_rank) out.push_back(std::move(r));
  return out;
}

// What is a cluster: ranks only where the files say so (profiler_info_{rank}.json, rank_id,
// Kineto distributedInfo.rank, profiler_metadata.json's distributed_args.rank). Two or more
// distinct rank ids make a cluster; members without an id are then numbered after them
// (resolve_ranks). Fewer make a list of runs: each member without an id is a run of its own
// (unrelated models side by side, or successive captures by tensorboard_trace_handler), and
// members that all carry the same id are captures of that one rank, of which the newest is
// analysed and the others named. Never a cluster: comparing unrelated runs as ranks invents
// slow ranks and hides each run's own causes.

Membership classify_members(const std::vector<cluster::RankFacts>& members, std::vector<std::string>& warnings) {
  std::vector<int> ids;
  std::vector<std::string> paths;
  for (const auto& r : members) ids.push_back(r.rank), paths.push_back(r.path);
  Membership m;
  std::map<int, std::vector<size_t>> by_id;
  std::vector<size_t> unknown;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= 0) by_id[ids[i]].push_back(i);
    else unknown.push_back(i);
  }
  if (by_id.size() >= 2) {
    m.cluster = true;
    return m;
  }
  m.runs = unknown;
  if (by_id.size() == 1) {
    auto& [id, caps] = *by_id.begin();
    size_t newest = caps[0];
    for (size_t i : caps)
      if (folder_timestamp(paths[i]) > folder_timestamp(paths[newest])) newest = i;
    m.runs.push_back(newest);
    if (caps.size() > 1) {
      std::string others, older;
      size_t named = 0;
      for (size_t i : caps) {
        if (i == newest) continue;
        if (older.empty()) older = paths[i];
        if (named++ < 3) others += (others.empty() ? "" : ", ") + paths[i];
      }
      if (named > 3) others += " and " + std::to_string(named - 3) + " more";
      warnings.push_back(std::to_string(caps.size()) + " members are captures of the same rank " + std::to_string(id) +
                         " (one rank id, so not a cluster): analysed the newest, " + paths[newest] +
                         "; not analysed: " + others + " (`npu-advisor compare " + text::shell_word(older) + " " +
                         text::shell_word(paths[newest]) + "` compares two captures)");
    }
  }
  std::sort(m.runs.begin(), m.runs.end(), [&](size_t a, size_t b) { return paths[a] < paths[b]; });
  const size_t n = ids.size();
  m.why = by_id.empty()
              ? std::to_string(n) +
                    " runs and none names a rank id (profiler_info_{rank}.json, rank_id, distributedInfo.rank, "
                    "distributed_args.rank): separate runs, each analysed on its own, not ranks of one job"
              : "the members name only rank " + std::to_string(by_id.begin()->first) +
                    ": not ranks of one job; each run is analysed on its own";
  return m;
}

void name_one_worker(ClusterAnalysis& out) {
  if (out.runs.size() < 2) return;
  std::string w = worker_of(out.runs[0]);
  for (const auto& r : out.runs)
    if (w.empty() || worker_of(r) != w) return;
  out.not_cluster_why =
      std::to_string(out.runs.size()) + " captures of one worker (" + w +
      ") and no rank id: successive runs of the same process, each analysed on its own, not ranks of one job";
}

}  // namespace npu::pipeline
