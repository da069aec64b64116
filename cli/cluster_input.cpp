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
#include <optional>
#include <thread>

#include "cli/commands.h"
#include "pipeline/input_stamp.h"
#include "facts/cluster/cluster_facts.h"
#include "facts/diagnostics/diagnostics.h"
#include "loaders/analysis_db_comm_loader.h"
#include "rules/attribution.h"
#include "loaders/communication_loader.h"
#include "base/load_error.h"
#include "reports/run_summary.h"

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

// What is a cluster: ranks only where the files say so (profiler_info_{rank}.json, rank_id,
// Kineto distributedInfo.rank, profiler_metadata.json's distributed_args.rank). Two or more
// distinct rank ids make a cluster; members without an id are then numbered after them
// (resolve_ranks). Fewer make a list of runs: each member without an id is a run of its own
// (unrelated models side by side, or successive captures by tensorboard_trace_handler), and
// members that all carry the same id are captures of that one rank, of which the newest is
// analysed and the others named. Never a cluster: comparing unrelated runs as ranks invents
// slow ranks and hides each run's own causes.
struct Membership {
  bool cluster = false;
  std::string why;            // list of runs: why it is not a cluster
  std::vector<size_t> runs;   // list of runs: the members to analyse, in path order
};

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
      std::string others;
      size_t named = 0;
      for (size_t i : caps) {
        if (i == newest) continue;
        if (named++ < 3) others += (others.empty() ? "" : ", ") + paths[i];
      }
      if (named > 3) others += " and " + std::to_string(named - 3) + " more";
      warnings.push_back(std::to_string(caps.size()) + " members are captures of the same rank " + std::to_string(id) +
                         " (one rank id, so not a cluster): analysed the newest, " + paths[newest] + "; not analysed: " +
                         others + " (`npu-advisor compare OLDER NEWER` compares two captures)");
    }
  }
  std::sort(m.runs.begin(), m.runs.end(), [&](size_t a, size_t b) { return paths[a] < paths[b]; });
  const size_t n = ids.size();
  m.why = by_id.empty()
              ? std::to_string(n) + " runs and none names a rank id (profiler_info_{rank}.json, rank_id, distributedInfo.rank, "
                                    "distributed_args.rank): separate runs, each analysed on its own, not ranks of one job"
              : "the members name only rank " + std::to_string(by_id.begin()->first) +
                    ": not ranks of one job; each run is analysed on its own";
  return m;
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

// Runs that all name the same worker are successive captures of one process: said, so nobody
// reads them as ranks (tensorboard_trace_handler writes one file per capture).
void name_one_worker(ClusterAnalysis& out) {
  if (out.runs.size() < 2) return;
  std::string w = worker_of(out.runs[0]);
  for (const auto& r : out.runs)
    if (w.empty() || worker_of(r) != w) return;
  out.not_cluster_why = std::to_string(out.runs.size()) + " captures of one worker (" + w +
                        ") and no rank id: successive runs of the same process, each analysed on its own, not ranks of one job";
}

// The single-run rules on one rank's full facts: the rank's own causes, kept compact (the top
// kRankFindings by score, without the long texts the cluster report does not show) and merged
// across ranks by build_cluster_facts (cluster.rank_findings). The rule options were checked
// once by cmd_analyze, so a failure here only means the rank has no findings.
constexpr size_t kRankFindings = 10;
json own_findings(const Facts& f, const RuleOptions& rules) {
  RuleEngine engine;
  std::vector<RuleOutcome> outcomes;
  if (run_rules(engine, f, rules, &outcomes) != kOk) return json::array();
  json out = json::array();
  json ranked = ranked_findings(outcomes);
  attribute_savings(ranked, f.doc);  // the rank's savings add up to at most its step, as in its own report
  for (const auto& x : ranked) {
    if (x.value("rule", "").rfind("cluster.", 0) == 0) continue;
    json c = json::object();
    for (const char* k : {"rule", "category", "severity", "title", "observed", "action", "commands", "saving_ns", "saving_ratio",
                          "confidence", "score_ns"})
      if (x.contains(k)) c[k] = x[k];
    out.push_back(std::move(c));
    if (out.size() == kRankFindings) break;
  }
  return out;
}

json run_list_summary(const std::string& path, const Facts& f) {
  return {{"schema", "npu-advisor.run-summary"}, {"schema_version", kRunSummarySchemaVersion}, {"input", f.doc.value("input", json{{"path", path}})}};
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
  if (auto p = take("cluster_step_trace_time.csv"); !p.empty()) {
    ref.rank_steps = load_cluster_step_trace_time(p);
    ref.stages = load_cluster_pipeline_stages(p);
  }
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
          {"schema_version", kRunSummarySchemaVersion},
          {"input", {{"path", path}, {"kind", to_string(InputKind::Cluster)}, {"description", description}}},
          {"members", members}};
}

}  // namespace

