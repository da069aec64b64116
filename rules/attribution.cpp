#include "rules/attribution.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "facts/facts_schema.h"
#include "facts/whatif/transforms.h"

namespace npu {

using nlohmann::json;

namespace {

constexpr double kFloorNs = 1000;  // 1 us per step: a saving that prints as 0.000 ms is no finding

struct Pools {
  bool available = false;
  std::string source, why;
  std::string over;  // a cluster's: over which ranks the step is a mean
  double step = 0;   // per step: the mean over `steps`
  int64_t steps = 0;
  std::map<std::string, double> budget;
  json parts = json::object();
  json idle_causes = json::array();
};

double per_step(const json& o, const char* key, double steps) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() / steps : 0.0;
}

// The idle cause pools ("idle.<cause>", per step) and the causes listed largest first;
// `per_step` reads a cause's time per step from its entry.
template <class PerStep>
void add_causes(Pools& p, const json& causes_of, PerStep per_step) {
  std::vector<std::pair<double, std::string>> causes;
  for (const auto& [name, c] : causes_of.items()) {
    const double ns = per_step(c);
    p.budget["idle." + name] = ns;
    if (ns > 0) causes.push_back({ns, name});
  }
  std::stable_sort(causes.begin(), causes.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (const auto& [ns, name] : causes) p.idle_causes.push_back({{"cause", name}, {"ns", static_cast<int64_t>(ns)}});
}

// The parts of the step (per step) and the pools they fund: communication with the bubble.
// copies: GPU runs' memcpy/memset time no kernel overlaps (its own part and pool); negative
// where the run has no such part (Ascend).
void set_parts(Pools& p, double computing, double communication, double bubble, double idle, double step,
               double copies = -1) {
  p.available = true;
  p.budget = {{"compute", computing}, {"communication", communication + bubble}, {"idle", idle}};
  p.step = step;
  p.parts = {{"computing_ns", static_cast<int64_t>(computing)},
             {"communication_ns", static_cast<int64_t>(communication)},
             {"bubble_ns", static_cast<int64_t>(bubble)},
             {"idle_ns", static_cast<int64_t>(idle)}};
  if (copies >= 0) {
    p.budget["copies"] = copies;
    p.parts["copies_ns"] = static_cast<int64_t>(copies);
  }
}

// A part only GPU runs have: its time per step, or -1 where the section does not write it.
double optional_per_step(const json& o, const char* key, double steps) {
  return o.contains(key) ? per_step(o, key, steps) : -1.0;
}

// From facts.idle_attribution: every part of the step, and idle by cause.
Pools pools_from_split(const json& a) {
  Pools p;
  const double steps = a.value("steps", 0.0);
  if (steps <= 0) return p;
  p.steps = static_cast<int64_t>(steps);
  p.source = "idle_attribution";
  const double computing = per_step(a, "computing_ns", steps), communication = per_step(a, "communication_ns", steps),
               bubble = per_step(a, "bubble_ns", steps), idle = per_step(a, "idle_ns", steps),
               copies = optional_per_step(a, "copies_ns", steps);
  set_parts(p, computing, communication, bubble, idle,
            computing + communication + bubble + idle + std::max(0.0, copies), copies);
  add_causes(p, a.value("causes", json::object()), [&](const json& c) { return c.value("ns", 0.0) / steps; });
  // A serving run's iterations: the host's turn between two is a part of the period a saving is of.
  if (const double turn = std::max(0.0, per_step(a, "turns_ns", steps)); turn > 0) {
    p.budget["turn"] = turn;
    p.step += turn;
    p.parts["turn_ns"] = static_cast<int64_t>(turn);
  }
  return p;
}

// From the step breakdown alone (no device timeline to split): idle = Free + Preparing.
Pools pools_from_overall(const json& o) {
  Pools p;
  const double steps = o.value("steps", 0.0);
  if (steps <= 0 || !o.contains("device_time_ns")) return p;
  p.steps = static_cast<int64_t>(steps);
  p.source = "overall";
  const double idle = per_step(o, "free_ns", steps) + per_step(o, "preparing_ns", steps);
  const double communication = per_step(o, "comm_not_overlapped_ns", steps);
  const double computing = per_step(o, "computing_ns", steps);
  const double copies = optional_per_step(o, "copies_ns", steps);
  set_parts(p, computing, communication, 0, idle, idle + communication + computing + std::max(0.0, copies), copies);
  return p;
}

// From a cluster's split (facts.cluster.step_split): already per step, the mean over its ranks.
Pools pools_from_cluster(const json& c) {
  Pools p;
  const double step = c.value("per_step_ns", 0.0);
  if (step <= 0) return p;
  p.steps = 0;
  p.over = c.value("over", "");
  p.source = "cluster.step_split";
  set_parts(p, c.value("computing_ns", 0.0), c.value("communication_ns", 0.0), c.value("bubble_ns", 0.0),
            c.value("idle_ns", 0.0), step);
  add_causes(p, c.value("causes", json::object()), [](const json& v) { return v.is_number() ? v.get<double>() : 0.0; });
  return p;
}

Pools pools_of(const json& facts) {
  if (const auto c = facts.find("cluster"); c != facts.end() && c->is_object()) {
    const auto s = c->find("step_split");
    return s != c->end() && s->is_object() ? pools_from_cluster(*s) : Pools{};
  }
  if (const auto a = facts.find("idle_attribution"); a != facts.end() && a->is_object()) {
    Pools p = pools_from_split(*a);
    if (p.available) return p;
  }
  if (const auto o = facts.find("overall"); o != facts.end() && o->is_object()) return pools_from_overall(*o);
  return {};
}

// The step with the findings' fixes together: said only when every fix of the combined replay
// is a finding's (a fix no rule asked for is not advice); only what the reports read, of the
// types they read (a facts file read back may hold anything). Null when not said.
json replay_summary(const json& combined, const json& findings, double replay_total) {
  json names = json::array();
  bool all_advised = true;
  for (const auto& n : combined.value("transforms", json::array())) {
    if (!n.is_string()) continue;
    names.push_back(n);
    bool advised = false;
    for (const auto& f : findings)
      advised =
          advised || (f.value("saving_method", std::string()) == "replay" && f.value("whatif", std::string()) == n);
    all_advised = all_advised && advised;
  }
  // A serving run's replay: the iteration period (the window and the turn after it).
  auto step = combined.find("period_ns");
  if (step == combined.end()) step = combined.find("step_ns");
  if (!all_advised || names.empty() || step == combined.end() || !step->is_number_integer()) return nullptr;
  return {{"transforms", names},
          {"step_ns", step->get<int64_t>()},
          {"saving_ns", static_cast<int64_t>(std::max(0.0, std::min(replay_total, 9e18)))}};
}

// Why a finding got less than its estimate: the step is spent (`by_step`), the replay of all the
// fixes saves no more, or its pool (`from_text`) is claimed.
std::string capped_text(const std::string& pool, const std::string& from_text, bool by_step, bool replayed) {
  if (by_step) return "the rest of its estimate is more than the step: the findings above it claim the rest";
  if (replayed)
    return "the rest is what the findings above it save: the replay of all the fixes together saves no more";
  return "the rest of its estimate is " + from_text + " time already claimed by the findings above it" +
         (pool.rfind("idle.", 0) == 0 ? " or not attributed to this cause" : "");
}

}  // namespace

bool is_split_pool(const std::string& pool) {
  if (pool == "compute" || pool == "communication" || pool == "copies" || pool == "idle" || pool == "turn") return true;
  return pool.rfind("idle.", 0) == 0 &&
         FactsSchema::builtin().has_need_path("idle_attribution.causes." + pool.substr(5));
}

std::string pool_problem(const std::string& pool) {
  if (is_split_pool(pool)) return "";
  return "pool '" + pool +
         "' is not a pool of the step split (compute, communication, copies, idle, idle.<cause>, turn: docs/rules.md)";
}

double saving_denominator_ns(const json& facts) {
  const Pools p = pools_of(facts);
  return p.available ? p.step : 0.0;
}

namespace {

// The replay of every fix the trace supports together (facts.whatif.combined): the replayed
// savings add up to at most its saving, returned (0 without one); `combined` is set to it.
double combined_replay_saving(const json& facts, const json*& combined) {
  combined = nullptr;
  const auto w = facts.find("whatif");
  if (w == facts.end() || !w->is_object() || !w->contains("combined") || !(*w)["combined"].is_object()) return 0;
  combined = &(*w)["combined"];
  const auto v = combined->find("saving_ns");
  return v != combined->end() && v->is_number() && std::isfinite(v->get<double>())
             ? std::clamp(v->get<double>(), 0.0, 9e18)
             : 0.0;
}

// The findings not dropped, ranked again: a symptom (a residual finding: idle time no cause
// explains) never outranks a cause.
void rerank(json& findings, const std::vector<bool>& drop) {
  std::vector<json> kept;
  for (size_t i = 0; i < findings.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(findings[i]));
  std::stable_sort(kept.begin(), kept.end(), [](const json& a, const json& b) {
    const bool ra = a.value("residual", false), rb = b.value("residual", false);
    if (ra != rb) return rb;
    return a["score_ns"].get<int64_t>() > b["score_ns"].get<int64_t>();
  });
  findings = json::array();
  int rank = 1;
  for (auto& f : kept) {
    f["rank"] = rank++;
    findings.push_back(std::move(f));
  }
}

// The report's "attribution": the split, each pool's budget and claim, and the replay's part.
json attribution_json(const Pools& pools, std::map<std::string, double>& claimed, const json* combined,
                      const json& findings, double replay_total) {
  json out_pools = json::object();
  for (const auto& [name, b] : pools.budget)
    out_pools[name] = {{"budget_ns", static_cast<int64_t>(b)}, {"claimed_ns", static_cast<int64_t>(claimed[name])}};
  // The cause pools are parts of "idle": counted there once.
  const double explained =
      claimed["compute"] + claimed["communication"] + claimed["idle"] + claimed["copies"] + claimed["turn"];
  json out = {{"available", true},
              {"source", pools.source},
              {"step_ns", static_cast<int64_t>(pools.step)},
              {"steps", pools.steps},
              {"explained_ns", static_cast<int64_t>(explained)},
              {"parts", pools.parts},
              {"idle_causes", pools.idle_causes},
              {"pools", out_pools}};
  if (!pools.over.empty()) out["over"] = pools.over;
  if (combined) {
    json replay = replay_summary(*combined, findings, replay_total);
    if (!replay.is_null()) out["replay"] = std::move(replay);
  }
  return out;
}

}  // namespace

json attribute_savings(json& findings, const json& facts) {
  const Pools pools = pools_of(facts);
  if (!pools.available)
    return {{"available", false}, {"why", "no step breakdown: savings are the rules' own estimates"}};
  std::map<std::string, double> left = pools.budget, claimed;
  // A cause pool draws on "idle" too; any pool the split does not have (a cause it did not see,
  // copies on an Ascend run or a cluster) falls back to "idle": no saving escapes the cap.
  auto pools_for = [&](const std::string& pool) {
    std::vector<std::string> out;
    if (left.count(pool) && pool != "idle") out.push_back(pool);
    if (pool.rfind("idle.", 0) == 0 || !left.count(pool)) out.push_back("idle");
    return out;
  };

  std::vector<size_t> order(findings.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Causes first, in rank order; a residual (symptom) finding after every cause.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return !findings[a].value("residual", false) && findings[b].value("residual", false);
  });
  std::vector<bool> drop(findings.size(), false);
  const json* combined = nullptr;
  const double replay_total = combined_replay_saving(facts, combined);
  double replay_left = replay_total;
  // Whatever the pools, the savings together are at most the step.
  double step_left = pools.step;
  for (size_t i : order) {
    json& f = findings[i];
    const std::string pool = f.value("pool", std::string("idle"));
    const std::vector<std::string> from = pools_for(pool);
    const double want = f.value("saving_ns", 0.0);
    double got = want;
    // A replayed saving is the simulated step less the fix (docs/whatif.md), not a share of one
    // part: it is not capped by its pool, only by what the replay of all the fixes together
    // gives; it still claims its pool's time, so a formula finding on the same time gets less.
    // The host-pipeline transformations are replayed on another graph than the combined replay:
    // their savings are capped by their pool, as a formula's.
    const bool replayed = f.value("saving_method", std::string()) == "replay" &&
                          !whatif::two_stage_transform(f.value("whatif", std::string()));
    if (replayed) got = std::min(got, std::max(0.0, replay_left));
    else
      for (const auto& p : from) got = std::min(got, std::max(0.0, left[p]));
    const double pool_got = got;
    got = std::min(got, std::max(0.0, step_left));
    if (replayed) replay_left -= got;
    step_left -= got;
    for (const auto& p : from) left[p] -= got, claimed[p] += got;
    if (got < want) {
      f["saving_estimate_ns"] = static_cast<int64_t>(want);
      f["saving_ns"] = static_cast<int64_t>(got);
      const std::string from_text =
          left.count(pool) || pool.rfind("idle.", 0) == 0 ? pool : "idle (this run's split has no " + pool + " part)";
      f["saving_capped"] = capped_text(pool, from_text, got < pool_got, replayed);
      f["score_ns"] = static_cast<int64_t>(got * f.value("confidence", 0.5));
    }
    f["saving_ratio"] = pools.step > 0 ? json(f.value("saving_ns", 0.0) / pools.step) : json(nullptr);
    if (f.value("residual", false) && got < 0.01 * pools.step) drop[i] = true;
    // An absolute floor: a saving that prints as 0.000 ms is no finding (a unit-test-sized trace).
    if (want > 0 && want < kFloorNs) drop[i] = true;
  }
  rerank(findings, drop);
  return attribution_json(pools, claimed, combined, findings, replay_total);
}

}  // namespace npu
