// Cluster inputs: a parent folder of rank folders / traces (the direct analysis), a folder of
// per-rank facts files (the reduce step of map/reduce), and msprof-analyze's
// cluster_analysis_output (the reference). Only facts are kept per rank, never events: each
// worker loads a rank, computes its facts, slims them and drops the model before the next.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "cli/commands.h"
#include "core/cluster/cluster_facts.h"
#include "core/diagnostics/diagnostics.h"
#include "loaders/communication_loader.h"
#include "loaders/load_error.h"

namespace npu::cli {
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
  if (parts.size() >= 3 && (name.ends_with("_ascend_pt") || name.ends_with("_ascend_ms"))) return parts[parts.size() - 3];
  std::error_code ec;
  auto t = fs::last_write_time(path, ec);
  return ec ? std::string() : std::to_string(t.time_since_epoch().count());
}

// One rank per id: duplicates keep the newest capture (with a warning); ranks without an id
// get the next free ids, in path order.
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
    warnings.push_back(r.path + ": no rank id (profiler_info_{rank}.json, rank_id, distributedInfo.rank); numbered rank " +
                       std::to_string(next));
    r.rank = next;
    by_rank.emplace(next++, std::move(r));
  }
  std::vector<cluster::RankFacts> out;
  for (auto& [id, r] : by_rank) out.push_back(std::move(r));
  return out;
}

cluster::ClusterReference load_reference(const std::string& path) {
  cluster::ClusterReference ref;
  fs::path dir = path;
  if (!fs::is_regular_file(dir / "cluster_step_trace_time.csv") && !fs::is_regular_file(dir / "cluster_communication.json"))
    dir = dir / "cluster_analysis_output";
  if (!fs::is_directory(dir)) return ref;
  ref.dir = dir.string();
  auto take = [&](const char* name) {
    fs::path p = dir / name;
    if (!fs::is_regular_file(p)) return std::string();
    ref.files.push_back(p.string());
    return p.string();
  };
  if (auto p = take("cluster_step_trace_time.csv"); !p.empty()) ref.rank_steps = load_cluster_step_trace_time(p);
  if (auto p = take("cluster_communication.json"); !p.empty()) ref.ops = load_cluster_communication_ops(p);
  if (auto p = take("cluster_communication_matrix.json"); !p.empty()) ref.links = load_cluster_communication_links(p);
  if (auto p = take("communication_group.json"); !p.empty()) ref.groups = load_communication_groups(p);
  return ref;
}

// The rank id a rank's facts carry: run.rank (profiler_info_{rank}.json, its rank_id, Kineto
// distributedInfo.rank), else profiler_metadata.json's distributed_args.rank, else -1.
int rank_of(const json& facts) {
  const json run = facts.value("run", json::object());
  int rank = run.value("rank", -1);
  if (rank >= 0) return rank;
  const json dist = run.value("distributed", json::object());
  if (auto it = dist.find("rank"); it != dist.end()) {
    std::string t = it->is_string() ? it->get<std::string>() : it->dump();
    int v = -1;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc() && p == t.data() + t.size() && v >= 0) return v;
  }
  return -1;
}

json cluster_summary(const std::string& path, const std::string& description, const std::vector<cluster::RankFacts>& ranks) {
  json members = json::array();
  for (const auto& r : ranks)
    members.push_back({{"input", {{"path", r.path}, {"kind", "rank"}, {"description", "rank " + std::to_string(r.rank)}}},
                       {"rank", r.rank},
                       {"steps", r.steps.size()}});
  return {{"schema", "npu-advisor.run-summary"},
          {"schema_version", 1},
          {"input", {{"path", path}, {"kind", to_string(InputKind::Cluster)}, {"description", description}}},
          {"members", members}};
}

}  // namespace

