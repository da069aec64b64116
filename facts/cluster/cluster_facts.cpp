#include "facts/cluster/cluster_facts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/text.h"
#include "facts/cluster/cluster_parts.h"
#include "facts/cluster/dixon.h"
#include "facts/communication_records.h"

namespace npu::cluster {
namespace {

// ---- each rank's own causes, merged ------------------------------------------------------

// The single-run findings of every rank (RankFacts.facts["findings"], pipeline/cluster_analysis.cpp),
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
                   {"commands", t.value("commands", json::array())},
                   {"pool", t.value("pool", "")}});
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return dbl(a, "saving_median_ns") * dbl(a, "confidence") > dbl(b, "saving_median_ns") * dbl(b, "confidence");
  });
  return out;
}

json agreement_with_reference(const std::vector<StepRow>& ours, const ClusterReference& ref) {
  if (ref.rank_steps.empty() || ours.empty()) return nullptr;
  std::map<std::pair<int, std::string>, const ClusterStepRow*> theirs;
  for (const auto& r : ref.rank_steps) theirs[{r.rank, step_text(r.step)}] = &r;
  int64_t worst = 0;
  json worst_at;
  int compared = 0;
  for (const auto& r : ours) {
    auto it = theirs.find({r.rank, step_text(r.step)});
    if (it == theirs.end()) continue;
    ++compared;
    for (size_t m = 0; m < std::size(kMetrics); ++m) {
      int64_t d = std::llabs(r.*kMetricFields[m] - it->second->*kReferenceMetricFields[m]);
      if (d > worst) worst = d, worst_at = {{"rank", r.rank}, {"step", step_json(r.step)}, {"metric", kMetrics[m]}};
    }
  }
  return {{"rows_compared", compared},
          {"max_abs_diff_ns", worst},
          {"worst", worst_at},
          {"file", "cluster_step_trace_time.csv"}};
}

}  // namespace

json standard_bandwidth() { return {{"HCCS", 18.0}, {"SDMA", 18.0}, {"PCIE", 20.0}, {"RDMA", 12.5}}; }

namespace {
// `o` without the members `keys` (copied member by member: the dropped ones are never copied).
json without(const json& o, std::initializer_list<const char*> keys) {
  if (!o.is_object()) return o;
  json out = json::object();
  for (const auto& item : o.items()) {
    const std::string& k = item.key();  // a plain name: clang 14 cannot capture a structured binding
    if (std::none_of(keys.begin(), keys.end(), [&](const char* x) { return k == x; })) out[k] = item.value();
  }
  return out;
}
}  // namespace

RankFacts rank_facts_from(int rank, std::string path, const json& facts) {
  RankFacts out;
  out.rank = rank;
  out.path = std::move(path);
  json s = json::object();
  for (const char* k : {"schema", "schema_version", "overall", "unavailable", "input", "findings"})
    if (facts.contains(k)) s[k] = facts[k];
  // Communication: its records as the model's rows (facts/communication_records.h), the rest as it is.
  if (auto c = facts.find("communication"); c != facts.end()) {
    if (c->is_object()) {
      if (auto ops = c->find("ops"); ops != c->end()) out.comm_ops = comm_ops_from_json(*ops);
      if (rank >= 0)
        for (CommOp& op : out.comm_ops) op.rank = rank;
      if (auto links = c->find("links"); links != c->end())
        out.links = without_self_links(comm_links_from_json(*links));
    }
    s["communication"] = without(*c, {"ops", "links"});
  }
  // The split's totals, not its per-step rows (cluster.step_split reads the totals).
  if (auto a = facts.find("idle_attribution"); a != facts.end() && a->is_object())
    s["idle_attribution"] = without(*a, {"by_step"});
  if (facts.contains("run")) {
    s["run"] = json::object();
    for (const char* k : {"framework", "source_format", "rank", "device", "profiler_level", "worker_name", "platform",
                          "parallel_groups"})
      if (facts["run"].contains(k)) s["run"][k] = facts["run"][k];
  }
  // Read in place: value() would copy the whole steps array (a 100 MB rank of 53,604 steps
  // spent 0.3 s copying and freeing it, more than its load).
  static const json kNoSteps = json::array();
  auto steps = facts.find("steps");
  for (const auto& st : steps != facts.end() ? *steps : kNoSteps) {
    StepRow r;
    r.rank = rank;
    r.step = st.contains("id") && st["id"].is_number_integer() ? st["id"].get<int64_t>() : StepRow::kNoStep;
    r.computing = i64(st, "computing_ns"), r.comm_not_overlapped = i64(st, "comm_not_overlapped_ns"),
    r.free = i64(st, "free_ns");
    r.communication = i64(st, "communication_ns"), r.overlapped = i64(st, "overlapped_ns"),
    r.device_time = i64(st, "device_time_ns");
    r.bubble = i64(st, "bubble_ns");
    out.steps.push_back(r);
  }
  out.facts = std::move(s);
  return out;
}

