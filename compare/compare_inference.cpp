// The inference section of the compare document (docs/compare-gate.md, "Inference runs"): when
// both runs are an engine's iterations or generate() calls (facts.inference), their iterations are
// matched by phase and batch size, never iteration i against iteration i: per (phase, batch size)
// the facts' median own window of each side (facts.inference.phases[].by_batch_size, over each
// run's steady state), the decode time per token over the batch sizes both runs decoded, and the
// prefill time per 1k prompt tokens. Everything here is read from the facts; nothing is measured.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/stats.h"
#include "compare/compare_sections.h"

namespace npu::compare::sections {

namespace {

// A (phase, batch size) of an inference run: -1 stands for a batch size the names do not say.
using GroupKey = std::pair<std::string, int64_t>;

struct Group {
  int64_t iterations = 0;
  double median_ns = 0;         // the facts' median own window
  double tokens_per_iter = -1;  // mean tokens of its steady-state iterations; -1: unknown
};

struct Side {
  const json* inf = nullptr;  // null: not an inference run
  std::string label;          // "the baseline", "the new run"
  std::map<GroupKey, Group> groups;
};

int64_t requests_of(const json& j) {
  const auto r = j.find("requests");
  return r != j.end() && r->is_number() ? r->get<int64_t>() : -1;
}

// The steady state's iterations (1-based first..last of facts.inference.steady_state).
std::vector<const json*> steady_iterations(const json& inf) {
  std::vector<const json*> out;
  const auto st = inf.find("steady_state"), its = inf.find("iterations");  // pointers into inf, not a copy
  if (st == inf.end() || !st->is_object() || its == inf.end() || !its->is_array()) return out;
  const size_t first = st->value("first", size_t{1}), last = st->value("last", size_t{0});
  for (size_t i = first; i >= 1 && i <= last && i <= its->size(); ++i) out.push_back(&(*its)[i - 1]);
  return out;
}

Side read_side(const Facts& f, const char* label) {
  Side s;
  s.label = label;
  const json& inf = section(f, "inference");
  const std::string kind = inf.value("kind", std::string());
  if (kind != "serving" && kind != "generate_loop" && kind != "diffusion") return s;
  s.inf = &inf;
  for (const auto& ph : inf.value("phases", json::array()))
    for (const auto& b : ph.value("by_batch_size", json::array()))
      s.groups[{ph.value("phase", std::string()), requests_of(b)}] = {
          b.value("iterations", int64_t{0}), num(b, "own_window_median_ns").value_or(0), -1};
  std::map<GroupKey, std::pair<double, int64_t>> tokens;  // sum, iterations with tokens
  for (const json* it : steady_iterations(inf))
    if (const auto t = num(*it, "tokens"); t && num(*it, "own_window_ns")) {
      auto& [sum, n] = tokens[{it->value("phase", std::string()), requests_of(*it)}];
      sum += *t, ++n;
    }
  for (auto& [key, g] : s.groups)
    if (auto t = tokens.find(key); t != tokens.end() && t->second.second > 0)
      g.tokens_per_iter = t->second.first / static_cast<double>(t->second.second);
  return s;
}

json group_side(const Group* g) {
  if (!g) return nullptr;
  return {{"iterations", g->iterations},
          {"own_window_median_ns", ns(g->median_ns)},
          {"tokens_per_iteration", g->tokens_per_iter > 0 ? json(g->tokens_per_iter) : json(nullptr)},
          {"ns_per_token", g->tokens_per_iter > 0 ? json(g->median_ns / g->tokens_per_iter) : json(nullptr)}};
}

// Every (phase, batch size) of either run: matched where both have it.
json groups_json(const Side& b, const Side& n) {
  std::map<GroupKey, std::pair<const Group*, const Group*>> all;
  for (const auto& [k, g] : b.groups) all[k].first = &g;
  for (const auto& [k, g] : n.groups) all[k].second = &g;
  json out = json::array();
  for (const auto& [k, pair] : all) {
    const auto [gb, gn] = pair;
    json row = {{"phase", k.first},
                {"requests", k.second < 0 ? json(nullptr) : json(k.second)},
                {"status", gb && gn ? "matched" : gb ? "only_base" : "only_new"},
                {"base", group_side(gb)},
                {"new", group_side(gn)}};
    row["delta_ns"] = gb && gn ? json(ns(gn->median_ns - gb->median_ns)) : json(nullptr);
    row["delta_ratio"] = gb && gn ? ratio_or_null(gn->median_ns - gb->median_ns, gb->median_ns) : json(nullptr);
    out.push_back(std::move(row));
  }
  return out;
}

std::string phases_said(const Side& s) {
  std::string out;
  for (const auto& ph : s.inf->value("phases", json::array()))
    out += (out.empty() ? "" : ", ") + ph.value("phase", std::string());
  return out.empty() ? "none" : out;
}

std::string batches_said(const Side& s, const std::string& phase) {
  std::string out;
  for (const auto& [k, g] : s.groups)
    if (k.first == phase) out += (out.empty() ? "" : ", ") + (k.second < 0 ? std::string("?") : std::to_string(k.second));
  return out;
}

json unavailable(std::string why) { return {{"available", false}, {"why", std::move(why)}}; }

json metric(double base, double next, std::string basis) {
  return {{"available", true},
          {"base_ns", base},
          {"new_ns", next},
          {"delta_ns", next - base},
          {"delta_ratio", ratio_or_null(next - base, base)},
          {"basis", std::move(basis)}};
}

// A generate() loop's steady-state calls' times per token after the first.
std::vector<double> generate_per_token(const Side& s) {
  std::vector<double> v;
  for (const json* it : steady_iterations(*s.inf))
    if (const auto t = num(*it, "decode_ns_per_token")) v.push_back(*t);
  return v;
}

// Served batches: each steady decode iteration at a batch size both runs decoded, as its time per
// token over the baseline's median one at that size (the baseline's iterations scatter about 1, a
// run 10% slower at every size about 1.1, whatever its mix), times the metric's baseline value: the
// series the gate's noise test reads, in the metric's unit.
std::vector<double> decode_series(const Side& s, const Side& b, const std::vector<int64_t>& sizes, double scale) {
  std::vector<double> out;
  for (const json* it : steady_iterations(*s.inf)) {
    if (it->value("phase", std::string()) != "decode") continue;
    const int64_t k = requests_of(*it);
    const auto t = num(*it, "tokens"), w = num(*it, "own_window_ns");
    const auto g = b.groups.find({"decode", k});
    if (!t || !w || *t <= 0 || std::find(sizes.begin(), sizes.end(), k) == sizes.end() || g == b.groups.end()) continue;
    const double base_per_token = g->second.median_ns / g->second.tokens_per_iter;
    if (base_per_token > 0) out.push_back(*w / *t / base_per_token * scale);
  }
  return out;
}

json with_series(json m, std::vector<double> base, std::vector<double> next) {
  m["series"] = {{"base", std::move(base)}, {"new", std::move(next)}};
  return m;
}

// Decode time per output token. Served batches: over the decode batch sizes both runs ran, each
// side's median own window over its tokens per iteration, weighted by the baseline's iterations
// at each size (the baseline's mix on both sides, so a change of mix is no regression).
json decode_token(const Side& b, const Side& n) {
  for (const Side* s : {&b, &n})
    if (!s->inf) return unavailable(s->label + " is not an inference run (no facts.inference)");
  if (b.inf->value("kind", "") == "generate_loop" && n.inf->value("kind", "") == "generate_loop") {
    std::vector<double> pb = generate_per_token(b), pn = generate_per_token(n);
    if (pb.empty() || pn.empty()) return unavailable((pb.empty() ? b : n).label + "'s generate() calls have no time per token");
    json m = metric(stats::median(pb), stats::median(pn),
                    "generate() calls: the median time per token after the first (decode_ns_per_token)");
    return with_series(std::move(m), std::move(pb), std::move(pn));
  }
  for (const Side* s : {&b, &n})
    if (batches_said(*s, "decode").empty())
      return unavailable(s->label + " has no decode phase (its phases: " + phases_said(*s) + ")");
  double wb = 0, tb = 0, wn = 0, tn = 0;
  json sizes = json::array();
  std::vector<int64_t> shared;
  for (const auto& [k, gb] : b.groups) {
    const auto gn = n.groups.find(k);
    if (k.first != "decode" || gn == n.groups.end() || gb.tokens_per_iter <= 0 || gn->second.tokens_per_iter <= 0)
      continue;
    const double w = static_cast<double>(gb.iterations);
    wb += w * gb.median_ns, tb += w * gb.tokens_per_iter;
    wn += w * gn->second.median_ns, tn += w * gn->second.tokens_per_iter;
    sizes.push_back({{"requests", k.second < 0 ? json(nullptr) : json(k.second)}, {"weight", gb.iterations}});
    shared.push_back(k.second);
  }
  if (sizes.empty())
    return unavailable(fmt::format(
        "no decode batch size with tokens in both runs (the baseline's: {}; the new run's: {}): a time per token at "
        "other batch sizes is not comparable",
        batches_said(b, "decode"), batches_said(n, "decode")));
  json m = metric(wb / tb, wn / tn,
                  "decode batch sizes both runs ran: median own window over tokens per iteration, weighted by the "
                  "baseline's iterations at each size");
  m["batch_sizes"] = sizes;
  return with_series(std::move(m), decode_series(b, b, shared, wb / tb), decode_series(n, b, shared, wb / tb));
}

// Prefill time per 1,000 prompt tokens: the facts' phases[prefill].ns_per_1k_tokens of each side.
json prefill_1k(const Side& b, const Side& n) {
  double v[2] = {0, 0};
  const Side* sides[2] = {&b, &n};
  for (int i = 0; i < 2; ++i) {
    const Side& s = *sides[i];
    if (!s.inf) return unavailable(s.label + " is not an inference run (no facts.inference)");
    std::optional<double> per;
    for (const auto& ph : s.inf->value("phases", json::array()))
      if (ph.value("phase", "") == "prefill") per = num(ph, "ns_per_1k_tokens");
    if (!per) return unavailable(s.label + " has no prefill phase with tokens (its phases: " + phases_said(s) + ")");
    v[i] = *per;
  }
  return metric(v[0], v[1], "facts.inference.phases[prefill].ns_per_1k_tokens: own windows per 1,000 prompt tokens");
}

json side_json(const Side& s) {
  if (!s.inf) return nullptr;
  return {{"kind", s.inf->value("kind", "")},
          {"engine", s.inf->value("engine", "")},
          {"iterations", s.inf->value("iterations", json::array()).size()},
          {"steady_state", s.inf->value("steady_state", json())}};
}

}  // namespace

json inference_section(const Facts& base, const Facts& next, json& notes) {
  const Side b = read_side(base, "the baseline"), n = read_side(next, "the new run");
  json out = {{"available", b.inf && n.inf}, {"base", side_json(b)}, {"new", side_json(n)}};
  out["decode_token"] = decode_token(b, n);
  out["prefill_1k_tokens"] = prefill_1k(b, n);
  if (!b.inf || !n.inf) {
    if (b.inf || n.inf)
      notes.push_back((b.inf ? n : b).label + " is not an inference run: its iterations cannot be matched");
    return out;
  }
  out["groups"] = groups_json(b, n);
  size_t only = 0;
  for (const auto& g : out["groups"]) only += g["status"] != "matched";
  if (only > 0)
    notes.push_back(fmt::format("{} (phase, batch size) of the inference runs ran in one run only: they are listed, "
                                "not compared",
                                only));
  return out;
}

}  // namespace npu::compare::sections
