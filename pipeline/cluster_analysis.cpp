// Cluster analysis: each rank is loaded in a child process that computes its facts and own
// findings, slims them and hands back only that, so memory follows the worker count, not the
// rank count.
#include "pipeline/cluster_analysis.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <optional>

#include "base/input_registry.h"
#include "base/load_error.h"
#include "facts/cluster/cluster_facts.h"
#include "loaders/cluster/cluster_reference_loader.h"
#include "loaders/detect.h"
#include "pipeline/analysis.h"
#include "pipeline/child_processes.h"
#include "pipeline/cluster_membership.h"
#include "pipeline/rank_outcome.h"
#include "pipeline/run_summary.h"
#include "rules/attribution.h"

namespace npu::pipeline {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The single-run rules' findings on one rank's full facts: the rank's own causes, kept compact
// (the top kRankFindings by score, without the long texts the cluster report does not show) and
// merged across ranks by build_cluster_facts (cluster.rank_findings). The rule options were
// checked once by the analysis entry (pipeline/analysis.cpp), so a failure here only means the
// rank has no findings.
constexpr size_t kRankFindings = 10;
json own_findings(const Analysis& a) {
  if (!a.rules_error.empty()) return json::array();
  json out = json::array();
  json ranked = ranked_findings(a.outcomes);
  attribute_savings(ranked, a.facts.doc);  // the rank's savings add up to at most its step, as in its own report
  for (const auto& x : ranked) {
    if (x.value("rule", "").rfind("cluster.", 0) == 0) continue;
    json c = json::object();
    for (const char* k : {"rule", "category", "severity", "title", "observed", "action", "commands", "saving_ns",
                          "saving_ratio", "confidence", "score_ns", "pool"})
      if (x.contains(k)) c[k] = x[k];
    out.push_back(std::move(c));
    if (out.size() == kRankFindings) break;
  }
  return out;
}

json run_list_summary(const std::string& path, const Facts& f) {
  return {{"schema", "npu-advisor.run-summary"},
          {"schema_version", kRunSummarySchemaVersion},
          {"input", f.doc.value("input", json{{"path", path}})}};
}

// The rank id a rank's facts carry (run_rank: run.rank, else distributed_args.rank, else -1).
int rank_of(const json& facts) { return run_rank(facts.value("run", json::object())); }

json cluster_summary(const std::string& path, const std::string& description,
                     const std::vector<cluster::RankFacts>& ranks) {
  json members = json::array();
  for (const auto& r : ranks)
    members.push_back(
        {{"input", {{"path", r.path}, {"kind", "rank"}, {"description", "rank " + std::to_string(r.rank)}}},
         {"rank", r.rank},
         {"steps", r.steps.size()}});
  return {{"schema", "npu-advisor.run-summary"},
          {"schema_version", kRunSummarySchemaVersion},
          {"input", {{"path", path}, {"kind", kClusterKind}, {"description", description}}},
          {"members", members}};
}

// One member of a cluster folder, loaded with one parser thread: its slim facts and own
// findings; its summary and full facts too when it names no rank (the runs of a folder that
// turns out to be no cluster; a real cluster names its ranks, so this stays rare).
// in_child: the full facts are left for the process's exit to take back whole (freeing them node
// by node cost a 100 MB rank of 53,604 steps 0.43 s, a fifth of its analysis).
RankOutcome analyze_member(const std::string& member, const RuleOptions& rules, bool in_child) {
  RankOutcome out;
  try {
    AnalysisOptions opt;
    opt.stop = StopAfter::Rules;
    opt.load.threads = 1;
    opt.rules = rules;
    // A rank with a rank id is only ever a cluster member (nothing of it is drawn or summarised);
    // a run without one may become a run of a run list, with its own full report. An empty rank
    // folder is refused by the entry, as every empty input is.
    opt.summary = Keep::UnlessRanked;
    opt.views = Keep::UnlessRanked;
    opt.if_cluster = "a rank folder holds one run";
    Analysis a = analyze(member, opt);  // the model (events) is gone here; only facts stay
    // In this process, give the freed pages back: the small facts that stay would otherwise pin a
    // whole rank's worth of heap per rank (glibc keeps freed arena memory).
    if (!in_child) malloc_trim(0);
    out.rank = cluster::rank_facts_from(rank_of(a.facts.doc), member, a.facts.doc);
    out.rank.facts["findings"] = own_findings(a);
    if (!a.summary.is_null())
      out.full = RunOfList{member, std::move(a.summary), std::move(a.facts), std::move(a.views)};
    else if (in_child) (void)new Facts(std::move(a.facts));
  } catch (const LoadError& e) {
    out.error = e.what();
  } catch (const std::exception& e) {  // a symlink loop in one member: that member, not std::terminate
    out.error = member + ": " + e.what();
  }
  return out;
}

}  // namespace