ClusterAnalysis analyze_cluster_input(const Detection& d, const CommonOptions& common, const ClusterOptions& opt) {
  ClusterAnalysis out;
  std::vector<cluster::RankFacts> loaded(d.members.size());
  std::vector<std::string> errors(d.members.size());
  // Members without a rank id keep their full facts and summary: if the folder turns out to be
  // a list of runs, these are the runs (a real cluster names its ranks, so this stays small).
  std::vector<std::optional<RunOfList>> full(d.members.size());
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
        json summary;
        {
          RunModel m = load_run(md, lo);
          // An empty rank folder is no rank: 200 of them made a cluster report of zeros, exit 0.
          if (m.stats.trace_events == 0 && m.slices.empty() && m.kernels.empty() && m.step_trace.empty())
            throw LoadError::whole_file(d.members[i], "holds no profiler data (no trace events, kernels or step times)");
          f = compute_facts(m);
          pipeline::stamp_input(f, d.members[i], md);
          if (rank_of(f.doc) < 0) summary = summarize_run(m, md);
        }  // the model (events) is gone here; only facts stay
        // Give the freed pages back: the small facts that stay would otherwise pin a whole rank's
        // worth of heap per rank (glibc keeps freed arena memory), and RSS would grow with the
        // rank count instead of the worker count.
        malloc_trim(0);
        loaded[i] = cluster::rank_facts_from(rank_of(f.doc), d.members[i], f.doc);
        loaded[i].facts["findings"] = own_findings(f, opt.rules);
        if (!summary.is_null()) full[i] = RunOfList{d.members[i], std::move(summary), std::move(f)};
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
  std::vector<size_t> member_of;  // ranks[k] is d.members[member_of[k]]
  for (size_t i = 0; i < loaded.size(); ++i) {
    if (!errors[i].empty()) {
      out.warnings.push_back("rank folder skipped: " + errors[i]);
      out.member_failed = true;
    } else {
      ranks.push_back(std::move(loaded[i]));
      member_of.push_back(i);
    }
  }
  cluster::ClusterReference ref = load_reference(d.path);
  if (ref.empty() && !ranks.empty()) {
    Membership m = classify_members(ranks, out.warnings);
    if (!m.cluster) {
      out.not_cluster_why = m.why;
      for (size_t k : m.runs) {
        size_t i = member_of[k];
        if (full[i]) {
          out.runs.push_back(std::move(*full[i]));
          continue;
        }
        // A capture with a rank id (the newest of one rank): its full facts were not kept.
        Detection md = detect_input(d.members[i]);
        RunModel model = load_run_for_cli(md, common);
        Facts f = compute_facts(model);
        pipeline::stamp_input(f, d.members[i], md);
        out.runs.push_back(RunOfList{d.members[i], summarize_run(model, md), std::move(f)});
      }
      name_one_worker(out);
      return out;
    }
  }
  full.clear();
  ranks = resolve_ranks(std::move(ranks), out.warnings);
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
  std::vector<std::optional<Facts>> full(files.size());  // facts without a rank id: the runs, if not a cluster
  for (size_t i = 0; i < files.size(); ++i) {
    Facts f = read_facts(files[i]);
    if (f.doc.contains("cluster"))
      throw LoadError::whole_file(files[i], "is a cluster facts file; --facts expects one facts file per rank");
    ranks.push_back(cluster::rank_facts_from(rank_of(f.doc), f.doc.value("input", json::object()).value("path", files[i]), f.doc));
    ranks.back().facts["findings"] = own_findings(f, opt.rules);
    if (ranks.back().rank < 0) full[i] = std::move(f);
  }
  cluster::ClusterReference ref = load_reference(dir);
  if (ref.empty()) {
    Membership m = classify_members(ranks, out.warnings);
    if (!m.cluster) {
      out.not_cluster_why = m.why;
      for (size_t i : m.runs) {
        Facts f = full[i] ? std::move(*full[i]) : read_facts(files[i]);
        json summary = run_list_summary(files[i], f);
        out.runs.push_back(RunOfList{ranks[i].path, std::move(summary), std::move(f)});
      }
      name_one_worker(out);
      return out;
    }
  }
  full.clear();
  ranks = resolve_ranks(std::move(ranks), out.warnings);
  (void)opt;
  out.facts = cluster::build_cluster_facts(ranks, ref, out.warnings, dir);
  out.summary = cluster_summary(dir, "cluster of " + std::to_string(ranks.size()) + " rank facts files", ranks);
  return out;
}

}  // namespace npu::cli