ClusterAnalysis analyze_cluster_input(const Detection& d, const CommonOptions& common, const ClusterOptions& opt) {
  ClusterAnalysis out;
  std::vector<cluster::RankFacts> loaded(d.members.size());
  std::vector<std::string> errors(d.members.size());
  std::atomic<size_t> next{0};
  // Bounded parallelism: `workers` ranks in flight, each parsing with one thread, so memory
  // stays at a few ranks' worth whatever the cluster size.
  auto work = [&] {
    for (size_t i = next++; i < d.members.size(); i = next++) {
      try {
        Detection md = detect_input(d.members[i]);
        LoadOptions lo;
        lo.trace.threads = 1;
        Facts f;
        {
          RunModel m = load_run(md, lo);
          // An empty rank folder is no rank: 200 of them made a cluster report of zeros, exit 0.
          if (m.stats.trace_events == 0 && m.slices.empty() && m.kernels.empty() && m.step_trace.empty())
            throw LoadError::whole_file(d.members[i], "holds no profiler data (no trace events, kernels or step times)");
          f = compute_facts(m);
        }  // the model (events) is gone here; only facts stay
        // Give the freed pages back: the small facts that stay would otherwise pin a whole rank's
        // worth of heap per rank (glibc keeps freed arena memory), and RSS would grow with the
        // rank count instead of the worker count.
        malloc_trim(0);
        f.doc["input"] = {{"path", d.members[i]}, {"kind", to_string(md.kind)}, {"description", md.description}};
        loaded[i] = cluster::rank_facts_from(rank_of(f.doc), d.members[i], f.doc);
      } catch (const LoadError& e) {
        errors[i] = e.what();
      } catch (const std::exception& e) {  // a symlink loop in one member: that member, not std::terminate
        errors[i] = d.members[i] + ": " + e.what();
      }
    }
  };
  int workers = std::max(1, std::min<int>(opt.workers, static_cast<int>(d.members.size())));
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();

  std::vector<cluster::RankFacts> ranks;
  for (size_t i = 0; i < loaded.size(); ++i) {
    if (!errors[i].empty()) {
      out.warnings.push_back("rank folder skipped: " + errors[i]);
      out.member_failed = true;
    } else {
      ranks.push_back(std::move(loaded[i]));
    }
  }
  ranks = resolve_ranks(std::move(ranks), out.warnings);
  cluster::ClusterReference ref = load_reference(d.path);
  if (ranks.empty() && ref.empty())
    throw LoadError::whole_file(d.path, "no rank could be loaded and there is no cluster_analysis_output");
  out.facts = cluster::build_cluster_facts(ranks, ref, out.warnings, d.path);
  out.summary = cluster_summary(d.path, d.description, ranks);
  return out;
}

ClusterAnalysis reduce_facts_dir(const std::string& dir, const ClusterOptions& opt) {
  if (!fs::is_directory(dir)) throw LoadError::whole_file(dir, "--facts expects a folder of *.facts.json files");
  std::vector<std::string> files, missing;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (!e.is_regular_file()) continue;
    if (name.ends_with(".facts.json")) files.push_back(e.path().string());
    if (name.ends_with(".facts.missing")) missing.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::sort(missing.begin(), missing.end());
  if (files.empty() && !missing.empty())
    throw LoadError::whole_file(dir, "no rank has facts: " + std::to_string(missing.size()) +
                                         " *.facts.missing files say why (" + missing.front() + ", ...)");
  if (files.empty()) throw LoadError::whole_file(dir, "no *.facts.json files (write them with `npu-advisor facts RANK -o R.facts.json`)");
  ClusterAnalysis out;
  // A map step that could not write a rank's facts leaves NAME.facts.missing holding
  // "RANK_PATH: why" (scripts/scale-out/): the rank is reported skipped, as the direct analysis
  // reports a rank folder that failed to load, and the exit code says the cluster is partial.
  for (const auto& file : missing) {
    std::ifstream in(file);
    std::string why;
    std::getline(in, why);
    if (why.empty()) why = file + ": no facts (the file says nothing more)";
    out.warnings.push_back("rank folder skipped: " + why);
    out.member_failed = true;
  }
  std::vector<cluster::RankFacts> ranks;
  for (const auto& file : files) {
    Facts f = read_facts(file);
    if (f.doc.contains("cluster"))
      throw LoadError::whole_file(file, "is a cluster facts file; --facts expects one facts file per rank");
    ranks.push_back(cluster::rank_facts_from(rank_of(f.doc), f.doc.value("input", json::object()).value("path", file), f.doc));
  }
  ranks = resolve_ranks(std::move(ranks), out.warnings);
  cluster::ClusterReference ref = load_reference(dir);
  (void)opt;
  out.facts = cluster::build_cluster_facts(ranks, ref, out.warnings, dir);
  out.summary = cluster_summary(dir, "cluster of " + std::to_string(ranks.size()) + " rank facts files", ranks);
  return out;
}

}  // namespace npu::cli