ClusterAnalysis analyze_cluster_input(const Detection& d, const LoadSettings& settings, const ClusterOptions& opt) {
  ClusterAnalysis out;
  std::vector<cluster::RankFacts> loaded(d.members.size());
  std::vector<std::string> errors(d.members.size());
  // Members without a rank id keep their full facts and summary: if the folder turns out to be
  // a list of runs, these are the runs.
  std::vector<std::optional<RunOfList>> full(d.members.size());
  // Bounded parallelism: `workers` ranks in flight, each in its own process, so memory stays at
  // a few ranks' worth whatever the cluster size, and a rank's full facts are given back whole
  // when its process exits instead of node by node.
  int workers = std::max(1, std::min<int>(opt.workers, static_cast<int>(d.members.size())));
  // Each rank's result is decoded as its process ends, and its bytes dropped.
  run_in_child_processes(
      d.members.size(), workers,
      [&](size_t i, bool in_child) {
        RankOutcome r = analyze_member(d.members[i], opt.rules, in_child);
        if (in_child) r.input_files = input_file_ids();  // the output check runs in this process
        return encode_rank_outcome(r);
      },
      [&](size_t i, ChildResult&& result) {
        if (!result.error.empty()) {
          errors[i] = d.members[i] + ": " + result.error;
          return;
        }
        RankOutcome r;
        try {
          r = decode_rank_outcome(result.bytes);
        } catch (const std::exception& e) {
          r.error = d.members[i] + ": its analysis result is unreadable (" + e.what() + ")";
        }
        result = ChildResult{};
        for (const auto& [device, inode] : r.input_files) note_input_file_id(device, inode);
        errors[i] = std::move(r.error);
        loaded[i] = std::move(r.rank);
        full[i] = std::move(r.full);
      });

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
  ClusterReference ref = load_cluster_reference(d.path);
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
        AnalysisOptions opt;
        opt.stop = StopAfter::Facts;
        opt.load = settings;
        opt.views = Keep::Always;
        Analysis a = analyze(d.members[i], opt);
        out.runs.push_back(RunOfList{d.members[i], std::move(a.summary), std::move(a.facts), std::move(a.views)});
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
  if (files.empty())
    throw LoadError::whole_file(dir,
                                "no *.facts.json files (write them with `npu-advisor facts RANK -o R.facts.json`)");
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
  AnalysisOptions rules_only;                            // each rank's own findings (the rules through the entry)
  rules_only.stop = StopAfter::Rules;
  rules_only.rules = opt.rules;
  for (size_t i = 0; i < files.size(); ++i) {
    Facts f = read_facts(files[i]);
    if (f.doc.contains("cluster"))
      throw LoadError::whole_file(files[i], "is a cluster facts file; --facts expects one facts file per rank");
    Analysis a = analyze_facts(std::move(f), nullptr, nullptr, rules_only);
    const json& doc = a.facts.doc;
    ranks.push_back(
        cluster::rank_facts_from(rank_of(doc), doc.value("input", json::object()).value("path", files[i]), doc));
    ranks.back().facts["findings"] = own_findings(a);
    if (ranks.back().rank < 0) full[i] = std::move(a.facts);
  }
  ClusterReference ref = load_cluster_reference(dir);
  if (ref.empty()) {
    Membership m = classify_members(ranks, out.warnings);
    if (!m.cluster) {
      out.not_cluster_why = m.why;
      for (size_t i : m.runs) {
        Facts f = full[i] ? std::move(*full[i]) : read_facts(files[i]);
        json summary = run_list_summary(files[i], f);
        out.runs.push_back(RunOfList{ranks[i].path, std::move(summary), std::move(f), nullptr});
      }
      name_one_worker(out);
      return out;
    }
  }
  full.clear();
  ranks = resolve_ranks(std::move(ranks), out.warnings);
  out.facts = cluster::build_cluster_facts(ranks, ref, out.warnings, dir);
  out.summary = cluster_summary(dir, "cluster of " + std::to_string(ranks.size()) + " rank facts files", ranks);
  return out;
}

}  // namespace npu::pipeline