namespace {

// facts.run of the cluster: its inputs (the ranks and the reference files), the discovery
// warnings, and the ranks' rejected records (a rank whose loaders dropped records makes the
// cluster partial as well).
json cluster_run(const std::vector<RankFacts>& ranks, const ClusterReference& ref,
                 const std::vector<std::string>& warnings) {
  json run = {{"framework", ranks.empty() ? std::string("torch_npu")
                                          : ranks[0].facts.value("run", json::object()).value("framework", "")},
              {"source_format", "cluster"},
              {"rank", -1},
              {"device", -1}};
  json inputs = json::array();
  for (const auto& r : ranks)
    inputs.push_back({{"role", "rank " + std::to_string(r.rank)},
                      {"status", "loaded"},
                      {"path", r.path},
                      {"bytes", 0},
                      {"records", r.steps.size()},
                      {"note", "rank facts"}});
  for (const auto& file : ref.files)
    inputs.push_back({{"role", "cluster_analysis_output"},
                      {"status", "loaded"},
                      {"path", file},
                      {"bytes", 0},
                      {"records", 0},
                      {"note", "the profiler's own cluster analysis (reference)"}});
  run["inputs"] = inputs;
  run["warnings"] = warnings;
  json rejected = json::array();
  for (const auto& r : ranks)
    for (const auto& x : r.facts.value("run", json::object()).value("rejected", json::array()))
      rejected.push_back("rank " + std::to_string(r.rank) + ": " + x.get<std::string>());
  run["rejected"] = std::move(rejected);
  return run;
}

// The folder holding the ranks (their paths' common parent): what commands name as the job's
// profiling folder. Not `input`, which is the facts folder for `analyze --facts`. "" when none.
std::string job_dir(const std::vector<RankFacts>& ranks) {
  if (ranks.empty()) return "";
  std::string common = ranks[0].path;
  for (const auto& r : ranks) {
    size_t n = 0;
    while (n < common.size() && n < r.path.size() && common[n] == r.path[n]) ++n;
    common.resize(n);
  }
  if (ranks.size() == 1 || common.empty() || common.back() != '/') {
    auto slash = common.rfind('/');
    return slash == std::string::npos ? std::string() : common.substr(0, slash);
  }
  common.pop_back();
  return common;
}

// The rank x step table (evenly spaced steps when there are many) and the median step time.
void step_table(json& c, const std::vector<StepRow>& rows) {
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
    c["rank_steps_sampled"] = {{"steps_total", ids.size()},
                               {"steps_shown", shown.size()},
                               {"note", "evenly spaced steps; every total, spread and verdict uses all steps"}};
  std::vector<double> dev;
  for (const auto& r : rows) dev.push_back(static_cast<double>(r.device_time));
  if (!dev.empty())
    c["step_time"] = {{"median_ns", static_cast<int64_t>(std::llround(median(dev)))}, {"rows", dev.size()}};
}

// What the slow-rank verdict takes from the communication: Dixon votes per rank and the groups.
struct CommVotes {
  std::map<int, int> votes;
  int judged = 0;
  json groups = json::array();
};

// cluster.communication, bandwidth, small_packets, retransmission (from the operator records)
// and cluster.links.
CommVotes communication_sections(Facts& f, json& c, const std::vector<RankFacts>& ranks, const ClusterReference& ref) {
  CommVotes v;
  std::string ops_source;
  std::vector<CommOp> ops = communication_ops(ranks, ref, ops_source);
  if (!ops.empty()) {
    json comm;
    comm["source"] = ops_source;
    comm["op_records"] = ops.size();
    json table = judge_ops(ops, v.votes, v.judged);
    comm["ops_judged"] = v.judged;
    comm["ops_count"] = table.size();
    if (table.size() > 30) table.erase(table.begin() + 30, table.end());
    comm["top_ops"] = table;
    v.groups = groups_table(ops);
    comm["groups"] = v.groups;
    c["communication"] = comm;
    c["bandwidth"] = bandwidth_table(ops);
    c["small_packets"] = small_packets(ops);
    c["retransmission"] = retransmission(ops);
    std::vector<CommOp>().swap(ops);  // every rank's records, copied with the rank ids: not kept for the links
  } else {
    f.unavailable("cluster.communication", "no " + std::string(role_name(Role::Communication)) +
                                               " (or analysis.db CommAnalyzer* tables) in the ranks and no "
                                               "cluster_communication.json (profiler_level Level1+)");
    f.unavailable("cluster.bandwidth",
                  "no " + std::string(role_name(Role::Communication)) + ": bandwidth per transport unknown");
    f.unavailable("cluster.small_packets",
                  "no " + std::string(role_name(Role::Communication)) + ": transfer sizes unknown");
  }
  json links = link_section(ranks, ref);
  if (links["count"].get<size_t>() > 0) {
    if (links["list"].size() > 50) links["list"].erase(links["list"].begin() + 50, links["list"].end());
    c["links"] = links;
  } else {
    f.unavailable("cluster.links", "no " + std::string(role_name(Role::CommunicationMatrix)) +
                                       " in the ranks and no cluster_communication_matrix.json");
  }
  return v;
}

// cluster.slow_rank, with the slow rank's own causes next to the verdict: what to fix on it.
void slow_rank_section(Facts& f, json& c, const std::vector<RankFacts>& ranks, const json& rank_rows,
                       const json& robust, const CommVotes& v, const std::map<int, int>& stage_of) {
  if (rank_rows.empty() || (rank_rows.size() < 3 && v.judged == 0)) {
    f.unavailable("cluster.slow_rank", "needs at least 3 ranks with steps (or collectives judged across ranks)");
    return;
  }
  c["slow_rank"] = slow_rank_verdict(rank_rows, robust, v.votes, v.judged, v.groups, stage_of);
  const int sr = c["slow_rank"]["rank"].get<int>();
  if (sr < 0) return;
  for (const auto& r : ranks)
    if (r.rank == sr && r.facts.contains("findings")) {
      json own = json::array();
      for (const auto& x : r.facts["findings"]) {
        if (own.size() == 3) break;
        own.push_back({{"rule", x.value("rule", "")},
                       {"title", x.value("title", "")},
                       {"saving_ns", i64(x, "saving_ns")},
                       {"observed", x.value("observed", "")}});
      }
      c["slow_rank"]["own_findings"] = own;
    }
}

// What the profiler's own cluster analysis adds: its groups, and how our steps agree with its rows.
void reference_section(json& c, const ClusterReference& ref, const std::vector<StepRow>& rows,
                       const std::string& rows_source) {
  if (!ref.groups.empty()) {
    c["reference_groups"] = json::array();
    for (const ClusterCommGroup& g : ref.groups)
      c["reference_groups"].push_back({{"kind", g.kind}, {"ranks", g.ranks}});
  }
  if (ref.empty()) return;
  c["reference"] = {{"dir", ref.dir}, {"files", ref.files}};
  if (json a =
          agreement_with_reference(rows_source == "cluster_step_trace_time.csv" ? std::vector<StepRow>{} : rows, ref);
      !a.is_null())
    c["reference"]["agreement"] = a;
}

}  // namespace

Facts build_cluster_facts(const std::vector<RankFacts>& ranks, const ClusterReference& ref,
                          const std::vector<std::string>& warnings, const std::string& input_path) {
  Facts f;
  f.doc["schema"] = kFactsSchema;
  f.doc["schema_version"] = kFactsSchemaVersion;
  f.doc["unavailable"] = json::array();
  f.doc["run"] = cluster_run(ranks, ref, warnings);
  // The command names a real rank folder, not a placeholder.
  const std::string rank_dir = ranks.empty() || ranks[0].path.empty() ? "" : text::shell_word(ranks[0].path);
  for (const char* s : {"steps", "overall", "dispatch", "operators", "operator_health", "memory"})
    f.unavailable(s, "cluster report: single-rank checks run on each rank (" +
                         (rank_dir.empty() ? std::string("npu-advisor analyze on a rank's folder")
                                           : "npu-advisor analyze " + rank_dir + ", and each other rank's folder") +
                         ")");

  json c;
  c["input"] = input_path;
  if (std::string dir = job_dir(ranks); !dir.empty()) c["job_dir"] = dir;
  c["warnings"] = warnings;
  std::string rows_source;
  std::vector<StepRow> rows = rank_step_rows(ranks, ref, rows_source);
  const Alignment alignment = align_steps(rows);
  const std::vector<StepRow> aligned = aligned_rows(rows, alignment);
  json rank_rows = rank_table(rows, aligned, ranks);
  c["rank_count"] = rank_rows.size();
  c["ranks"] = rank_rows;
  c["rank_steps_source"] = rows_source;
  step_table(c, rows);
  if (rows.empty()) {
    // Say why, in the first rank's own words.
    std::string why = "no rank has a step breakdown and there is no cluster_step_trace_time.csv";
    if (!ranks.empty())
      for (const auto& u : ranks[0].facts.value("unavailable", json::array()))
        if (u.value("fact", "") == "steps")
          why += " (rank " + std::to_string(ranks[0].rank) + ": " + u.value("why", "") + ")";
    f.unavailable("cluster.rank_steps", why);
  }
  if (!rows.empty()) c["alignment"] = alignment.to_json(rank_rows.size());
  const std::map<int, int> stage_of = stage_map(ref);
  c["spread"] = spread(aligned, stage_of);
  if (json p = pipeline_section(aligned, ref, stage_of); !p.is_null()) c["pipeline"] = std::move(p);
  json robust = robust_stats(rank_rows);
  c["robust"] = robust;

  const CommVotes votes = communication_sections(f, c, ranks, ref);
  if (json split = step_split(ranks, rows, rows_source); !split.is_null()) c["step_split"] = std::move(split);
  else f.unavailable("cluster.step_split", "no rank has a step split (facts.idle_attribution) or step rows");
  json merged = merge_rank_findings(ranks);
  if (!merged.empty()) c["rank_findings"] = merged;
  slow_rank_section(f, c, ranks, rank_rows, robust, votes, stage_of);
  if (json named = parallel_groups_section(ranks, ref); !named.empty()) {
    c["parallel_groups"] = std::move(named);
    name_groups(c);
  }
  reference_section(c, ref, rows, rows_source);
  f.doc["cluster"] = std::move(c);
  return f;
}

}  // namespace npu::cluster
